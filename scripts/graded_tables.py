"""Per-judge log-probability table, chosen parameters and pairwise tests of one graded dataset."""
from manyjudges.graded.experiment import comparison_table, loglik_table, parameter_table
from manyjudges.io.tables.grades import read_grades
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables, in_method_order

setup_logging(snakemake.log[0])
meta = read_grades(snakemake.input.grades, snakemake.input.meta)
ids = {"judge": str, "item": str}
methods = snakemake.params.methods  # the configured order (a job may hold several methods)
predictions = in_method_order(concat_tables(snakemake.input.predictions, dtype=ids), methods)
parameters = in_method_order(concat_tables(snakemake.input.params, dtype={"judge": str}), methods)
write_tsv(parameter_table(parameters), snakemake.output.parameters)
write_tsv(comparison_table(predictions, snakemake.params.comparisons), snakemake.output.pairwise)
write_tsv(loglik_table(predictions, meta.n_classes), snakemake.output.loglik)
