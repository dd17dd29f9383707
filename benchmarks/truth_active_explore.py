#!/usr/bin/env python3
"""The lookahead's exploration share chosen leave-one-group-out on the development pool.

    python benchmarks/truth_active_explore.py [--method dawid_skene] [--explore 0,0.05,0.1,0.2,0.3]
                                              [--datasets a,b] [--no-simulated] [--mirror DIR]
                                              [--out benchmarks/results]

The replay of ``truth_active.py --pool`` (every real truth set of ``config/paper.yaml`` and, unless
``--no-simulated``, the simulated suite; the method ``--method`` with its registry defaults; rounds of
5% of the labels, stopping advice 0.99, only the named labels bought; target the method's accuracy on
every label less 0.005), for the lookahead alone, once per exploration share of ``--explore``. The
table set x share (labels needed, "never" counted as 1) goes to
``manyjudges.truth.selection.leave_one_group_out``: each group of sets (sets sharing items share a
group; each simulated panel its own) is held out in turn, the share is chosen on the other groups'
sets (the most sets reaching the target, then the lowest mean labels needed, then the smaller share)
and the held-out sets are scored with it. Printed: the table, the held-out rows with the share each
fold chose, and the held-out means against the default share (``DEFAULT_EXPLORE``, 0.1) on the same
sets. Writes ``<out>/truth_active_explore_<method>.tsv`` (the table set x share).
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

from truth_pool import pool_sets  # noqa: E402

from manyjudges.truth import as_crowd_labels  # noqa: E402
from manyjudges.truth.active import DEFAULT_EXPLORE  # noqa: E402
from manyjudges.truth.registry import make_truth_estimator  # noqa: E402
from manyjudges.truth.replay import all_labels_accuracy, labels_needed, replay  # noqa: E402
from manyjudges.truth.scenarios import simulated_suite  # noqa: E402
from manyjudges.truth.selection import leave_one_group_out  # noqa: E402

SLACK = 0.005


def choose_share(rows: pd.DataFrame) -> float:
    """The share reaching the target on most of ``rows``' sets, then the lowest mean labels needed
    ("never" counted as 1), then the smaller share."""
    score = rows.groupby("explore").agg(reached=("reached", "sum"), mean=("needed_or_1", "mean")).reset_index()
    score = score.sort_values(["reached", "mean", "explore"], ascending=[False, True, True])
    return float(score["explore"].iloc[0])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", default="dawid_skene")
    ap.add_argument("--explore", default="0,0.05,0.1,0.2,0.3")
    ap.add_argument("--datasets", default=None, help="comma-separated set names (default: the whole pool)")
    ap.add_argument("--no-simulated", action="store_true")
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args(argv)
    if args.mirror is None or not Path(args.mirror).is_dir():
        ap.error("give --mirror DIR or set MANYJUDGES_MIRROR")
    sets = [(p.name, p.group, p.labels, p.truth) for p in pool_sets(args.mirror)]
    if not args.no_simulated:
        sets += [(name, name, labels, truth) for name, (labels, truth) in simulated_suite(0).items()]
    if args.datasets:
        sets = [s for s in sets if s[0] in args.datasets.split(",")]
    grid = [float(x) for x in args.explore.split(",")]
    default = DEFAULT_EXPLORE["lookahead"]
    if default not in grid:
        ap.error(f"--explore must hold today's default {default}")

    def make():
        return make_truth_estimator(args.method)

    rows = []
    for name, group, labels, truth in sets:
        data = as_crowd_labels(labels, duplicates="first")
        target = all_labels_accuracy(data, truth, make)
        for share in grid:
            start = time.perf_counter()
            curve = replay(data, truth, make, policy="lookahead", explore=share)
            needed = labels_needed(curve, target, SLACK)
            rows.append({"dataset": name, "group": group, "explore": share, "labels_needed": needed,
                         "reached": bool(needed == needed), "needed_or_1": 1.0 if needed != needed else needed,
                         "rounds": len(curve), "seconds": time.perf_counter() - start})
            print(f"{name:26s} explore {share:.2f}: labels needed {needed:.3f} ({len(curve)} fits, "
                  f"{rows[-1]['seconds']:.1f} s)", flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / f"truth_active_explore_{args.method}.tsv", sep="\t", index=False)
    order = list(dict.fromkeys(table["dataset"]))
    print(f"labels needed by explore share ({args.method}; NaN: never)")
    print(table.pivot(index="dataset", columns="explore", values="labels_needed").reindex(order).round(3)
          .to_markdown())
    held = leave_one_group_out(table, choose_share, config="explore")
    today = table[table["explore"] == default].set_index("dataset")
    held = held.assign(today=today.loc[held["dataset"], "labels_needed"].to_numpy())
    print("leave one group out: each held-out set with the share chosen on the other groups")
    print(held[["dataset", "group", "chosen", "labels_needed", "today"]].round(3).to_markdown(index=False))
    for label, column in (("chosen", "labels_needed"), (f"today ({default})", "today")):
        values = held[column]
        print(f"held out, {label}: reached on {int(values.notna().sum())} of {len(values)}; mean labels needed "
              f"{values.fillna(1.0).mean():.3f} (never counted as 1)")
    print("chosen on the whole pool:", choose_share(table))


if __name__ == "__main__":
    main()
