#!/usr/bin/env python3
"""Auto beside every single truth method, on every truth set of the data mirror: accuracy, calibration
(ECE, AUROC), seconds, and what auto weighed.

    python -m benchmarks.accuracy.truth_auto [--datasets rte,dog] [--methods dawid_skene,...] [--crowdkit]
                                             [--mirror DIR] [--out benchmarks/results]

Data sets: the five benchmark sets and ``trec_rf10`` of ``truth_vs_crowdkit.py``, and the six Snow et
al. (2008) affect tasks (``snow2008_<task>``: 100 headlines, 10 judges each, ratings in five bins of
20, the expert's gold binned alike). ``trec_rf10`` and the Snow tasks have ordered classes: auto runs
with ``ordered=True`` there (the ordinal model among its candidates), as ``manyjudges truth --labels``
and the pipeline's ``ordinal: true`` run it. Every method is built by registry name and fitted on the
labels already coded (``as_crowd_labels``, exact repeats dropped as the pipeline drops them); seconds
are ``time.perf_counter`` around the fit, best of ``--repeat`` runs (3). ``--crowdkit`` adds crowd-kit's
``MajorityVote`` and ``DawidSkene`` timed in the same process on the same rows (``task, worker, label``).

Writes ``<out>/truth_auto.tsv`` (one row per set and method: ``dataset, method, accuracy, ece, auroc,
n_truth, seconds``, and for auto ``weights``), ``<out>/truth_auto_summary.tsv`` (per set: the best single
method and its accuracy, auto's, the gap, auto's seconds over Dawid-Skene's) and prints both.
"""
from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness.truth_sets import DATASETS, SNOW_TASKS, add_mirror_arguments, load_any, mirror_root
from manyjudges.truth import TRUTH_METHODS, as_crowd_labels, make_truth_estimator
from manyjudges.truth.calibration import _calibration_scores
from manyjudges.truth.results import accuracy

ORDERED = {"trec_rf10", *(f"snow2008_{t}" for t in SNOW_TASKS)}
#: the benchmark sets whose published EBCC mean auto is measured against
BENCHMARK_SETS = ("jn-product", "sentiment", "rte", "dog", "trec")
SINGLE = [name for name in TRUTH_METHODS if name not in ("auto", "majority_vote_random", "mace_em")]


def timed_fit(make, data, repeat: int):
    best, estimator = float("inf"), None
    for _ in range(repeat):
        estimator = make()
        start = time.perf_counter()
        estimator.fit(data)
        best = min(best, time.perf_counter() - start)
    return estimator, best


def crowdkit_rows(dataset: str, labels: pd.DataFrame, truth: pd.DataFrame, repeat: int) -> list[dict]:
    import crowdkit.aggregation as ck

    frame = labels.rename(columns={"item": "task", "judge": "worker"})[["task", "worker", "label"]]
    rows = []
    for name, make in (("majority_vote", ck.MajorityVote), ("dawid_skene", lambda: ck.DawidSkene(n_iter=100))):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            predicted = make().fit_predict(frame)
            best = min(best, time.perf_counter() - start)
        acc, n = accuracy(predicted.rename_axis("item"), truth)
        rows.append({"dataset": dataset, "method": f"crowdkit_{name}", "accuracy": acc, "n_truth": n,
                     "seconds": best})
    return rows


def one_set(dataset: str, mirror: Path, methods: list[str], repeat: int, crowdkit: bool) -> list[dict]:
    labels, truth = load_any(mirror, dataset)
    data = as_crowd_labels(labels, duplicates="first")
    truth = truth[truth["item"].astype(str).isin(set(map(str, data.items)))].reset_index(drop=True)
    rows = []
    for name in [*methods, "auto"]:
        params = {"ordered": True} if name == "auto" and dataset in ORDERED else {}
        estimator, seconds = timed_fit(lambda name=name, params=params: make_truth_estimator(name, params), data,
                                       repeat if name != "ebcc" else 1)
        acc, n = accuracy(estimator.labels_, truth)
        ece, roc = _calibration_scores(estimator.proba_, estimator.labels_, truth)
        row = {"dataset": dataset, "method": name, "accuracy": acc, "ece": ece, "auroc": roc, "n_truth": n,
               "seconds": seconds}
        if name == "auto":
            row["weights"] = " ".join(f"{k}:{w:.2f}" for k, w in estimator.weights_.items() if w > 0)
        rows.append(row)
        print(f"{dataset:18s} {name:22s} {acc:.4f}  ECE {ece:.3f}  AUROC {roc:.3f}  {seconds:8.3f} s "
              f"{row.get('weights', '')}", flush=True)
    if crowdkit:
        rows += crowdkit_rows(dataset, data_frame(data), truth, repeat)
    return rows


def data_frame(data) -> pd.DataFrame:
    return pd.DataFrame({"item": data.items[data.item], "judge": data.judges[data.judge],
                         "label": data.classes[data.label]})


def summary(table: pd.DataFrame) -> pd.DataFrame:
    out = []
    for dataset, rows in table.groupby("dataset", sort=False):
        ours = rows[~rows["method"].str.startswith("crowdkit_")].set_index("method")
        single = ours.drop(index="auto")
        best = single["accuracy"].idxmax()
        auto = ours.loc["auto"]
        out.append({"dataset": dataset, "best_single": best, "best_accuracy": single.loc[best, "accuracy"],
                    "auto_accuracy": auto["accuracy"], "gap": auto["accuracy"] - single.loc[best, "accuracy"],
                    "auto_ece": auto["ece"], "auto_auroc": auto["auroc"],
                    "dawid_skene_ece": single.loc["dawid_skene", "ece"],
                    "dawid_skene_auroc": single.loc["dawid_skene", "auroc"],
                    "auto_seconds": auto["seconds"],
                    "auto_over_dawid_skene": auto["seconds"] / single.loc["dawid_skene", "seconds"]})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> None:
    every = [*DATASETS, *(f"snow2008_{t}" for t in SNOW_TASKS)]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(every), help=f"comma-separated, of {', '.join(every)}")
    ap.add_argument("--methods", default=",".join(SINGLE), help="the single methods beside auto (comma-separated)")
    ap.add_argument("--repeat", type=int, default=3, help="fits per method, the fastest counts (EBCC: one)")
    ap.add_argument("--crowdkit", action="store_true", help="time crowd-kit's MajorityVote and DawidSkene too")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    mirror = mirror_root(ap, args)
    methods = args.methods.split(",")
    if "dawid_skene" not in methods:
        methods.append("dawid_skene")  # the time auto is measured against
    print(f"# python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}", flush=True)
    rows = []
    for dataset in args.datasets.split(","):
        rows += one_set(dataset, mirror, methods, args.repeat, args.crowdkit)
    table = pd.DataFrame(rows)
    summed = summary(table)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "truth_auto.tsv", sep="\t", index=False)
    summed.to_csv(args.out / "truth_auto_summary.tsv", sep="\t", index=False)
    print(summed.round(4).to_markdown(index=False))
    bench = summed[summed["dataset"].isin(BENCHMARK_SETS)]
    if len(bench):
        sets = ", ".join(bench["dataset"])
        print(f"\nmean over the benchmark sets {sets}: auto {bench['auto_accuracy'].mean():.4f}, "
              f"ECE {bench['auto_ece'].mean():.4f}, AUROC {bench['auto_auroc'].mean():.4f}; best single per set "
              f"{bench['best_accuracy'].mean():.4f}")


if __name__ == "__main__":
    main()
