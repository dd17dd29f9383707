"""Fetch one pinned raw file (or copy it from a mirror) and check its sha256."""
from manyjudges.download import fetch
from manyjudges.pipeline import setup_logging

setup_logging(snakemake.log[0])
pinned = snakemake.params.pinned
fetch(pinned["repo_path"], pinned["sha256"], snakemake.output[0], mirror=snakemake.params.mirror)
