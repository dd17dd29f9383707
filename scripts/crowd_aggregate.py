"""One crowd aggregator on every topic of one dataset: rankings, worker qualities, fitting time."""
from pathlib import Path

import pandas as pd

from manyjudges.crowd.data import load_crowd_dataset
from manyjudges.crowd.experiment import aggregate_dataset
from manyjudges.io.tables import write_table
from manyjudges.workflow_support import setup_logging

setup_logging(snakemake.log[0])
dataset = load_crowd_dataset(Path(snakemake.input.truth).parent)
name = snakemake.wildcards.method
rankings, quality, seconds = aggregate_dataset(dataset, name, snakemake.params.spec)
write_table(rankings, snakemake.output.rankings)
write_table(quality, snakemake.output.quality)
write_table(pd.DataFrame({"method": [name], "seconds": [round(seconds, 3)]}), snakemake.output.runtime)
