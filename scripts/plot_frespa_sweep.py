"""Figure: FreSPA's ED against each swept parameter."""
import pandas as pd

from manyjudges.workflow_support import setup_logging
from manyjudges.orderings.plots import plot_frespa_sweep

setup_logging(snakemake.log[0])
plot_frespa_sweep(pd.read_csv(snakemake.input[0], sep="\t"), snakemake.wildcards.dataset, [snakemake.output.png, snakemake.output.pdf])
