#!/usr/bin/env python3
"""Truth inference, manyjudges against crowd-kit: accuracy and seconds on six public label sets.

    python -m benchmarks.accuracy.truth_vs_crowdkit [--datasets rte,dog] [--methods dawid_skene,wawa]
                                                    [--scale] [--mirror DIR] [--out benchmarks/results]

For each data set (the five benchmark sets' ``label.csv``: item, judge, label, and ``truth.csv``:
item, truth; and ``trec_rf10``, TREC 2010 RF's 0/1/2 crowd labels with NIST's as truth; read from the
data mirror, nothing copied) and each pair in :data:`PAIRS`, runs our estimator (built by name from
``manyjudges.truth.registry``, ``fit(labels, duplicates="keep")``) and crowd-kit's same method on the
same rows (a DataFrame task, worker, label built before the clock starts), one after the other in
this process. Seconds: ``time.perf_counter`` around the fit; a fit under 1 s is repeated (at least 3
runs, then until the runs take 1 s in all, at most 100) and the best run counts, the same rule for both.
``dawid_skene_matched`` runs our Dawid-Skene for as many iterations as crowd-kit's ran on the set (the
same work: its stopping rule differs, docs of ``manyjudges.truth.methods.dawid_skene``). Accuracy: the share
of the items with a truth whose inferred label equals it.

``--scale`` adds a simulated set of 1,000,000 labels (100,000 items, 2,000 judges, K = 2, each
item labelled by 10 distinct judges, judge accuracies drawn from Beta(5, 2), truth P(1) = 0.4,
seed 0), run through our methods only.

Writes ``<out>/truth_vs_crowdkit.tsv`` and prints the table as markdown (see benchmarks/README.md).
"""
from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.harness.truth_sets import DATASETS, REPO, SOURCE, load
from manyjudges.truth import as_crowd_labels, make_truth_estimator
from manyjudges.truth.calibration import _calibration_scores

SCALE = "simulated_1m"
COLUMNS = ("dataset", "method", "implementation", "accuracy", "ece", "auroc", "n_truth", "seconds", "seconds_on_codes",
           "n_iter", "agreement")


def _crowdkit_wawa(data: pd.DataFrame) -> tuple[pd.Series, int]:
    """crowd-kit's Wawa as ``Wawa.predict`` runs it (fit, then the skill-weighted MajorityVote);
    ``Wawa.predict`` itself fails in ``check_is_fitted`` under scikit-learn 1.9."""
    from crowdkit.aggregation import MajorityVote, Wawa

    skills = Wawa().fit(data).skills_
    return MajorityVote().fit(data, skills=skills).labels_, 0


def _crowdkit(name: str, **params: Any) -> Callable[[pd.DataFrame], tuple[pd.Series, int | str]]:
    """``crowdkit.aggregation.<name>(**params).fit_predict(data)`` and its iteration count."""
    def run(data: pd.DataFrame) -> tuple[pd.Series, int]:
        import crowdkit.aggregation as ck

        model = getattr(ck, name)(**params)
        labels = model.fit_predict(data)
        history = getattr(model, "loss_history_", None)  # MACE keeps none
        return labels, (len(history) if history is not None else "")
    return run


@dataclass(frozen=True)
class Pair:
    """Our method (a registry name and parameters) and crowd-kit's same method (None: ours only)."""

    method: str
    params: dict = field(default_factory=dict)
    crowdkit: Callable[[pd.DataFrame], tuple[pd.Series, int | str]] | None = None
    #: ours runs as many iterations as crowd-kit ran (``max_iter`` = crowd-kit's count, ``tol`` = 0)
    match_iterations: bool = False


#: one line per compared method: (name in this table, our registry method and parameters, crowd-kit's runner)
PAIRS = {
    "majority_vote": Pair("majority_vote", {}, _crowdkit("MajorityVote")),
    "majority_vote_first": Pair("majority_vote", {"ties": "first"}, _crowdkit("MajorityVote")),
    "wawa": Pair("wawa", {}, _crowdkit_wawa),
    "wawa_first": Pair("wawa", {"ties": "first"}, _crowdkit_wawa),
    "dawid_skene": Pair("dawid_skene", {}, _crowdkit("DawidSkene", n_iter=100, tol=1e-5)),
    "dawid_skene_matched": Pair("dawid_skene", {}, _crowdkit("DawidSkene", n_iter=100, tol=1e-5),
                                match_iterations=True),
    "one_coin_dawid_skene": Pair("one_coin_dawid_skene", {}, _crowdkit("OneCoinDawidSkene", n_iter=100, tol=1e-5)),
    "glad": Pair("glad", {}, _crowdkit("GLAD")),
    "mace": Pair("mace", {}, _crowdkit("MACE")),
    "ebcc": Pair("ebcc"),  # crowd-kit has no EBCC: the authors' published accuracies are in REPRODUCTION.md
    "ordinal_dawid_skene": Pair("ordinal_dawid_skene"),
}
#: left out of ``--scale`` (none since EBCC fits a million labels in about 40 s; benchmarks/accuracy/ebcc.py)
SCALE_SKIPPED: tuple[str, ...] = ()
#: crowd-kit methods run only on sets of at most this many labels (its GLAD takes over ten minutes on trec)
CROWDKIT_MAX_LABELS = {"glad": 30_000}


