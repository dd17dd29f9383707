#!/usr/bin/env python3
"""How many labels a policy for buying labels needs: the replay of every truth set of the data mirror.

    python benchmarks/truth_active.py [--datasets rte,dog] [--policies lookahead,uncertainty,uniform,random]
                                      [--round-share 0.05] [--stop 0.99] [--explore E] [--mirror DIR]
                                      [--out benchmarks/results]

The protocol of :mod:`manyjudges.truth.replay` (the set's real labels, no simulated workers): start
from each item's first label in file order; each round Dawid-Skene is fitted on the labels bought so
far and its accuracy on the items with a truth recorded, then the policy is asked for 5% of the set's
labels (or every label left, when fewer are) among the items with labels left, with its stopping
advice (items whose top posterior is at least ``--stop``, 0.99, get none); each time it names an item,
that item's next unused label in file order is bought. Only the named labels are bought: nothing fills
a round. The replay ends when the policy names none or every label is bought. The target is the
accuracy of Dawid-Skene fitted on every label (a separate fit); labels needed: the first share of the
labels at which the accuracy is at least the target less 0.005, "never" when no round reaches it.
The policies side by side in one run: ``lookahead`` (ours: reads Dawid-Skene's posteriors tempered on
withheld labels, ``calibrate="tempering"``, whose labels are Dawid-Skene's), ``uncertainty`` (lowest
top-class posterior first), ``uniform`` (fewest labels first) and ``random``. Each policy keeps its
own share of each round's labels for the items with the fewest labels, past its stopping advice (0.1
for the lookahead, 0 for the others); ``--explore E`` gives every policy the share E instead.
Data sets: those of ``truth_auto.py`` (the five benchmark sets, trec_rf10, the six Snow et al. tasks).

Writes ``<out>/truth_active_curves.tsv`` (dataset, policy, round, n_labels, share, accuracy, named),
``<out>/truth_active.tsv`` (per set and policy: labels needed, reached, final share and accuracy,
all-labels accuracy, rounds, seconds) and ``<out>/truth_active.png`` (accuracy against the share of
labels, one panel per set, the target dotted).
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
from manyjudges.truth.replay import CURVE_COLUMNS, all_labels_accuracy, replay, summarise  # noqa: E402

POLICIES = ("lookahead", "uncertainty", "uniform", "random")


def method_for(policy: str):
    """Dawid-Skene; with calibrated (tempered) posteriors for the policy that reads their values."""
    return (lambda: DawidSkene(calibrate="tempering")) if policy == "lookahead" else DawidSkene


def figure(curves: pd.DataFrame, targets: dict[str, float], path: Path) -> None:
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
        ax.axhline(targets[dataset] - 0.005, color="grey", lw=0.6, ls=":")
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
    ap.add_argument("--round-share", type=float, default=0.05, help="at most this share of all labels per round")
    ap.add_argument("--stop", type=float, default=0.99, help="stopping advice (1: none)")
    ap.add_argument("--explore", type=float, default=None, help="every policy's share of each round for the items "
                    "with fewest labels (default: each policy's own)")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    mirror = mirror_root(ap, args)
    stop = None if args.stop >= 1 else args.stop
    curves, rows, targets = [], [], {}
    for dataset in args.datasets.split(","):
        labels, truth = load_any(mirror, dataset)
        data = as_crowd_labels(labels, duplicates="first")  # rows keep the file's order
        for policy in args.policies.split(","):
            start = time.perf_counter()
            curve = replay(data, truth, method_for(policy), policy=policy, round_share=args.round_share, stop=stop,
                           explore=args.explore)
            seconds = time.perf_counter() - start
            target = all_labels_accuracy(data, truth, method_for(policy))
            targets[dataset] = target
            row = dict(zip(["policy", "labels_needed", "reached", "final_share", "final_accuracy",
                            "all_labels_accuracy", "n_labels", "rounds"],
                           summarise(policy, curve, target, data.n_labels)))
            rows.append({"dataset": dataset, **row, "seconds": seconds})
            curves.append(curve.assign(dataset=dataset, policy=policy))
            needed = f"{row['labels_needed']:.3f}" if row["reached"] else "never"
            print(f"{dataset:18s} {policy:12s} labels needed {needed:5s}  final share {row['final_share']:.3f} "
                  f"(accuracy {row['final_accuracy']:.4f}; all labels {target:.4f}), {len(curve)} fits, "
                  f"{seconds:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    curves = pd.concat(curves, ignore_index=True)[["dataset", "policy", *CURVE_COLUMNS]]
    curves.to_csv(args.out / "truth_active_curves.tsv", sep="\t", index=False)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "truth_active.tsv", sep="\t", index=False)
    figure(curves, targets, args.out / "truth_active.png")
    cells = table.assign(cell=[f"{n:.3f}" if r else f"never ({f:.3f})" for n, r, f in
                               zip(table["labels_needed"], table["reached"], table["final_share"])])
    wide = cells.pivot(index="dataset", columns="policy", values="cell").reindex(
        index=list(dict.fromkeys(table["dataset"])), columns=args.policies.split(","))
    wide.insert(0, "all-labels accuracy", table.groupby("dataset", sort=False)["all_labels_accuracy"].first())
    print("labels needed (never: the share bought when the policy stopped)")
    print(wide.to_markdown())
    means = table.groupby("policy", sort=False).agg(reached=("reached", "sum"), sets=("reached", "size"),
                                                      mean_final_share=("final_share", "mean"))
    print(means.round(3).to_markdown())


if __name__ == "__main__":
    main()
