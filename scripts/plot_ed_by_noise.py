"""Figure: ED against noise ratio, one line per method, the paper's Table 1 dashed beside ours."""
import pandas as pd

from manyjudges.orderings.plots import plot_ed_by_noise
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
plot_ed_by_noise(pd.read_csv(snakemake.input[0], sep="\t"), snakemake.wildcards.dataset,
                 [snakemake.output.png, snakemake.output.pdf], paper=paper_values("kim2010"))
