#!/usr/bin/env python3
"""The ordinal Dawid-Skene model's priors chosen leave-one-group-out on the development pool.

    python -m benchmarks.defaults.ordinal_priors [--mirror DIR] [--out benchmarks/results]

The pool: every real truth set of ``config/paper.yaml`` (``harness.pool.pool_sets``: pinned files read from
the mirror, in 11 groups of sets that share items or labels). The settings: ``ridge`` in {0.3, 1, 3} x
``lapse_prior`` in {1, 2, 5} at ``spacing`` 1, and ``spacing`` 0.3 and 3 at (ridge 1, lapse_prior 5).
Each setting fits ``OrdinalDawidSkene(max_iter=5000, tol=1e-7, ridge, lapse_prior, spacing)`` (SQUAREM,
the fixed-point stop; the other parameters their defaults) on every set's labels, once, timed, and scores
its labels on the set's truth items (accuracy). The choice: a setting must converge on every set (the
fixed-point stop within ``max_iter``); among those, for each group held out, the setting of highest mean
accuracy over the other groups' sets is chosen and scored on the held-out sets; that is the headline,
per group and its mean over the sets. The setting chosen most often is printed last.

Writes ``<out>/ordinal_priors.tsv`` (every set x setting: evaluations, converged, seconds, accuracy) and
``<out>/ordinal_priors_loso.tsv`` (the held-out groups with the chosen setting), and prints both.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import pandas as pd

from benchmarks.harness.pool import pool_sets
from manyjudges.truth import OrdinalDawidSkene
from manyjudges.truth.results import accuracy

REPO = Path(__file__).resolve().parents[2]

SETTINGS = ([{"ridge": r, "lapse_prior": lp, "spacing": 1.0} for r in (0.3, 1.0, 3.0) for lp in (1.0, 2.0, 5.0)]
            + [{"ridge": 1.0, "lapse_prior": 5.0, "spacing": s} for s in (0.3, 3.0)])


def setting_name(setting: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in setting.items())


def fit_all(mirror: Path) -> pd.DataFrame:
    """Every set x setting (module docstring)."""
    rows = []
    sets = pool_sets(mirror)
    for setting in SETTINGS:
        for pool in sets:
            start = time.perf_counter()
            fit = OrdinalDawidSkene(max_iter=5000, tol=1e-7, **setting).fit(pool.labels)
            seconds = time.perf_counter() - start
            acc, _ = accuracy(fit.labels_, pool.truth)
            rows.append({"setting": setting_name(setting), "set": pool.name, "group": pool.group,
                         "labels": len(pool.labels), "evaluations": int(fit.n_iter_), "converged": bool(fit.converged_),
                         "seconds": round(seconds, 2), "accuracy": acc})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def leave_one_group_out(table: pd.DataFrame) -> pd.DataFrame:
    """The held-out groups, each scored with the converging setting of highest mean accuracy on the others."""
    converged = table.groupby("setting")["converged"].all()
    table = table[table["setting"].isin(converged.index[converged])]
    wide = table.pivot(index="set", columns="setting", values="accuracy")
    group = table.drop_duplicates("set").set_index("set")["group"]
    rows = []
    for held in group.unique():
        train = group.index[group != held]
        chosen = wide.loc[train].mean().idxmax()
        test = group.index[group == held]
        rows.append({"group": held, "sets": len(test), "chosen": chosen, "accuracy": wide.loc[test, chosen].mean()})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args()
    if args.mirror is None or not Path(args.mirror).is_dir():
        ap.error("give --mirror DIR or set MANYJUDGES_MIRROR")
    warnings.simplefilter("ignore")
    table = fit_all(args.mirror)
    loso = leave_one_group_out(table)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "ordinal_priors.tsv", sep="\t", index=False)
    loso.to_csv(args.out / "ordinal_priors_loso.tsv", sep="\t", index=False)
    summary = table.groupby("setting").agg(converged=("converged", "sum"), accuracy=("accuracy", "mean"),
                                           seconds=("seconds", "sum"), max_evaluations=("evaluations", "max"))
    print(summary.sort_values("accuracy").to_string())
    print(loso.to_string(index=False))
    print(f"held-out mean over {int(loso['sets'].sum())} sets: "
          f"{(loso['accuracy'] * loso['sets']).sum() / loso['sets'].sum():.4f}")
    print(f"chosen most often: {loso['chosen'].mode().iloc[0]}")


if __name__ == "__main__":
    main()
