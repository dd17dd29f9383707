"""A user's own orderings table: validate it and copy it into data/processed/."""
from manyjudges.io.tables import read_orderings
from manyjudges.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
write_tsv(read_orderings(snakemake.input[0]), snakemake.output[0])
