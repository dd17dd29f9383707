"""Raw graded judgments (trec_rf10, adultcontent3, snow2008 tasks, a user's table) -> canonical grades table."""
from pathlib import Path

from manyjudges.graded.data import parse_graded_source
from manyjudges.io.tables.grades import write_grades
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec = snakemake.params.spec
data = parse_graded_source(spec["source"], {Path(p).name: p for p in snakemake.input}, spec)
write_grades(data, snakemake.output.grades, snakemake.output.meta)
