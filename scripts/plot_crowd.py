"""The crowd figures of one dataset. crowd_figures: Table 2 bars (with the paper's values beside a stand-in's),
Figure 1 (with vs without skill, when crowd.ablation is configured), Figure 2 (skills);
crowd_robustness_figures: Figures 3-4, one per spammer kind."""
import pandas as pd

from manyjudges.crowd import plots
from manyjudges.crowd.report import figure_paper_values
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
dataset, inp, out, params = snakemake.wildcards.crowd_dataset, snakemake.input, snakemake.output, snakemake.params
read = lambda path: pd.read_csv(path, sep="\t", dtype={"topic": str, "judge": str})  # noqa: E731
if snakemake.rule == "crowd_figures":
    plots.plot_table2(read(inp.ranking_metrics), dataset, out.table2, out.table2_pdf,
                      paper=figure_paper_values(params.spec, paper_values("niu2015")))
    if "quality_ablation" in out.keys():
        plots.plot_skill_ablation(read(inp.metrics_by_topic), params.ablation, dataset,
                                  out.quality_ablation, out.quality_ablation_pdf)
    plots.plot_skill_distributions(read(inp.quality), read(inp.kl), params.bins, dataset,
                                   out.quality_distributions, out.quality_distributions_pdf)
else:
    for spammer in params.spammers:
        plots.plot_robustness(read(inp.summary), read(inp.cv), spammer, dataset,
                              out[f"robustness_{spammer}"], out[f"robustness_{spammer}_pdf"])
