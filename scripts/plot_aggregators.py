"""Figure: aggregators (consensus measure)."""
import pandas as pd

from manyjudges.consensus.plots import plot_aggregators
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
name = getattr(snakemake.wildcards, "dataset", "sensitivity")
plot_aggregators(pd.read_csv(snakemake.input[0], sep="\t"), name, [snakemake.output.png, snakemake.output.pdf])
