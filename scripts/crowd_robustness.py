"""Robustness curves (mean, sd over replicates) and each method's coefficient of variation across ratios."""
from manyjudges.crowd.experiment import robustness_cv, robustness_summary
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables

setup_logging(snakemake.log[0])
summary = robustness_summary(concat_tables(snakemake.input))
write_tsv(summary, snakemake.output.summary)
write_tsv(robustness_cv(summary), snakemake.output.cv)
