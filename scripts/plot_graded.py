"""Figure: per-judge log probability by method, relative to uniform."""
import pandas as pd

from manyjudges.workflow_support import setup_logging
from manyjudges.graded.plots import plot_loglik_by_judge

setup_logging(snakemake.log[0])
plot_loglik_by_judge(pd.read_csv(snakemake.input[0], sep="\t"), snakemake.wildcards.dataset,
                     [snakemake.output.png, snakemake.output.pdf])
