"""Concatenate per-job tables into one results table (stable row order)."""
from manyjudges.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables

setup_logging(snakemake.log[0])
write_tsv(concat_tables(snakemake.input), snakemake.output[0])
