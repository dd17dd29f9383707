"""Figure: per-judge log probability by method, relative to uniform; the paper's beside a simulated panel's."""
import pandas as pd

from manyjudges.graded.plots import plot_loglik_by_judge
from manyjudges.graded.report import figure_paper_values
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
plot_loglik_by_judge(pd.read_csv(snakemake.input[0], sep="\t"), snakemake.wildcards.dataset,
                     [snakemake.output.png, snakemake.output.pdf],
                     paper=figure_paper_values(snakemake.params.spec, paper_values("wilbur2011")))
