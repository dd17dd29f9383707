#!/usr/bin/env python3
"""Where a user who follows ``manyjudges truth next`` stops: the replay of the pool, and the stop threshold chosen
leave one group out.

    python -m benchmarks.defaults.min_gain [--datasets rte,dog] [--pool [--no-simulated]] [--method dawid_skene]
                                           [--params '{"calibrate": "tempering"}'] [--policies P,...]
                                           [--round-share 0.05] [--large-labels N --large-share S]
                                           [--explore 0,0.1] [--stop 0.99,1] [--min-gain G,...] [--mirror DIR]
                                           [--out benchmarks/results]

The sets: those of ``truth_auto.py`` (the five benchmark sets, trec_rf10, the six Snow et al. tasks), or
with ``--pool`` the development pool (every real truth set of ``config/paper.yaml``,
``harness.pool.pool_sets``, with its group) and, unless ``--no-simulated``, the simulated suite
(``manyjudges.truth.scenarios.simulated_suite(0)``, each panel its own group); ``--datasets`` then keeps
the named ones.

The protocol of :mod:`manyjudges.truth.active.replay` (the set's real labels, no simulated judges): start from
each item's first label in file order; each round the method (``--method``, a registry name, default
``dawid_skene``, with the parameters ``--params``, default ``{"calibrate": "tempering"}``: posteriors
tempered on withheld labels; every policy reads the same posteriors) is fitted on the labels bought so
far, its accuracy on the items with a truth recorded, and the advice (``manyjudges.truth.active.advice.advise``)
asked for B = max(1, round(share * N)) labels, share ``--round-share`` (0.05) of the set's N labels, or
``--large-share`` for a set of more than ``--large-labels`` labels (default: no such sets), or for every
label left when fewer than B are, among the items with labels left. The stop rule, the same for every
policy: the advice names no label when the budget's expected gain per label (the sum of the B best
lookahead rates over the candidate items, divided by B) is below the threshold G; otherwise the policy
names the labels, the share ``--explore`` of them (rounded up) one each to the items with the fewest
labels, and no label to an item whose top posterior is at least ``--stop`` (1: no item-level stop).
Each time the advice names an item, that item's next unused label in file order is bought; only the
named labels are bought. The replay ends when the advice names none or every label is bought: no truth
decides when to stop. Each (set, explore, stop, policy) is replayed once, with G the smallest of the grid
``--min-gain``, recording each round's expected gain per label; the stop of every G of the grid is read
off that replay (the first round whose gain per label is below G, ``manyjudges.truth.active.replay.stop_at``;
``tests/truth/test_stop.py`` proves it equals the replay with G). Per set, policy and configuration
(explore, stop, G): the share of the labels at the stop, the accuracy at the stop, the all-labels accuracy
(the method fitted on every label) and the shortfall (all-labels accuracy - accuracy at the stop).

The choice, leave one group out (``benchmarks.harness.selection.leave_one_group_out``), per policy and per
(explore, stop): each group held out in turn, the G of the grid chosen on the other groups' sets is the one
with the lowest mean share of labels at the stop among those whose mean shortfall is at most 0.01 and
worst shortfall at most 0.03 (none: the smallest worst shortfall, then the lowest mean share); the
held-out sets are scored with their fold's G. The same rule over every (explore, stop, G) at once gives
the joint choice. Targets, on the held-out sets: mean share of labels at the stop at most 0.60, mean
shortfall at most 0.01, worst shortfall at most 0.03.

Caches each set's curves in ``<out>/cache/<stem>/<set>.tsv`` (a rerun with the same arguments reads them).
Writes ``<out>/<stem>_curves.tsv`` (dataset, group, explore, stop, policy and the curve's columns),
``<out>/<stem>.tsv`` (per set, policy and configuration: the stop's share, accuracy, all-labels accuracy,
shortfall) and ``<out>/<stem>_held_out.tsv`` (the held-out rows of every choice); the stem is
``truth_active``, with ``_pool`` for ``--pool`` and ``_<method>`` for a method other than ``dawid_skene``.
Printed: the lookahead's whole-pool means per (explore, stop, G) with the sets whose shortfall is over
0.03 and the sets stopped at the first fit; per policy and (explore, stop) the held-out means against the
targets and the Gs the folds chose; the joint choice's held-out sets (the lookahead's, then every
policy's share at the stop and shortfall); the choices on the whole pool.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import pandas as pd

from benchmarks.harness.selection import leave_one_group_out
from benchmarks.harness.truth_sets import DATASETS, SNOW_TASKS, add_mirror_arguments, load_any, mirror_root
from manyjudges.truth import as_crowd_labels
from manyjudges.truth.active.replay import _CURVE_COLUMNS, all_labels_accuracy, replay, stop_at
from manyjudges.truth.registry import make_truth_estimator

POLICIES = ("lookahead", "uncertainty", "uniform", "random")
GRID = "0.0005,0.001,0.002,0.003,0.005,0.01,0.02,0.05"
MEAN_SHORTFALL, WORST_SHORTFALL, MEAN_SHARE = 0.01, 0.03, 0.60


def load_sets(args: argparse.Namespace, ap: argparse.ArgumentParser) -> list[tuple[str, str, pd.DataFrame,
                                                                                  pd.DataFrame]]:
    """(name, group, labels, truth) of every set to replay, in order."""
    if not args.pool:
        names = args.datasets.split(",") if args.datasets else [*DATASETS, *(f"snow2008_{t}" for t in SNOW_TASKS)]
        mirror = mirror_root(ap, args)
        return [(name, name, *load_any(mirror, name)) for name in names]
    from benchmarks.harness.pool import pool_sets
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


def replay_set(args: argparse.Namespace, labels: pd.DataFrame, truth: pd.DataFrame, make, g0: float) -> pd.DataFrame:
    """Every (explore, stop, policy) replay of one set with the grid's smallest G: the curves, with the target."""
    data = as_crowd_labels(labels, duplicates="first")  # rows keep the file's order
    share = (args.large_share if args.large_labels is not None and data.n_labels > args.large_labels
             else args.round_share)
    target = all_labels_accuracy(data, truth, make)
    curves = []
    for explore in args.explore_grid:
        for stop in args.stop_grid:
            for policy in args.policy_list:
                start = time.perf_counter()
                curve = replay(data, truth, make, policy=policy, round_share=share, explore=explore,
                               stop=None if stop >= 1 else stop, min_gain=g0)
                curves.append(curve.assign(explore=explore, stop=stop, policy=policy, target=target,
                                           n_labels_all=data.n_labels, seconds=time.perf_counter() - start))
    return pd.concat(curves, ignore_index=True)