def simulate_scale(seed: int = 0, n_items: int = 100_000, n_judges: int = 2_000, per_item: int = 10
                   ) -> tuple[pd.DataFrame, pd.Series]:
    """1,000,000 binary labels: judge w right with probability acc[w] ~ Beta(5, 2); distinct judges per item."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(n_items) < 0.4).astype(np.int64)
    accuracy = rng.beta(5, 2, n_judges)
    shuffle = rng.permutation(n_judges)
    start = rng.integers(0, n_judges, n_items)
    # per_item judges spaced n_judges / per_item apart on a shuffled circle: distinct within an item
    judge = shuffle[(start[:, None] + np.arange(per_item) * (n_judges // per_item)) % n_judges].ravel()
    item = np.repeat(np.arange(n_items), per_item)
    right = rng.random(item.size) < accuracy[judge]
    label = np.where(right, truth[item], 1 - truth[item])
    return pd.DataFrame({"item": item, "judge": judge, "label": label}), pd.Series(truth, name="truth")


#: a run under this many seconds is repeated (the best run counts) until the runs take this long in all
REPEAT_SECONDS = 1.0
#: ... or until this many runs
MAX_RUNS = 100


def timed(run: Callable[[], Any]) -> tuple[Any, float]:
    """(result of the first run, best seconds): a run under REPEAT_SECONDS is repeated, at least 3 runs,
    until the runs take REPEAT_SECONDS in all or MAX_RUNS were made; the same rule for every implementation."""
    start = time.perf_counter()
    result = run()
    seconds = [time.perf_counter() - start]
    if seconds[0] < REPEAT_SECONDS:
        while len(seconds) < 3 or (sum(seconds) < REPEAT_SECONDS and len(seconds) < MAX_RUNS):
            start = time.perf_counter()
            run()
            seconds.append(time.perf_counter() - start)
    return result, min(seconds)


def accuracy(labels: pd.Series, truth: pd.Series) -> float:
    return float((labels.reindex(truth.index).to_numpy() == truth.to_numpy()).mean())


def compare(dataset: str, labels: pd.DataFrame, truth: pd.Series, name: str, pair: Pair, with_crowdkit: bool
            ) -> list[dict]:
    theirs = None
    if with_crowdkit and pair.crowdkit is not None:
        data = labels.rename(columns={"item": "task", "judge": "worker"})[["task", "worker", "label"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (theirs, their_iter), their_seconds = timed(lambda: pair.crowdkit(data))
    params = dict(pair.params)
    if pair.match_iterations:
        if theirs is None:
            return []
        params.update(max_iter=max(their_iter, 1), tol=0.0)
    estimator = make_truth_estimator(pair.method, params)
    fitted, seconds = timed(lambda: estimator.fit(labels, duplicates="keep"))
    ours = fitted.labels_
    codes = as_crowd_labels(labels, duplicates="keep")
    _, on_codes = timed(lambda: estimator.fit(codes))
    ece, roc = _calibration_scores(fitted.proba_, ours, pd.DataFrame({"item": truth.index, "truth": truth.to_numpy()}))
    rows = [{"dataset": dataset, "method": name, "implementation": "manyjudges", "accuracy": accuracy(ours, truth),
             "ece": ece, "auroc": roc, "n_truth": len(truth), "seconds": seconds, "seconds_on_codes": on_codes,
             "n_iter": fitted.n_iter_, "agreement": ""}]
    if theirs is not None:
        theirs = theirs.reindex(ours.index)
        agree = float((theirs.to_numpy() == ours.to_numpy()).mean())
        rows[0]["agreement"] = agree
        rows.append({"dataset": dataset, "method": name, "implementation": "crowd-kit",
                     "accuracy": accuracy(theirs, truth), "ece": "", "auroc": "", "n_truth": len(truth),
                     "seconds": their_seconds,
                     "seconds_on_codes": "", "n_iter": their_iter, "agreement": agree})
    return rows


def _cell(value: Any, column: str) -> str:
    if isinstance(value, float):
        return f"{value:.4f}" if column in ("accuracy", "agreement", "ece", "auroc") else f"{value:.4g}"
    return str(value)


def markdown(rows: list[dict], columns: tuple[str, ...] = COLUMNS) -> str:
    """The rows as a markdown table of ``columns`` (accuracy and agreement to 4 decimals, other floats 4 digits)."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r[c], c) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def side_by_side(rows: list[dict]) -> str:
    """One line per (data set, method): ours and crowd-kit's accuracy, seconds and iterations, and the
    speed ratio (benchmarks/README.md's table)."""
    head = ("data set", "method", "accuracy ours", "accuracy crowd-kit", "seconds ours", "on codes",
            "seconds crowd-kit", "crowd-kit / ours", "iterations ours / crowd-kit", "same label")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    theirs = {(r["dataset"], r["method"]): r for r in rows if r["implementation"] == "crowd-kit"}
    for r in rows:
        if r["implementation"] != "manyjudges":
            continue
        other = theirs.get((r["dataset"], r["method"]))
        cells = [r["dataset"], r["method"], f"{r['accuracy']:.4f}", "", f"{r['seconds']:.4g}",
                 f"{r['seconds_on_codes']:.4g}", "", "", str(r["n_iter"]), ""]
        if other is not None:
            cells[3], cells[6] = f"{other['accuracy']:.4f}", f"{other['seconds']:.4g}"
            cells[7] = f"{other['seconds'] / r['seconds']:.1f}x"
            cells[8] = f"{r['n_iter']} / {other['n_iter'] if other['n_iter'] != '' else '-'}"
            cells[9] = f"{r['agreement']:.4f}"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(DATASETS),
                    help=f"comma-separated, of {', '.join(DATASETS)} (default: all; 'none' for --scale only)")
    ap.add_argument("--methods", default=",".join(PAIRS), help=f"comma-separated, of {', '.join(PAIRS)}")
    ap.add_argument("--scale", action="store_true", help="add the simulated 1,000,000-label set (ours only)")
    ap.add_argument("--mirror", type=Path, default=None,
                    help="the data mirror root (default: $MANYJUDGES_MIRROR)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args(argv)
    datasets = [] if args.datasets == "none" else args.datasets.split(",")
    methods = args.methods.split(",")
    for bad in [d for d in datasets if d not in DATASETS] + [m for m in methods if m not in PAIRS]:
        ap.error(f"unknown data set or method {bad!r}")
    mirror = args.mirror or Path(os.environ.get("MANYJUDGES_MIRROR", ""))
    if datasets and not (mirror / SOURCE).is_dir():
        ap.error(f"{mirror / SOURCE} not found: give --mirror DIR or set MANYJUDGES_MIRROR")

    if datasets:  # imported before any clock starts (crowdkit.aggregation takes about a second to import)
        import crowdkit.aggregation  # noqa: F401
    start = time.perf_counter()
    rows: list[dict] = []
    for dataset in datasets:
        labels, truth = load(mirror, dataset)
        for name in methods:
            limit = CROWDKIT_MAX_LABELS.get(name)
            with_crowdkit = limit is None or len(labels) <= limit
            new = compare(dataset, labels, truth, name, PAIRS[name], with_crowdkit=with_crowdkit)
            print("\n".join(markdown(new).splitlines()[2:]), flush=True)
            rows += new
    if args.scale:
        labels, truth = simulate_scale()
        for name in [m for m in methods if m not in SCALE_SKIPPED]:
            new = compare(SCALE, labels, truth, name, PAIRS[name], with_crowdkit=False)
            print("\n".join(markdown(new).splitlines()[2:]), flush=True)
            rows += new
    args.out.mkdir(parents=True, exist_ok=True)
    tsv = args.out / "truth_vs_crowdkit.tsv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(tsv, sep="\t", index=False)
    from importlib.metadata import PackageNotFoundError, version
    try:
        versions = f"crowd-kit {version('crowd-kit')}, numpy {np.__version__}, pandas {pd.__version__}"
    except PackageNotFoundError:
        versions = f"numpy {np.__version__}, pandas {pd.__version__}"
    print()
    print(side_by_side(rows))
    print(f"\n{versions}, python {platform.python_version()}, {os.cpu_count()} CPUs; "
          f"total {time.perf_counter() - start:.1f} s; wrote {tsv}")


if __name__ == "__main__":
    main()
