"""CLEF eHealth top-20 runs (one file per team) -> canonical rankings table."""
from manyjudges.io.sources.clef_runs import parse_clef_runs
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
write_tsv(parse_clef_runs(snakemake.input), snakemake.output[0])
