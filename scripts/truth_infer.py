"""Every configured truth-inference method on one dataset: accuracy, inferred labels, judge skills, and
the dataset's summary (size, labels per item, Krippendorff's alpha)."""
import pandas as pd

from manyjudges.io.tables.labels import read_crowd_labels, read_truth
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.truth.agreement import summarise_labels
from manyjudges.truth.experiment import run_methods

setup_logging(snakemake.log[0])
spec, out = snakemake.params.spec, snakemake.output
classes = spec.get("classes")
data = read_crowd_labels(snakemake.input.labels, classes=classes, duplicates="keep")
# a labels table of the user's own may come without a truth (its truth.tsv has the header only)
no_truth = spec.get("source") == "labels_table" and not spec.get("truth")
truth = None if no_truth else read_truth(snakemake.input.truth, labels=data, classes=classes)
run = run_methods(data, truth, snakemake.params.specs)
write_tsv(run.accuracy.round({"seconds": 3}), out.accuracy)
write_tsv(run.labels, out.labels)
write_tsv(run.judges, out.judges)
summary = summarise_labels(data, ordinal=bool(spec.get("ordinal", False)))
summary["items_with_truth"] = 0 if truth is None else len(truth)
write_tsv(pd.DataFrame({"statistic": list(summary), "value": list(summary.values())}), out.summary)
