"""PrefLib .soc/.toc files -> canonical orderings table."""
from manyjudges.io.sources.preflib import parse_preflib_files
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
write_tsv(parse_preflib_files(snakemake.input), snakemake.output[0])
