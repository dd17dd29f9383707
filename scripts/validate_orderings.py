"""A user's own orderings table: validate it and copy it, canonical, into data/processed/.

The column habits of every reader apply (any column order, worker for judge, task for item, other
columns dropped with a warning in the job's log); a repeated (set_id, judge, item) row follows the
dataset's ``duplicates`` rule (error, first or last)."""
from manyjudges.io.tables.orderings import read_orderings
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
write_tsv(read_orderings(snakemake.input[0], duplicates=snakemake.params.duplicates), snakemake.output[0])
