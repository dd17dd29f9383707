#!/usr/bin/env python3
"""EBCC, manyjudges against the authors' implementation: accuracy and seconds on the five benchmark sets.

    python -m benchmarks.accuracy.ebcc [--datasets jn-product,sentiment,rte,dog,trec] [--restarts 40]
                                       [--author-restarts 40] [--scale] [--mirror DIR] [--out DIR]

For each data set (``label.csv``: item, judge, label; ``truth.csv``: item, truth; read from the data
mirror, nothing copied), in this process, one after the other on the same rows:

- ours: ``EBCC(n_restarts=R).fit(labels, duplicates="keep")`` from the table (the defaults: M = 10,
  a_pi = 0.1, a_v = 4, b_v = 1, the empirical class prior, at most 500 iterations, tol 1e-3,
  random_state 0), the start with the largest ELBO kept;
- the authors': ``ebcc_vb(tuples, empirical_prior=True, seed=s)`` from ``code/ebcc.py`` of the
  authors' repository in the mirror (imported from there at run time, with the aliases
  ``np.bool`` and ``np.float`` that numpy 2 removed put back first), for seeds s = 0..R'-1, keeping
  the run with the largest ELBO (the protocol in ``manyjudges.truth.methods.ebcc.estimator``'s docstring; the same model
  and defaults; their stopping test ``np.allclose(atol=1e-3)`` adds a relative 1e-5 to ours; other
  random starts than ours).

Seconds: ``time.perf_counter`` around the whole fit (all starts; ours including the reading of the
table into codes, theirs on integer tuples built before the clock), one run (a fit under 1 s is
repeated, the best of 3 counts; :func:`harness.timing.best_of`). Accuracy: the share of the items
with a truth whose inferred label equals it; agreement: the share of items given the same label.
``--scale`` adds ours on the simulated set of 1,000,000 labels of ``truth_vs_crowdkit.simulate_scale``
(100,000 items, 2,000 judges, K = 2, 10 distinct judges per item, judge accuracies from
Beta(5, 2), seed 0), same restarts.

Writes ``<out>/ebcc_benchmark.tsv`` and prints the table as markdown (see benchmarks/README.md).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.accuracy.truth_vs_crowdkit import accuracy, simulate_scale
from benchmarks.accuracy.truth_vs_crowdkit import markdown as markdown_table
from benchmarks.harness.timing import best_of
from benchmarks.harness.truth_sets import REPO, SOURCE, load
from manyjudges.truth import as_crowd_labels
from manyjudges.truth.methods.ebcc.estimator import EBCC

#: the authors' code under the mirror root
AUTHORS = "yuan-li/truth-inference-at-scale/621789b2d57324d3559dc973b2613d2296d73f55/code"
SETS = ("jn-product", "sentiment", "rte", "dog", "trec")
SCALE = "simulated_1m"
COLUMNS = ("dataset", "implementation", "n_labels", "restarts", "accuracy", "n_truth", "seconds",
           "seconds_per_start", "n_iter", "agreement")


def authors_ebcc(mirror: Path):
    """The authors' ``ebcc`` module, imported from the mirror (numpy's removed aliases supplied)."""
    np.bool = bool  # their code passes dtype=np.bool to scipy.sparse
    np.float = float
    spec = importlib.util.spec_from_file_location("ebcc", mirror / AUTHORS / "ebcc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ours(labels: pd.DataFrame, restarts: int) -> tuple[pd.Series, int]:
    est = EBCC(n_restarts=restarts).fit(labels, duplicates="keep")
    return est.labels_, est.n_iter_


def theirs(module, tuples: np.ndarray, items: pd.Index, classes: np.ndarray, restarts: int) -> pd.Series:
    """Their ``ebcc_vb`` for seeds 0..restarts-1, the run with the largest ELBO; labels by item id."""
    best, best_elbo = None, -np.inf
    for seed in range(restarts):
        z, elbo = module.ebcc_vb(tuples, empirical_prior=True, seed=seed)
        if elbo > best_elbo:
            best, best_elbo = z, elbo
    return pd.Series(classes[np.argmax(best, axis=1)], index=items, name="label")


def run_set(name: str, labels: pd.DataFrame, truth: pd.Series, restarts: int, author_restarts: int,
            module) -> list[dict]:
    codes = as_crowd_labels(labels, duplicates="keep")
    (mine, n_iter), seconds = best_of(lambda: ours(labels, restarts))
    rows = [{"dataset": name, "implementation": "manyjudges", "n_labels": codes.n_labels, "restarts": restarts,
             "accuracy": accuracy(mine, truth), "n_truth": len(truth), "seconds": seconds,
             "seconds_per_start": seconds / restarts, "n_iter": n_iter, "agreement": ""}]
    if module is not None and author_restarts > 0:
        tuples = np.stack([codes.item, codes.judge, codes.label], axis=1).astype(np.int64)
        other, their_seconds = best_of(lambda: theirs(module, tuples, codes.items, codes.classes, author_restarts))
        agree = float((other.reindex(mine.index).to_numpy() == mine.to_numpy()).mean())
        rows[0]["agreement"] = agree
        rows.append({"dataset": name, "implementation": "authors", "n_labels": codes.n_labels,
                     "restarts": author_restarts, "accuracy": accuracy(other, truth), "n_truth": len(truth),
                     "seconds": their_seconds, "seconds_per_start": their_seconds / author_restarts, "n_iter": "",
                     "agreement": agree})
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(SETS),
                    help=f"comma-separated, of {', '.join(SETS)} (default: all; 'none' for --scale only)")
    ap.add_argument("--restarts", type=int, default=40, help="our random starts (default 40)")
    ap.add_argument("--author-restarts", default="40",
                    help="the authors' seeds per set: a number, or name=number pairs (e.g. 40,trec=10); 0: skip")
    ap.add_argument("--scale", action="store_true", help="add ours on the simulated 1,000,000-label set")
    ap.add_argument("--mirror", type=Path, default=None, help="the data mirror root (default: $MANYJUDGES_MIRROR)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args(argv)
    datasets = [] if args.datasets == "none" else args.datasets.split(",")
    for bad in [d for d in datasets if d not in SETS]:
        ap.error(f"unknown data set {bad!r}")
    default_authors, per_set = 40, {}
    for part in args.author_restarts.split(","):
        if "=" in part:
            key, value = part.split("=")
            per_set[key] = int(value)
        else:
            default_authors = int(part)
    mirror = args.mirror or Path(os.environ.get("MANYJUDGES_MIRROR", ""))
    if datasets and not (mirror / SOURCE).is_dir():
        ap.error(f"{mirror / SOURCE} not found: give --mirror DIR or set MANYJUDGES_MIRROR")
    module = authors_ebcc(mirror) if datasets and (default_authors or any(per_set.values())) else None

    start = time.perf_counter()
    rows: list[dict] = []
    for name in datasets:
        labels, truth = load(mirror, name)
        new = run_set(name, labels, truth, args.restarts, per_set.get(name, default_authors), module)
        print("\n".join(markdown_table(new, COLUMNS).splitlines()[2:]), flush=True)
        rows += new
    if args.scale:
        labels, truth = simulate_scale()
        new = run_set(SCALE, labels, truth, args.restarts, 0, None)
        print("\n".join(markdown_table(new, COLUMNS).splitlines()[2:]), flush=True)
        rows += new
    args.out.mkdir(parents=True, exist_ok=True)
    tsv = args.out / "ebcc_benchmark.tsv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(tsv, sep="\t", index=False)
    print()
    print(markdown_table(rows, COLUMNS))
    print(f"\nnumpy {np.__version__}, scipy {importlib.import_module('scipy').__version__}, pandas {pd.__version__}, "
          f"python {platform.python_version()}, {os.cpu_count()} CPUs; total {time.perf_counter() - start:.1f} s; "
          f"wrote {tsv}")


if __name__ == "__main__":
    main()
