#!/usr/bin/env python3
"""`auto`'s defaults chosen leave-one-group-out on the development pool, and what they earn held out.

    python -m benchmarks.defaults.auto_stack [--mirror DIR] [--sets a,b] [--cache DIR] [--out benchmarks/results]
                                             [--no-simulated] [--extra ebcc]

The pool: every real truth set of ``config/paper.yaml`` (``harness.pool.pool_sets``: pinned files read
from the mirror, in 11 groups of sets that share items or labels) and the simulated suite
(``manyjudges.truth.scenarios.simulated_suite(0)``, each panel its own group).

The protocol, per set: the labels coded and sorted (``canonical_order``), the folds over labels of
``Auto`` (5 folds, seed 0); each candidate of the universe (majority vote, Wawa, one-coin, full and
smoothed Dawid-Skene; the ordinal model on ordered sets; ``--extra`` methods) fitted without each fold
and on every label (``manyjudges.truth.auto.stacking._fit_candidate``, cached in ``--cache``). Each configuration
of ``Auto`` is then computed by the same library functions ``Auto.fit`` calls
(``_score_candidate``, ``_stack_scored``), each candidate's posteriors as fitted: a candidate list x the
criterion (the judge model of the withheld-label likelihood: confusion, one_coin, pooled) x the anchor
(none, 0.8, 0.9: a candidate agreeing with the majority vote on fewer items gets no weight; on every panel,
or only on panels where at least 0.1, 0.25 or 0.5 of the (item, judge) cells hold a label) x the margin
(none, 0, 0.02, 0.05: a candidate predicting the withheld labels worse than the majority vote by more, in
nats a label, under one accuracy for every judge, gets no weight). Each is
scored on the set's truth items: accuracy, ECE and AUROC of the top-class posterior (of the stack, before
the calibration ``Auto`` applies after it, which changes no label: ``benchmarks/defaults/auto_calibration.py``)
(``manyjudges.truth.calibration``), and the majority vote's accuracy (the baseline).

The choice: ``benchmarks.harness.selection.leave_one_group_out`` with ``choose_safe_best`` (among the
configurations no more than 0.02 below the majority vote on every training set, the one of highest mean
accuracy; none such: the smallest worst shortfall). Each group is held out, the configuration chosen on
the others, and the held-out sets scored with it: that is the headline, per set and its mean. The
configuration chosen on the whole pool is printed last: the default it supports.

Writes ``<out>/truth_loso_configs.tsv`` (every set x configuration), ``<out>/truth_loso.tsv`` (the
held-out rows with the chosen configuration) and prints both summaries.
"""
from __future__ import annotations

import argparse
import itertools
import os
import pickle
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness.pool import pool_sets
from benchmarks.harness.selection import choose_safe_best, leave_one_group_out
from manyjudges.core.coded_labels import as_crowd_labels, canonical_order, id_positions
from manyjudges.truth.auto.stacking import _fit_candidate, _majority_reference, _score_candidate, _stack_scored
from manyjudges.truth.calibration import _expected_calibration_error, auroc
from manyjudges.truth.heldout import JUDGE_MODELS, _fold_split, _label_folds
from manyjudges.truth.scenarios import simulated_suite

REPO = Path(__file__).resolve().parents[2]

#: candidate lists (the ordinal model is added on ordered sets where the list's name ends in "+ordinal")
LISTS = {
    "mv_wawa_ds5": ("majority_vote", "wawa", "one_coin_dawid_skene", "dawid_skene", "dawid_skene_map"),
    "mv_wawa_ds4": ("majority_vote", "wawa", "one_coin_dawid_skene", "dawid_skene"),
    "mv_wawa_onecoin": ("majority_vote", "wawa", "one_coin_dawid_skene"),
}
CALIBRATIONS = (None,)  # each candidate as fitted (Auto stacks them so; its calibration is chosen apart)
ANCHORS = (None, 0.8, 0.9)
ANCHOR_DENSITIES = (0.0, 0.1, 0.25, 0.5)
MARGINS = (None, 0.0, 0.02, 0.05)
FOLDS, SEED = 5, 0


