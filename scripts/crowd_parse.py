"""Raw crowd judgments (mirex2005, trec_rf10, a user's tables) -> canonical preferences or grades, and truth."""
from pathlib import Path

from manyjudges.crowd.data import parse_crowd_source, write_crowd_dataset
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec = snakemake.params.spec
judgments, truth = parse_crowd_source(spec["source"], {Path(p).name: p for p in snakemake.input}, spec)
write_crowd_dataset(judgments, truth, Path(snakemake.output.truth).parent)
