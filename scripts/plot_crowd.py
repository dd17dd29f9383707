"""Crowd figures: Table 2 bars (with the paper's values beside a stand-in's), Figure 1 (with vs without
skill), Figure 2 (skills), Figures 3-4 (spammers)."""
import pandas as pd

from manyjudges.crowd import plots
from manyjudges.crowd.report import figure_paper_values
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
rule, out, wc = snakemake.rule, snakemake.output, snakemake.wildcards
read = lambda path: pd.read_csv(path, sep="\t", dtype={"topic": str, "judge": str})  # noqa: E731
if rule == "crowd_figure_table2":
    plots.plot_table2(read(snakemake.input[0]), wc.crowd_dataset, out.png, out.pdf,
                      paper=figure_paper_values(snakemake.params.spec, paper_values("niu2015")))
elif rule == "crowd_figure_quality_ablation":
    plots.plot_skill_ablation(read(snakemake.input[0]), snakemake.params.ablation, wc.crowd_dataset, out.png, out.pdf)
elif rule == "crowd_figure_quality_distributions":
    plots.plot_skill_distributions(read(snakemake.input.quality), read(snakemake.input.kl), snakemake.params.bins,
                                     wc.crowd_dataset, out.png, out.pdf)
else:
    plots.plot_robustness(read(snakemake.input.summary), read(snakemake.input.cv), wc.spammer, wc.crowd_dataset,
                          out.png, out.pdf)
