#!/usr/bin/env python3
"""How many labels a policy for buying labels needs: the replay of real truth sets (and simulated panels).

    python benchmarks/truth_active.py [--datasets rte,dog] [--pool [--no-simulated]] [--method dawid_skene]
                                      [--policies lookahead,uncertainty,uniform,random] [--round-share 0.05]
                                      [--large-labels N --large-share S] [--until-target] [--stop 0.99]
                                      [--explore E] [--mirror DIR] [--out benchmarks/results]

The sets: those of ``truth_auto.py`` (the five benchmark sets, trec_rf10, the six Snow et al. tasks), or
with ``--pool`` the development pool (every real truth set of ``config/paper.yaml``,
``truth_pool.pool_sets``, with its group) and, unless ``--no-simulated``, the simulated suite
(``manyjudges.truth.scenarios.simulated_suite(0)``, each panel its own group); ``--datasets`` then keeps
the named ones.

The protocol of :mod:`manyjudges.truth.replay` (the set's real labels, no simulated judges): start
from each item's first label in file order; each round the method (``--method``, a registry name,
default ``dawid_skene``, built with its registry defaults, as ``manyjudges truth next --method NAME``
builds it: every policy reads its posteriors as that command does) is fitted on the labels bought so
far and its accuracy on the items with a truth recorded, then the policy is asked for B = max(1,
round(share * N)) labels, share ``--round-share`` (0.05) of the set's N labels, or ``--large-share``
for a set of more than ``--large-labels`` labels (default: no such sets), or for every label left when
fewer than B are, among the items with labels left, with its stopping advice (items whose top
posterior is at least ``--stop``, 0.99, get none); each time it names an item, that item's next unused
label in file order is bought. Only the named labels are bought: nothing fills a round. The replay ends
when the policy names none or every label is bought, or, with ``--until-target``, at the first fit
whose accuracy reaches the target less 0.005 (the final share is then the labels needed). The target
is the accuracy of the method fitted on every label (a separate fit); labels needed: the first share of
the labels at which the accuracy is at least the target less 0.005, "never" when no round reaches it.
The policies side by side in one run: ``lookahead`` (ours), ``uncertainty`` (lowest top-class
posterior first), ``uniform`` (fewest labels first) and ``random``. Each policy keeps its own share of
each round's labels for the items with the fewest labels, past its stopping advice (0.1 for the
lookahead, 0 for the others); ``--explore E`` gives every policy the share E instead.

Writes ``<out>/<stem>_curves.tsv`` (dataset, policy, round, n_labels, share, accuracy, named),
``<out>/<stem>.tsv`` (per set and policy: group, round share, labels needed, reached, final share and
accuracy, all-labels accuracy, rounds, seconds) and ``<out>/<stem>.png`` (accuracy against the share of
labels, one panel per set, the target dotted); the stem is ``truth_active``, with ``_pool`` for
``--pool`` and ``_<method>`` for a method other than ``dawid_skene``. Printed: labels needed per set and
policy, and per policy the sets reached and the mean labels needed with "never" counted as 1 (all the
labels).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from truth_auto import SNOW_TASKS, load_any  # noqa: E402
from truth_vs_crowdkit import DATASETS, add_mirror_arguments, mirror_root  # noqa: E402

from manyjudges.truth import as_crowd_labels  # noqa: E402
from manyjudges.truth.registry import make_truth_estimator  # noqa: E402
from manyjudges.truth.replay import CURVE_COLUMNS, SUMMARY_COLUMNS, all_labels_accuracy, replay, summarise  # noqa: E402

POLICIES = ("lookahead", "uncertainty", "uniform", "random")
SLACK = 0.005


def method_for(method: str):
    """The registry method with its defaults, built afresh for each fit (as ``truth next --method`` builds it)."""
    return lambda: make_truth_estimator(method)


def load_sets(args: argparse.Namespace, ap: argparse.ArgumentParser) -> list[tuple[str, str, pd.DataFrame,
                                                                                  pd.DataFrame]]:
    """(name, group, labels, truth) of every set to replay, in order."""
    if not args.pool:
        names = args.datasets.split(",") if args.datasets else [*DATASETS, *(f"snow2008_{t}" for t in SNOW_TASKS)]
        mirror = mirror_root(ap, args)
        return [(name, name, *load_any(mirror, name)) for name in names]
    from truth_pool import pool_sets

    from manyjudges.truth.scenarios import simulated_suite

    sets = []
    mirror = args.mirror or os.environ.get("MANYJUDGES_MIRROR")
    if mirror:
        sets += [(p.name, p.group, p.labels, p.truth) for p in pool_sets(mirror)]
    if not args.no_simulated:
        sets += [(name, name, labels, truth) for name, (labels, truth) in simulated_suite(0).items()]
    if args.datasets:
        wanted = args.datasets.split(",")
        unknown = sorted(set(wanted) - {s[0] for s in sets})
        if unknown:
            ap.error(f"--datasets: not in the pool: {', '.join(unknown)}")
        sets = [s for s in sets if s[0] in wanted]
    return sets


def figure(curves: pd.DataFrame, targets: dict[str, float], method: str, path: Path) -> None:
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
        ax.axhline(targets[dataset] - SLACK, color="grey", lw=0.6, ls=":")
        ax.set_title(dataset, fontsize=9)
        ax.set_xlabel("share of the labels bought", fontsize=8)
        ax.set_ylabel(f"accuracy ({method})", fontsize=8)
    for ax in axes.ravel()[len(sets):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def report(table: pd.DataFrame, policies: list[str]) -> None:
    """Print labels needed per set and policy, and per policy the sets reached and the mean labels needed."""
    cells = table.assign(cell=[f"{n:.3f}" if r else f"never ({f:.3f})" for n, r, f in
                               zip(table["labels_needed"], table["reached"], table["final_share"])])
    wide = cells.pivot(index="dataset", columns="policy", values="cell").reindex(
        index=list(dict.fromkeys(table["dataset"])), columns=policies)
    first = table.groupby("dataset", sort=False)
    wide.insert(0, "labels", first["n_labels"].first())
    wide.insert(0, "all-labels accuracy", first["all_labels_accuracy"].first().round(4))
    wide.insert(0, "group", first["group"].first())
    print("labels needed (never: the share bought when the policy stopped)")
    print(wide.to_markdown())
    counted = table.assign(needed_or_1=table["labels_needed"].fillna(1.0))
    means = counted.groupby("policy", sort=False).agg(
        reached=("reached", "sum"), sets=("reached", "size"), mean_labels_needed=("needed_or_1", "mean"),
        mean_final_share=("final_share", "mean"), rounds=("rounds", "sum"), seconds=("seconds", "sum"))
    print("per policy (mean_labels_needed: never counted as 1)")
    print(means.round(3).to_markdown())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=None, help="comma-separated set names (default: every set; "
                    f"without --pool, of {', '.join([*DATASETS, *(f'snow2008_{t}' for t in SNOW_TASKS)])})")
    ap.add_argument("--pool", action="store_true", help="the development pool and the simulated suite")
    ap.add_argument("--no-simulated", action="store_true", help="with --pool: leave the simulated suite out")
    ap.add_argument("--method", default="dawid_skene", help="a registry name (default dawid_skene)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--round-share", type=float, default=0.05, help="at most this share of all labels per round")
    ap.add_argument("--large-labels", type=int, default=None, help="sets of more labels take --large-share")
    ap.add_argument("--large-share", type=float, default=None, help="the round share of the sets past --large-labels")
    ap.add_argument("--until-target", action="store_true", help="end each replay at the first fit that reaches "
                    "the target less 0.005")
    ap.add_argument("--stop", type=float, default=0.99, help="stopping advice (1: none)")
    ap.add_argument("--explore", type=float, default=None, help="every policy's share of each round for the items "
                    "with fewest labels (default: each policy's own)")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    if (args.large_labels is None) != (args.large_share is None):
        ap.error("--large-labels and --large-share go together")
    stop = None if args.stop >= 1 else args.stop
    policies = args.policies.split(",")
    make = method_for(args.method)
    curves, rows, targets = [], [], {}
    for dataset, group, labels, truth in load_sets(args, ap):
        data = as_crowd_labels(labels, duplicates="first")  # rows keep the file's order
        share = (args.large_share if args.large_labels is not None and data.n_labels > args.large_labels
                 else args.round_share)
        start = time.perf_counter()
        target = all_labels_accuracy(data, truth, make)
        print(f"{dataset}: {data.n_labels} labels, all-labels accuracy {target:.4f} "
              f"({time.perf_counter() - start:.1f} s)", flush=True)
        targets[dataset] = target
        for policy in policies:
            start = time.perf_counter()
            curve = replay(data, truth, make, policy=policy, round_share=share, stop=stop, explore=args.explore,
                           until=target - SLACK if args.until_target else None)
            seconds = time.perf_counter() - start
            row = dict(zip(SUMMARY_COLUMNS, summarise(policy, curve, target, data.n_labels, SLACK)))
            rows.append({"dataset": dataset, "group": group, "round_share": share, **row, "seconds": seconds})
            curves.append(curve.assign(dataset=dataset, policy=policy))
            needed = f"{row['labels_needed']:.3f}" if row["reached"] else "never"
            print(f"{dataset:18s} {policy:12s} labels needed {needed:5s}  final share {row['final_share']:.3f} "
                  f"(accuracy {row['final_accuracy']:.4f}; all labels {target:.4f}), {len(curve)} fits, "
                  f"{seconds:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "truth_active" + ("_pool" if args.pool else "") + ("" if args.method == "dawid_skene" else f"_{args.method}")
    curve_table = pd.concat(curves, ignore_index=True)[["dataset", "policy", *CURVE_COLUMNS]]
    curve_table.to_csv(args.out / f"{stem}_curves.tsv", sep="\t", index=False)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / f"{stem}.tsv", sep="\t", index=False)
    figure(curve_table, targets, args.method, args.out / f"{stem}.png")
    report(table, policies)


if __name__ == "__main__":
    main()
