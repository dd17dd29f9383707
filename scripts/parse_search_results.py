"""Search-engine top-k files (one per engine) -> canonical rankings table."""
import pandas as pd

from manyjudges.io.sources.search_results import parse_search_results
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
write_tsv(pd.concat([parse_search_results(p) for p in snakemake.input], ignore_index=True), snakemake.output[0])
