"""The replay figure of one truth dataset: accuracy against the share of labels bought, per policy."""
import pandas as pd

from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.truth import plots

setup_logging(snakemake.log[0])
plots.plot_replay(pd.read_csv(snakemake.input.curves, sep="\t"), pd.read_csv(snakemake.input.summary, sep="\t"),
                  snakemake.wildcards.truth_dataset, snakemake.output.png, snakemake.output.pdf)
