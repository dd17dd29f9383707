"""Figure: FreSPA's ED against each swept parameter, the paper's Tables 2-4 dashed beside ours."""
import pandas as pd

from manyjudges.orderings.plots import plot_frespa_sweep
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
plot_frespa_sweep(pd.read_csv(snakemake.input[0], sep="\t"), snakemake.wildcards.dataset,
                  [snakemake.output.png, snakemake.output.pdf], paper=paper_values("kim2010"))