def stops(curves: pd.DataFrame, grid: list[float]) -> pd.DataFrame:
    """Per set, (explore, stop, policy) and G of ``grid``: the stop's share, accuracy and shortfall."""
    rows = []
    keys = ["dataset", "group", "explore", "stop", "policy"]
    for key, curve in curves.groupby(keys, sort=False):
        curve = curve.reset_index(drop=True)
        target = float(curve["target"].iloc[0])
        for g in grid:
            at = stop_at(curve[_CURVE_COLUMNS], g)
            rows.append({**dict(zip(keys, key)), "min_gain": g, "stop_share": float(at["share"].iloc[-1]),
                         "stop_accuracy": float(at["accuracy"].iloc[-1]), "all_labels_accuracy": target,
                         "shortfall": target - float(at["accuracy"].iloc[-1]), "rounds": len(at)})
    table = pd.DataFrame(rows)
    table["config"] = [f"explore {e:g}, stop {s:g}, G {g:g}" for e, s, g in
                       zip(table["explore"], table["stop"], table["min_gain"])]
    return table


def choose(rows: pd.DataFrame) -> str:
    """The configuration of lowest mean share at the stop among those whose mean shortfall is at most 0.01 and
    worst at most 0.03 on ``rows``' sets; none: the smallest worst shortfall, then the lowest mean share."""
    score = rows.groupby("config", sort=False).agg(share=("stop_share", "mean"), mean=("shortfall", "mean"),
                                                  worst=("shortfall", "max")).reset_index()
    ok = score[(score["mean"] <= MEAN_SHORTFALL + 1e-12) & (score["worst"] <= WORST_SHORTFALL + 1e-12)]
    if len(ok):
        return str(ok.sort_values("share", kind="stable")["config"].iloc[0])
    return str(score.sort_values(["worst", "share"], kind="stable")["config"].iloc[0])


