"""Concatenate per-job tables into one results table (stable row order; with a ``methods``
parameter, the methods' rows in that order, each method's rows as they came)."""
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables, in_method_order

setup_logging(snakemake.log[0])
table = concat_tables(snakemake.input)
methods = getattr(snakemake.params, "methods", None)
write_tsv(in_method_order(table, methods) if methods else table, snakemake.output[0])
