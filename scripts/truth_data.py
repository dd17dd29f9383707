"""One truth dataset as canonical tables: simulated, a pinned benchmark set, a graded crowd set with
expert gold (snow2008 affect tasks, trec_rf10), or a user's labels table."""
from pathlib import Path

import pandas as pd

from manyjudges.io.labels import read_labels, read_truth, write_labels, write_truth
from manyjudges.io.sources.snow2008 import parse_snow2008, snow2008_gold
from manyjudges.io.sources.trec_rf10 import trec_rf10_labels
from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark
from manyjudges.random_streams import rng_for
from manyjudges.truth.simulate import simulate_labels
from manyjudges.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec, out, name = dict(snakemake.params.spec), snakemake.output, snakemake.wildcards.truth_dataset
source = spec["source"]
if source == "simulate":
    options = {k: spec[k] for k in ("n_items", "n_workers", "labels_per_item", "n_classes", "worker_mix",
                                    "good_accuracy", "bias", "ordinal") if k in spec}
    labels, truth, _ = simulate_labels(rng_for(snakemake.params.seed, "truth", name), **options)
elif source == "truth_benchmark":
    files = {Path(p).name: p for p in snakemake.input}
    data = parse_truth_benchmark(files["label.csv"], files["truth.csv"])
    labels, truth = data.labels, data.truth
elif source == "snow2008":  # the workers' binned ratings, the expert gold binned alike
    path = snakemake.input[0]
    labels = parse_snow2008(path, spec["task"]).grades.rename(columns={"judge": "worker"})
    truth = snow2008_gold(path, spec["task"])
elif source == "trec_rf10":  # the crowd's 0/1/2 relevance labels, NIST's as truth
    labels, truth = trec_rf10_labels(snakemake.input[0])
else:  # labels_table
    labels = read_labels(spec["path"], classes=spec.get("classes"), duplicates=spec.get("duplicates", "error"))
    truth = (read_truth(spec["truth"], labels=labels, classes=spec.get("classes"), strict=spec.get("strict", False))
             if spec.get("truth")
             else pd.DataFrame({"item": pd.Series(dtype=str), "truth": pd.Series(dtype=str)}))
write_labels(labels, out.labels)
write_truth(truth, out.truth)