def held_out_means(held: pd.DataFrame) -> dict:
    """Mean share at the stop, mean and worst shortfall of held-out rows, and whether the targets are met."""
    share, mean, worst = held["stop_share"].mean(), held["shortfall"].mean(), held["shortfall"].max()
    met = share <= MEAN_SHARE + 1e-12 and mean <= MEAN_SHORTFALL + 1e-12 and worst <= WORST_SHORTFALL + 1e-12
    return {"sets": len(held), "mean_share": share, "mean_shortfall": mean, "worst_shortfall": worst,
            "targets_met": bool(met), "chosen": " / ".join(sorted(set(held["chosen"].str.split(", G ").str[-1]),
                                                                   key=float))}


def grid_means(table: pd.DataFrame) -> None:
    """Print, per (explore, stop, G), the lookahead's whole-pool means, sets over 0.03 and sets stopped at once."""
    rows = table[table["policy"] == "lookahead"].assign(
        over=lambda t: t["shortfall"] > WORST_SHORTFALL + 1e-12, at_once=lambda t: t["rounds"] == 1,
        positive=lambda t: t["shortfall"].clip(lower=0))
    means = rows.groupby(["explore", "stop", "min_gain"], sort=False).agg(
        mean_share=("stop_share", "mean"), mean_shortfall=("shortfall", "mean"),
        mean_positive_shortfall=("positive", "mean"), worst_shortfall=("shortfall", "max"),
        sets_over_worst_target=("over", "sum"), sets_stopped_at_the_first_fit=("at_once", "sum"))
    print("lookahead on the whole pool, per configuration (positive shortfall: max(shortfall, 0))")
    print(means.round(4).to_markdown())


