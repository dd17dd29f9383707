#!/usr/bin/env python3
"""How `auto`'s posteriors are calibrated, chosen leave-one-group-out on the development pool.

    python -m benchmarks.defaults.auto_calibration [--mirror DIR] --cache DIR [--out benchmarks/results]

The pool and the candidate fits of ``benchmarks/defaults/auto_stack.py`` (its ``--cache``: every real truth set of
``config/paper.yaml`` and the simulated suite; 5 folds over labels, seed 0; the fits are made and cached
when missing). Per set: ``auto``'s default stack (its default candidates, the ordinal model added on ordered sets;
criterion confusion, anchor 0.9 on panels of density 0.1 or more, margin 0.05; computed by
``_score_candidate`` and ``_stack_scored`` as ``Auto.fit`` does); the mixture of the
fold fits with the same weights (``_mixture_folds``) predicts the withheld labels under a judge model
(confusion, one_coin or pooled), and the temperature fitted on them under the floor 1 / (n + 2)
(``fit_confidence``) is applied to the mixture, either in [0.02, 5] ("both": softening or sharpening) or
in [0.02, 1] ("soften"). Seven calibrations (none and the six) are scored on the set's truth items: the
expected calibration error (10 equal bins) and AUROC of the top-class posterior. Each group is held out
in turn; on the other groups' sets the calibration of lowest mean ECE is chosen and the held-out sets
scored with it. Writes ``<out>/truth_confidence.tsv`` (every set x calibration) and prints the held-out
table and means.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import pandas as pd

from benchmarks.defaults.auto_stack import FOLDS, SEED, metrics, scored_truth, set_fits
from benchmarks.harness.pool import pool_sets
from manyjudges.core.coded_labels import as_crowd_labels, canonical_order
from manyjudges.truth.auto.estimator import (
    DEFAULT_ANCHOR,
    DEFAULT_ANCHOR_DENSITY,
    DEFAULT_CRITERION,
    DEFAULT_MARGIN,
    Auto,
)
from manyjudges.truth.auto.stacking import _majority_reference, _mixture_folds, _score_candidate, _stack_scored
from manyjudges.truth.confidence import _SOFTENING, fit_confidence
from manyjudges.truth.heldout import BETA_RANGE, JUDGE_MODELS, _fold_split, _held_out_from, _label_folds
from manyjudges.truth.scenarios import simulated_suite

REPO = Path(__file__).resolve().parents[2]

RANGES = {"both": BETA_RANGE, "soften": _SOFTENING}


def set_rows(name: str, group: str, ordered: bool, labels: pd.DataFrame, truth: pd.DataFrame, cache: Path
             ) -> list[dict]:
    """Every calibration's ECE and AUROC on one set (module docstring)."""
    data = canonical_order(as_crowd_labels(labels, duplicates="first"))
    split = _fold_split(data, _label_folds(data, FOLDS, SEED), None, SEED)
    names = Auto(ordered=ordered).candidate_names()
    fits = set_fits(name, data, split, names, cache)
    chosen = [fits[m] for m in names]
    reference = _majority_reference(data, split, chosen)
    scored = [_score_candidate(data, split, fit, DEFAULT_CRITERION, None) for fit in chosen]
    proba, report = _stack_scored(data, scored, DEFAULT_ANCHOR, DEFAULT_MARGIN, reference, DEFAULT_ANCHOR_DENSITY)
    folds = _mixture_folds(chosen, report["weight"].to_numpy())
    items, classes = scored_truth(data, truth)
    rows = [{"dataset": name, "group": group, "calibration": "none", "beta": 1.0, "floor": 0.0,
             **metrics(proba, items, classes)}]
    for model in JUDGE_MODELS:
        held = _held_out_from(folds, data, split, model)
        for range_name, beta_range in RANGES.items():
            confidence = fit_confidence(held, beta_range=beta_range)
            rows.append({"dataset": name, "group": group, "calibration": f"{range_name}_{model}",
                         "beta": confidence.beta, "floor": confidence.floor,
                         **metrics(confidence.apply(proba), items, classes)})
    return rows


def held_out_choice(table: pd.DataFrame) -> pd.DataFrame:
    """Each group's rows under the calibration of lowest mean ECE on the other groups."""
    held = []
    for group in dict.fromkeys(table["group"]):
        train = table[table["group"] != group]
        choice = train.groupby("calibration", sort=False)["ece"].mean().idxmin()
        rows = table[(table["group"] == group) & (table["calibration"] == choice)]
        raw = table[(table["group"] == group) & (table["calibration"] == "none")]
        held.append(rows.assign(chosen=choice, ece_none=raw["ece"].to_numpy(), auroc_none=raw["auroc"].to_numpy()))
    return pd.concat(held, ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    ap.add_argument("--cache", type=Path, required=True, help="auto_stack.py's cache of candidate fits")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args(argv)
    pool = [(p.name, p.group, p.ordered, p.labels, p.truth) for p in pool_sets(args.mirror)] if args.mirror else []
    pool += [(name, name, False, labels, truth) for name, (labels, truth) in simulated_suite(0).items()]
    table = pd.DataFrame([row for name, group, ordered, labels, truth in pool
                          for row in set_rows(name, group, ordered, labels, truth, args.cache)])
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "truth_confidence.tsv", sep="\t", index=False)
    held = held_out_choice(table)
    columns = ["dataset", "chosen", "accuracy", "ece_none", "ece", "auroc_none", "auroc", "beta", "floor"]
    print(held[columns].round(4).to_markdown(index=False))
    print("chosen per fold:", held.groupby("chosen")["group"].nunique().to_dict())
    real = ~held["dataset"].str.startswith("sim_")
    for label, part in (("all", held), ("real sets", held[real]), ("simulated", held[~real])):
        print(f"held out, {label} ({len(part)}): ECE {part['ece_none'].mean():.4f} -> {part['ece'].mean():.4f}, "
              f"AUROC {part['auroc_none'].mean():.4f} -> {part['auroc'].mean():.4f}")
    means = table.groupby("calibration", sort=False)[["ece", "auroc"]].mean()
    print("in-sample means by calibration:", means.round(4).to_dict("index"))
    print("chosen on the whole pool:", means["ece"].idxmin(), "floor range:",
          f"{table['floor'][table['floor'] > 0].min():.2g}-{table['floor'].max():.2g}")


if __name__ == "__main__":
    main()