def candidate_lists(ordered: bool, extra: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    out = {}
    for name, names in LISTS.items():
        out[name] = names
        if extra:
            out[f"{name}+{'+'.join(extra)}"] = (*names, *extra)
        out[f"{name}+ordinal"] = (*names, "ordinal_dawid_skene") if ordered else names
    return out


def scored_truth(data, truth: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(item codes with a truth, their true class codes)."""
    items = id_positions(data.items, truth["item"])
    keep = items >= 0
    classes = id_positions(pd.Index(data.classes.astype(str)), truth["truth"].astype(str)[keep])
    ok = classes >= 0
    return items[keep][ok], classes[ok]


def metrics(proba: np.ndarray, items: np.ndarray, classes: np.ndarray) -> dict[str, float]:
    chosen = np.argmax(proba[items], axis=1)
    confidence = proba[items, chosen]
    right = chosen == classes
    return {"accuracy": float(right.mean()), "ece": _expected_calibration_error(confidence, right),
            "auroc": auroc(confidence, right)}


def set_fits(name: str, data, split, universe: list[str], cache: Path | None):
    path = None if cache is None else cache / f"{name}.pkl"
    stored = {}
    if path is not None and path.exists():
        with open(path, "rb") as handle:
            stored = pickle.load(handle)
    for method in universe:
        if method not in stored:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stored[method] = _fit_candidate(method, data, split)
            print(f"  {name}: {method} fitted in {stored[method].seconds:.1f} s", flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            pickle.dump(stored, handle)
    return stored


def set_rows(name: str, group: str, ordered: bool, labels: pd.DataFrame, truth: pd.DataFrame,
             extra: tuple[str, ...], cache: Path | None) -> list[dict]:
    data = canonical_order(as_crowd_labels(labels, duplicates="first"))
    split = _fold_split(data, _label_folds(data, FOLDS, SEED), None, SEED)
    lists = candidate_lists(ordered, extra)
    universe = list(dict.fromkeys(m for names in lists.values() for m in names))
    fits = set_fits(name, data, split, universe, cache)
    items, classes = scored_truth(data, truth)
    singles = {m: metrics(fits[m].full, items, classes)["accuracy"] for m in universe}
    baseline = singles["majority_vote"]
    rows = []
    scored = {}
    for criterion, calibrate in itertools.product(JUDGE_MODELS, CALIBRATIONS):
        for m in universe:
            scored[m, criterion, calibrate] = _score_candidate(data, split, fits[m], criterion, calibrate)
    reference = _majority_reference(data, split, [fits["majority_vote"]])
    for (list_name, names), criterion, calibrate, anchor, density, margin in itertools.product(
            lists.items(), JUDGE_MODELS, CALIBRATIONS, ANCHORS, ANCHOR_DENSITIES, MARGINS):
        if anchor is None and density > 0:
            continue  # the same configuration as density 0
        proba, report = _stack_scored(data, [scored[m, criterion, calibrate] for m in names], anchor, margin, reference,
                                     density)
        config = "|".join([list_name, criterion, calibrate or "none", f"{anchor}@{density}", str(margin)])
        rows.append({"dataset": name, "group": group, "config": config, "baseline": baseline,
                     "best_single": max(singles.values()), **metrics(proba, items, classes),
                     "choice": report.loc[report["weight"].idxmax(), "candidate"]})
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    ap.add_argument("--sets", default=None, help="comma-separated set names (default: the whole pool)")
    ap.add_argument("--cache", type=Path, default=None, help="keep each set's candidate fits here")
    ap.add_argument("--extra", default="", help="comma-separated registry names added as a candidate list")
    ap.add_argument("--no-simulated", action="store_true", help="leave the simulated suite out")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    ap.add_argument("--from-table", type=Path, default=None,
                    help="a truth_loso_configs.tsv of an earlier run: choose again from it, fitting nothing")
    args = ap.parse_args(argv)
    if args.from_table is not None:
        report(pd.read_csv(args.from_table, sep="\t"), args.out)
        return
    extra = tuple(x for x in args.extra.split(",") if x)
    pool = []
    if args.mirror is not None:
        pool += [(p.name, p.group, p.ordered, p.labels, p.truth) for p in pool_sets(args.mirror)]
    if not args.no_simulated:
        pool += [(name, name, False, labels, truth) for name, (labels, truth) in simulated_suite(0).items()]
    if args.sets:
        wanted = args.sets.split(",")
        pool = [p for p in pool if p[0] in wanted]
    rows = []
    for name, group, ordered, labels, truth in pool:
        start = time.perf_counter()
        rows += set_rows(name, group, ordered, labels, truth, extra, args.cache)
        print(f"{name}: {time.perf_counter() - start:.1f} s", flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "truth_loso_configs.tsv", sep="\t", index=False)
    report(table, args.out)


def report(table: pd.DataFrame, out: Path) -> None:
    """The leave-one-group-out choice on ``table`` (every set x configuration): written and printed."""
    out.mkdir(parents=True, exist_ok=True)
    held = leave_one_group_out(table)
    held = held.assign(vs_majority=held["accuracy"] - held["baseline"])
    held.to_csv(out / "truth_loso.tsv", sep="\t", index=False)
    columns = ["dataset", "group", "chosen", "accuracy", "baseline", "vs_majority", "best_single", "ece", "auroc"]
    print(held[columns].round(4).to_markdown(index=False))
    means = held[["accuracy", "baseline", "vs_majority", "best_single", "ece", "auroc"]].mean()
    print("mean (held out):", means.round(4).to_dict())
    print("sets more than 0.02 below majority vote (held out):", int((held["vs_majority"] < -0.02).sum()))
    final = choose_safe_best(table)
    print("chosen on the whole pool:", final)
    for config in dict.fromkeys([final, *table["config"].unique()[:1]]):
        part = table[table["config"] == config]
        print(f"  in-sample {config}: accuracy {part['accuracy'].mean():.4f}, "
              f"worst vs majority {(part['accuracy'] - part['baseline']).min():+.4f}")


if __name__ == "__main__":
    main()
