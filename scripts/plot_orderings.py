"""The figures of one ordered-list dataset: ED against noise ratio, one line per method, and (when the config
sweeps) FreSPA's ED against each swept parameter; the paper's Tables 1-4 dashed beside ours."""
import pandas as pd

from manyjudges.orderings.plots import plot_ed_by_noise, plot_frespa_sweep
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values

setup_logging(snakemake.log[0])
dataset, out = snakemake.wildcards.dataset, snakemake.output
plot_ed_by_noise(pd.read_csv(snakemake.input.ed_by_noise, sep="\t"), dataset, [out.ed_by_noise, out.ed_by_noise_pdf],
                 paper=paper_values("kim2010"))
if "frespa_sweep" in out.keys():
    plot_frespa_sweep(pd.read_csv(snakemake.input.frespa_sweep, sep="\t"), dataset,
                      [out.frespa_sweep, out.frespa_sweep_pdf], paper=paper_values("kim2010"))
