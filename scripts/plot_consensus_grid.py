"""Figure: consensus_grid (consensus measure), the reference values of the authors' code beside ours."""
import pandas as pd

from manyjudges.consensus.plots import plot_consensus_grid
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
name = getattr(snakemake.wildcards, "dataset", "sensitivity")
plot_consensus_grid(pd.read_csv(snakemake.input[0], sep="\t"), name, [snakemake.output.png, snakemake.output.pdf],
                    paper=paper_values("lin2017"))
