"""ED of one method on one dataset at each of its job's noise ratios, over replicates."""
from manyjudges.io.tables import read_orderings
from manyjudges.orderings.experiment import ed_by_noise_table, panels_from_table
from manyjudges.orderings.registry import make_ordering_scorer
from manyjudges.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
wc, params = snakemake.wildcards, snakemake.params
panels = panels_from_table(read_orderings(snakemake.input[0]))
scorer = make_ordering_scorer(params.spec["method"], params.spec["params"])
table = ed_by_noise_table(panels, scorer, params.ratios, params.replicates, params.seed, wc.dataset, wc.method)
write_tsv(table, snakemake.output[0])
