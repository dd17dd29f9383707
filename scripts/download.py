"""Fetch a dataset's pinned raw files (or copy them from a mirror), checking each sha256."""
from manyjudges.pipeline.download import fetch
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
for pinned, dest in zip(snakemake.params.pinned, snakemake.output):
    fetch(pinned["repo_path"], pinned["sha256"], dest, mirror=snakemake.params.mirror)
