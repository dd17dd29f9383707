"""One job's crowd aggregators (one, or the batch) on every topic of one dataset: rankings,
judge skills, fitting time per method."""

import pandas as pd

from manyjudges.crowd.data import load_crowd_files
from manyjudges.crowd.experiment import aggregate_dataset
from manyjudges.io.engine.table_text import write_table
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
dataset = load_crowd_files(dict(snakemake.input.items()))
done = {name: aggregate_dataset(dataset, name, spec) for name, spec in snakemake.params.specs.items()}
write_table(pd.concat([d[0] for d in done.values()], ignore_index=True), snakemake.output.rankings)
write_table(pd.concat([d[1] for d in done.values()], ignore_index=True), snakemake.output.quality)
seconds = [round(d[2], 3) for d in done.values()]
write_table(pd.DataFrame({"method": list(done), "seconds": seconds}), snakemake.output.runtime)
