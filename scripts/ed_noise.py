"""ED of one job's methods on one dataset at each of its noise ratios, over replicates, under one reading
of the noise experiment (ed_over, noise_rounding)."""
import pandas as pd

from manyjudges.io.tables.orderings import read_orderings
from manyjudges.orderings.experiment import ed_by_noise_table, panels_from_table
from manyjudges.orderings.registry import make_ordering_scorer
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
wc, params = snakemake.wildcards, snakemake.params
panels = panels_from_table(read_orderings(snakemake.input[0]))
tables = [
    ed_by_noise_table(panels, make_ordering_scorer(spec["method"], spec["params"]), params.ratios, params.replicates,
                      params.seed, wc.dataset, name, **params.reading)
    for name, spec in params.specs.items()
]
write_tsv(pd.concat(tables, ignore_index=True), snakemake.output[0])
