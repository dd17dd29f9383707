"""ED of one method on one dataset at one noise ratio, over replicates."""
from manyjudges.io.tables import read_orderings
from manyjudges.orderings.experiment import ed_by_noise_row, ed_replicates
from manyjudges.orderings.experiment import panels_from_table
from manyjudges.workflow_support import setup_logging, write_tsv
from manyjudges.orderings.registry import make_ordering_scorer

setup_logging(snakemake.log[0])
wc, params = snakemake.wildcards, snakemake.params
panels = panels_from_table(read_orderings(snakemake.input[0]))
scorer = make_ordering_scorer(params.spec["method"], params.spec["params"])
per_replicate = ed_replicates(panels, scorer, float(wc.ratio), params.replicates, params.seed, wc.dataset)
write_tsv(ed_by_noise_row(per_replicate, float(wc.ratio), wc.method), snakemake.output[0])
