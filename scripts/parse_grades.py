"""Raw graded judgments (trec_rf10, adultcontent3, snow2008 tasks, a user's table) -> canonical grades table."""
from pathlib import Path

from manyjudges.io.grades import (
    parse_adultcontent3,
    parse_snow2008,
    parse_trec_rf10,
    read_grades_table,
    write_grades,
)
from manyjudges.pipeline import setup_logging

setup_logging(snakemake.log[0])
files = {Path(p).name: p for p in snakemake.input}
spec = snakemake.params.spec
source = spec["source"]
if source == "table":
    data = read_grades_table(snakemake.input[0], spec["n_labels"], spec.get("label_names"))
elif source == "trec_rf10":
    data = parse_trec_rf10(files["trec-rf10-data.txt"])
elif source == "adultcontent3":
    data = parse_adultcontent3(files["labels.txt"], files["categories.txt"])
else:
    data = parse_snow2008(snakemake.input[0], spec["task"])
write_grades(data, snakemake.output.grades, snakemake.output.meta)
