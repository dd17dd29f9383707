"""Every configured truth-inference method on one dataset: accuracy, inferred labels, worker skills, and
the dataset's summary (size, labels per item, Krippendorff's alpha)."""
import pandas as pd

from manyjudges.io.labels import read_labels, read_truth
from manyjudges.truth.agreement import summarise_labels
from manyjudges.truth.experiment import run_methods
from manyjudges.truth.labels import as_crowd_labels
from manyjudges.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
spec, out = snakemake.params.spec, snakemake.output
classes = spec.get("classes")
labels = read_labels(snakemake.input.labels, classes=classes, duplicates="keep")
truth = read_truth(snakemake.input.truth, labels=labels, classes=classes)
data = as_crowd_labels(labels, classes=classes, duplicates="keep", source=snakemake.input.labels)
run = run_methods(data, truth, snakemake.params.specs)
write_tsv(run.accuracy.round({"seconds": 3}), out.accuracy)
write_tsv(run.labels, out.labels)
write_tsv(run.workers, out.workers)
summary = summarise_labels(data, ordinal=bool(spec.get("ordinal", False)))
summary["items_with_truth"] = len(truth)
write_tsv(pd.DataFrame({"statistic": list(summary), "value": list(summary.values())}), out.summary)
