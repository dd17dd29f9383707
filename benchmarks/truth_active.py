#!/usr/bin/env python3
"""How many labels a policy for buying labels needs: the replay of every truth set of the data mirror.

    python benchmarks/truth_active.py [--datasets rte,dog] [--policies lookahead,uncertainty,uniform,random]
                                      [--round-share 0.05] [--mirror DIR] [--out benchmarks/results]

The protocol of :mod:`manyjudges.truth.replay` (the set's real labels, no simulated workers): start
from each item's first label in file order; each round the policy names 5% of the set's labels and
each named item gets its next unused label in file order; Dawid-Skene is refitted and its accuracy on
the items with a truth recorded, until every label is bought. Labels needed: the fewest labels, as a
share of all, at which the accuracy first reaches the all-labels accuracy less 0.005. The policies
side by side in one run: ``lookahead`` (ours: reads Dawid-Skene's posteriors tempered on withheld
labels, ``calibrate="tempering"``, whose labels are Dawid-Skene's), ``uncertainty`` (lowest top-class
posterior first), ``uniform`` (fewest labels first) and ``random``. Data sets: those of
``truth_auto.py`` (the five benchmark sets, trec_rf10, the six Snow et al. tasks).

Writes ``<out>/truth_active_curves.tsv`` (dataset, policy, round, n_labels, share, accuracy),
``<out>/truth_active.tsv`` (labels needed per set and policy, seconds) and ``<out>/truth_active.png``
(accuracy against the share of labels, one panel per set).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from truth_auto import SNOW_TASKS, load_any  # noqa: E402
from truth_vs_crowdkit import DATASETS, add_mirror_arguments, mirror_root  # noqa: E402

from manyjudges.truth import DawidSkene, as_crowd_labels  # noqa: E402
from manyjudges.truth.replay import labels_needed, replay  # noqa: E402

POLICIES = ("lookahead", "uncertainty", "uniform", "random")


def method_for(policy: str):
    """Dawid-Skene; with calibrated (tempered) posteriors for the policy that reads their values."""
    return (lambda: DawidSkene(calibrate="tempering")) if policy == "lookahead" else DawidSkene


def figure(curves: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys(curves["dataset"]))
    cols = 4
    rows = -(-len(sets) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for ax, dataset in zip(axes.ravel(), sets):
        for policy, curve in curves[curves["dataset"] == dataset].groupby("policy", sort=False):
            ax.plot(curve["share"], curve["accuracy"], label=policy, lw=1.2)
        final = curves[curves["dataset"] == dataset]["accuracy"].iloc[-1]
        ax.axhline(final - 0.005, color="grey", lw=0.6, ls=":")
        ax.set_title(dataset, fontsize=9)
        ax.set_xlabel("share of the labels bought", fontsize=8)
        ax.set_ylabel("accuracy (Dawid-Skene)", fontsize=8)
    for ax in axes.ravel()[len(sets):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    every = [*DATASETS, *(f"snow2008_{t}" for t in SNOW_TASKS)]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(every), help=f"comma-separated, of {', '.join(every)}")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--round-share", type=float, default=0.05, help="labels bought per round, as a share of all")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    mirror = mirror_root(ap, args)
    curves, rows = [], []
    for dataset in args.datasets.split(","):
        labels, truth = load_any(mirror, dataset)
        data = as_crowd_labels(labels, duplicates="first")  # rows keep the file's order
        for policy in args.policies.split(","):
            start = time.perf_counter()
            curve = replay(data, truth, method_for(policy), policy=policy, round_share=args.round_share)
            seconds = time.perf_counter() - start
            needed = labels_needed(curve)
            curves.append(curve.assign(dataset=dataset, policy=policy))
            rows.append({"dataset": dataset, "policy": policy, "labels_needed": needed,
                         "all_labels_accuracy": float(curve["accuracy"].iloc[-1]), "rounds": len(curve),
                         "seconds": seconds})
            final = curve["accuracy"].iloc[-1]
            print(f"{dataset:18s} {policy:12s} labels needed {needed:.3f}  (all labels {final:.4f}, "
                  f"{len(curve)} fits, {seconds:.1f} s)", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    curves = pd.concat(curves, ignore_index=True)[["dataset", "policy", "round", "n_labels", "share", "accuracy"]]
    curves.to_csv(args.out / "truth_active_curves.tsv", sep="\t", index=False)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "truth_active.tsv", sep="\t", index=False)
    figure(curves, args.out / "truth_active.png")
    wide = table.pivot(index="dataset", columns="policy", values="labels_needed").reindex(
        index=list(dict.fromkeys(table["dataset"])), columns=args.policies.split(","))
    wide.loc["mean"] = wide.mean()
    print(wide.round(3).to_markdown())


if __name__ == "__main__":
    main()
