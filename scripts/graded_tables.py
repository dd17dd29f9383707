"""Per-judge log-probability table, chosen parameters and pairwise tests of one graded dataset."""
from manyjudges.graded.experiment import comparison_table, loglik_table, parameter_table
from manyjudges.io.grades import read_grades
from manyjudges.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables

setup_logging(snakemake.log[0])
meta = read_grades(snakemake.input.grades, snakemake.input.meta)
ids = {"judge": str, "item": str}
predictions = concat_tables(snakemake.input.predictions, dtype=ids)
write_tsv(parameter_table(concat_tables(snakemake.input.params, dtype={"judge": str})), snakemake.output.parameters)
write_tsv(comparison_table(predictions, snakemake.params.comparisons), snakemake.output.pairwise)
write_tsv(loglik_table(predictions, meta.n_labels), snakemake.output.loglik)
