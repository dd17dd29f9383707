"""One truth dataset as canonical tables (manyjudges.truth.data.truth_tables)."""
from manyjudges.io.tables.labels import write_labels, write_truth
from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.truth.data import truth_tables

setup_logging(snakemake.log[0])
labels, truth = truth_tables(snakemake.wildcards.truth_dataset, dict(snakemake.params.spec), list(snakemake.input),
                             snakemake.params.seed)
write_labels(labels, snakemake.output.labels)
write_truth(truth, snakemake.output.truth)