def report(table: pd.DataFrame) -> pd.DataFrame:
    """Print the held-out figures of every choice; return the held-out rows."""
    held_rows, lines = [], []
    for (policy, explore, stop), rows in table.groupby(["policy", "explore", "stop"], sort=False):
        held = leave_one_group_out(rows, choose, config="config")
        held_rows.append(held.assign(choice="G"))
        whole = choose(rows).split(", G ")[-1]
        lines.append({"policy": policy, "explore": explore, "stop": stop, **held_out_means(held),
                      "G on the whole pool": whole})
    print(f"leave one group out, G chosen per policy and (explore, stop) (targets: mean share <= {MEAN_SHARE}, "
          f"mean shortfall <= {MEAN_SHORTFALL}, worst <= {WORST_SHORTFALL}); chosen: the Gs the folds chose")
    print(pd.DataFrame(lines).round(4).to_markdown(index=False))
    joint_lines = []
    for policy, rows in table.groupby("policy", sort=False):
        held = leave_one_group_out(rows, choose, config="config")
        held_rows.append(held.assign(choice="joint"))
        joint_lines.append({"policy": policy, **held_out_means(held), "folds chose": "; ".join(
            f"{c} ({n})" for c, n in held.groupby("chosen")["group"].nunique().items()),
            "on the whole pool": choose(rows)})
        if policy == "lookahead":
            print("lookahead, joint choice of (explore, stop, G): each held-out set with its fold's choice")
            print(held[["dataset", "group", "chosen", "stop_share", "stop_accuracy", "all_labels_accuracy",
                        "shortfall"]].round(4).to_markdown(index=False))
    print("joint choice of (explore, stop, G), held out, per policy")
    print(pd.DataFrame(joint_lines).round(4).to_markdown(index=False))
    joint = pd.concat([h for h in held_rows if h["choice"].iloc[0] == "joint"])
    cells = joint.assign(cell=[f"{a:.3f} ({b:+.3f})" for a, b in zip(joint["stop_share"], joint["shortfall"])])
    print("joint choice, held out: share of labels at the stop (shortfall) per set and policy")
    print(cells.pivot(index="dataset", columns="policy", values="cell").reindex(
        index=list(dict.fromkeys(joint["dataset"])), columns=list(dict.fromkeys(joint["policy"]))).to_markdown())
    return pd.concat(held_rows, ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=None, help="comma-separated set names (default: every set; "
                    f"without --pool, of {', '.join([*DATASETS, *(f'snow2008_{t}' for t in SNOW_TASKS)])})")
    ap.add_argument("--pool", action="store_true", help="the development pool and the simulated suite")
    ap.add_argument("--no-simulated", action="store_true", help="with --pool: leave the simulated suite out")
    ap.add_argument("--method", default="dawid_skene", help="a registry name (default dawid_skene)")
    ap.add_argument("--params", default='{"calibrate": "tempering"}', help="the method's parameters (JSON)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--round-share", type=float, default=0.05, help="at most this share of all labels per round")
    ap.add_argument("--large-labels", type=int, default=None, help="sets of more labels take --large-share")
    ap.add_argument("--large-share", type=float, default=None, help="the round share of the sets past --large-labels")
    ap.add_argument("--explore", default="0,0.1", help="exploration shares, every policy the same")
    ap.add_argument("--stop", default="0.99,1", help="item-level stops (1: none)")
    ap.add_argument("--min-gain", default=GRID, help="the grid of stop thresholds G (expected items set right per "
                    "label)")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    if (args.large_labels is None) != (args.large_share is None):
        ap.error("--large-labels and --large-share go together")
    args.explore_grid = [float(x) for x in args.explore.split(",")]
    args.stop_grid = [float(x) for x in args.stop.split(",")]
    args.policy_list = args.policies.split(",")
    grid = sorted(float(x) for x in args.min_gain.split(","))
    params = json.loads(args.params)
    stem = "truth_active" + ("_pool" if args.pool else "") + ("" if args.method == "dawid_skene" else f"_{args.method}")
    cache = args.out / "cache" / stem
    cache.mkdir(parents=True, exist_ok=True)
    tag = json.dumps({"params": params, "explore": args.explore_grid, "stop": args.stop_grid, "g0": grid[0],
                      "policies": args.policy_list, "round_share": args.round_share, "large": [args.large_labels,
                                                                                               args.large_share]})

    def make():
        return make_truth_estimator(args.method, params)

    curves = []
    for dataset, group, labels, truth in load_sets(args, ap):
        path = cache / f"{dataset}.tsv"
        tag_path = cache / f"{dataset}.json"
        if path.exists() and tag_path.exists() and tag_path.read_text() == tag:
            curve = pd.read_csv(path, sep="\t")
        else:
            start = time.perf_counter()
            curve = replay_set(args, labels, truth, make, grid[0])
            curve.to_csv(path, sep="\t", index=False)
            tag_path.write_text(tag)
            print(f"{dataset}: {len(curve)} fits, {time.perf_counter() - start:.1f} s", flush=True)
        curves.append(curve.assign(dataset=dataset, group=group))
    curve_table = pd.concat(curves, ignore_index=True)
    curve_table.to_csv(args.out / f"{stem}_curves.tsv", sep="\t", index=False)
    table = stops(curve_table, grid)
    table.to_csv(args.out / f"{stem}.tsv", sep="\t", index=False)
    seconds = curve_table.groupby(["explore", "stop", "policy", "dataset"], sort=False)["seconds"].first()
    print("replay seconds per (explore, stop, policy), summed over the sets")
    print(seconds.groupby(level=[0, 1, 2], sort=False).sum().round(1).to_frame().to_markdown())
    grid_means(table)
    held = report(table)
    held.to_csv(args.out / f"{stem}_held_out.tsv", sep="\t", index=False)


if __name__ == "__main__":
    main()
