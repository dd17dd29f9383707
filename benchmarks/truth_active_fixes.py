#!/usr/bin/env python3
"""Why the lookahead stalls on the replay, and exploration against it, chosen leave-one-set-out.

    python benchmarks/truth_active_fixes.py --mirror DIR [--datasets rte,dog] [--explore 0,0.05,0.1,0.2,0.3,0.5]
                                            [--out benchmarks/results]

The replay of :mod:`manyjudges.truth.replay` (``benchmarks/truth_active.py``: Dawid-Skene tempered on
withheld labels, rounds of 5% of the labels, stopping advice 0.99, only the named labels bought).

1. The stall: the lookahead with ``explore=0``; at its last fit (the round after which it names
   none), the accuracy and the posteriors' mean top probability and ECE (15 bins) on the items with a
   truth, the share of items at least 0.99 sure, the share of items on one label, and the labels it
   named round by round.
2. Exploration: the lookahead replayed with each ``explore`` share of the grid (a share of each
   round's labels to the items with the fewest labels, past the stopping advice). Leave one set out:
   for each set, the share picked on the other sets is the one that reaches the target on most of
   them, then with the fewest mean labels needed on them (then the smaller share); the held-out set
   is scored with it. ``explore=0`` is the protocol without exploration (the default before it).

Writes ``<out>/truth_active_fixes.tsv`` (dataset, explore, labels_needed, final_share) and
``<out>/truth_active_stall.tsv``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from truth_auto import SNOW_TASKS, load_any  # noqa: E402
from truth_vs_crowdkit import add_mirror_arguments, mirror_root  # noqa: E402

from manyjudges.truth import DawidSkene, as_crowd_labels  # noqa: E402
from manyjudges.truth.calibration import expected_calibration_error  # noqa: E402
from manyjudges.truth.replay import all_labels_accuracy, labels_needed, replay  # noqa: E402

SMALL = ["rte", "dog", "sentiment", *(f"snow2008_{t}" for t in SNOW_TASKS)]


def make() -> DawidSkene:
    return DawidSkene(calibrate="tempering")


def stall(labels: pd.DataFrame, truth: pd.DataFrame) -> dict:
    """The lookahead's replay (explore 0) and what its posteriors say at its last fit."""
    data = as_crowd_labels(labels, duplicates="first")
    last: dict = {}

    def look(round_no: int, seen, method) -> None:
        proba = method.proba_
        known = truth[truth["item"].astype(str).isin(proba.index.astype(str))]
        top = proba.max(axis=1)
        chosen = method.labels_.astype(str)
        index = pd.Index(proba.index.astype(str))
        at = index.get_indexer(known["item"].astype(str))
        correct = chosen.to_numpy()[at] == known["truth"].astype(str).to_numpy()
        confidence = top.to_numpy()[at]
        counts = np.bincount(seen.item, minlength=seen.n_items)
        last.update(accuracy=float(correct.mean()), mean_top=float(confidence.mean()),
                    ece=expected_calibration_error(confidence, correct), sure=float((top >= 0.99).mean()),
                    one_label=float((counts == 1).mean()))

    curve = replay(data, truth, make, policy="lookahead", explore=0.0, on_fit=look)
    target = all_labels_accuracy(data, truth, make)
    return {**last, "target": target, "needed": labels_needed(curve, target),
            "final_share": float(curve["share"].iloc[-1]), "budget": max(1, round(0.05 * data.n_labels)),
            "named": " ".join(str(n) for n in curve["named"])}


def pick(table: pd.DataFrame, sets: list[str]) -> float:
    """The explore share that reaches the target on most of ``sets``, then fewest mean labels needed."""
    rows = table[table["dataset"].isin(sets)]
    score = rows.groupby("explore").agg(reached=("labels_needed", lambda s: int(s.notna().sum())),
                                        mean=("labels_needed", "mean")).reset_index()
    score = score.sort_values(["reached", "mean", "explore"], ascending=[False, True, True])
    return float(score["explore"].iloc[0])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(SMALL))
    ap.add_argument("--explore", default="0,0.05,0.1,0.2,0.3,0.5")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    mirror = mirror_root(ap, args)
    sets = args.datasets.split(",")
    grid = [float(x) for x in args.explore.split(",")]
    stalls, rows = [], []
    for dataset in sets:
        labels, truth = load_any(mirror, dataset)
        data = as_crowd_labels(labels, duplicates="first")
        stalls.append({"dataset": dataset, **stall(labels, truth)})
        target = all_labels_accuracy(data, truth, make)
        for share in grid:
            curve = replay(data, truth, make, policy="lookahead", explore=share)
            rows.append({"dataset": dataset, "explore": share, "labels_needed": labels_needed(curve, target),
                         "final_share": float(curve["share"].iloc[-1])})
            print(f"{dataset:18s} explore {share:.2f}: labels needed {rows[-1]['labels_needed']:.3f} "
                  f"(final share {rows[-1]['final_share']:.3f})", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stall_table = pd.DataFrame(stalls)
    stall_table.to_csv(args.out / "truth_active_stall.tsv", sep="\t", index=False)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "truth_active_fixes.tsv", sep="\t", index=False)
    print("the lookahead's last fit (explore 0): accuracy, posteriors on the items with a truth")
    print(stall_table.round(4).to_markdown(index=False))
    print("labels needed by explore share (NaN: never)")
    print(table.pivot(index="dataset", columns="explore", values="labels_needed").reindex(sets).round(3).to_markdown())
    loso = []
    for held in sets:
        chosen = pick(table, [s for s in sets if s != held])
        got = table[(table["dataset"] == held) & (table["explore"] == chosen)]["labels_needed"].iloc[0]
        today = table[(table["dataset"] == held) & (table["explore"] == 0.0)]["labels_needed"].iloc[0]
        loso.append({"held out": held, "explore picked": chosen, "labels needed (picked)": got,
                     "labels needed (explore 0, today)": today})
    loso_table = pd.DataFrame(loso)
    print("leave one set out")
    print(loso_table.round(3).to_markdown(index=False))
    for column in ("labels needed (picked)", "labels needed (explore 0, today)"):
        values = loso_table[column]
        print(f"{column}: reached on {int(values.notna().sum())} of {len(values)}; "
              f"mean where reached {values.mean():.3f}")


if __name__ == "__main__":
    main()
