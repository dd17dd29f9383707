"""Replaying a labelled set as if its labels had been bought by a policy: how many labels a policy needs.

The protocol (the set's real labels, so no simulated workers):

1. Start from each item's first label in file order.
2. Each round, fit the method on the labels bought so far, record its accuracy on the items with a
   truth, and let the policy name ``round_share`` of the set's labels (B = max(1, round(share * N)));
   for each time it names an item, buy that item's next unused label in file order. A policy that
   names fewer than B (stopping advice, nothing left to gain) has the rest filled by the items with
   the fewest labels, so every policy ends with every label bought. ``item_cap`` limits the labels
   an item gets in one round (default: as many as the policy names it).
3. Stop when every label is bought (the last fit is the all-labels fit).

``labels_needed`` is the fewest labels, as a share of all, at which the accuracy first reaches the
all-labels accuracy less ``slack`` (0.005).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from manyjudges.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.io.errors import DataWarning
from manyjudges.truth.active import fitted_confusions, next_labels
from manyjudges.truth.base import TruthEstimator
from manyjudges.truth.experiment import accuracy
from manyjudges.truth.heldout import subset

__all__ = ["CURVE_COLUMNS", "SUMMARY_COLUMNS", "file_ranks", "labels_needed", "replay", "replay_policies"]

CURVE_COLUMNS = ["round", "n_labels", "share", "accuracy"]
SUMMARY_COLUMNS = ["policy", "labels_needed", "all_labels_accuracy", "n_labels", "rounds"]


def file_ranks(data: CrowdLabels) -> np.ndarray:
    """(n_labels,) each label's place among its item's labels in table order (0 = the item's first)."""
    order = np.argsort(data.item, kind="stable")
    counts = np.bincount(data.item, minlength=data.n_items)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(data.n_labels, dtype=np.int64)
    rank[order] = np.arange(data.n_labels) - first[data.item[order]]
    return rank


def replay(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, make_method: Callable[[], TruthEstimator],
           policy: str = "lookahead", round_share: float = 0.05, seed: int = 0, item_cap: int | None = None,
           progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """The accuracy-vs-labels curve of ``policy`` (columns ``round, n_labels, share, accuracy``).

    ``labels`` in file order (a CrowdLabels keeps its rows' order); ``make_method()`` builds the fitted
    method afresh each round (its posteriors and confusions are what the policy reads); ``item_cap``: at
    most this many labels per item per round (None: as many as the policy says it deserves)."""
    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    rank = file_ranks(data)
    bought = np.bincount(data.item[rank == 0], minlength=data.n_items)  # labels bought per item
    total = np.bincount(data.item, minlength=data.n_items)
    budget = max(1, int(round(round_share * data.n_labels)))
    rows, round_no = [], 0
    while True:
        used = rank < bought[data.item]
        seen = subset(data, used)
        method = make_method()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            method.fit(seen)
        acc, _ = accuracy(method.labels_, truth)
        n_used = int(used.sum())
        rows.append((round_no, n_used, n_used / data.n_labels, acc))
        if progress is not None:
            progress(n_used, data.n_labels)
        left = total - bought
        if left.sum() == 0:
            break
        offer = left if item_cap is None else np.minimum(left, item_cap)
        candidates = pd.DataFrame({"item": data.items[left > 0], "available": offer[left > 0]})
        confusions = fitted_confusions(method, seen)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            named = next_labels(seen, method.proba_.to_numpy(), min(budget, int(left.sum())), policy=policy,
                                confusions=confusions, candidates=candidates, stop=None, seed=seed + round_no)
        codes = data.items.get_indexer(named["item"])
        extra = np.bincount(codes, minlength=data.n_items)
        short = min(budget, int(left.sum())) - int(extra.sum())
        room = left - extra
        while short > 0 and room.any():  # fill, a label at a time, the items with the fewest labels (then by code)
            order = np.lexsort((np.arange(data.n_items), bought + extra))
            for i in order[room[order] > 0][:short]:
                extra[i] += 1
                room[i] -= 1
                short -= 1
        bought = np.minimum(bought + extra, total)
        round_no += 1
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def labels_needed(curve: pd.DataFrame, slack: float = 0.005) -> float:
    """The first share of labels at which the accuracy reaches the all-labels (last) accuracy less ``slack``."""
    target = float(curve["accuracy"].iloc[-1]) - slack
    reached = curve[curve["accuracy"] >= target - 1e-12]
    return float(reached["share"].iloc[0])


def replay_policies(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, method: str,
                    params: dict | None = None, policies: tuple[str, ...] = ("lookahead", "uncertainty", "uniform",
                                                                             "random"),
                    round_share: float = 0.05, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every policy's replay with the registry ``method``: (summary ``policy, labels_needed,
    all_labels_accuracy, n_labels, rounds``; curves ``policy, round, n_labels, share, accuracy``).
    The lookahead reads the method's posteriors tempered on withheld labels (``calibrate="tempering"``:
    the same labels) unless ``params`` sets ``calibrate``."""
    from manyjudges.truth.registry import make_truth_estimator

    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    summary, curves = [], []
    for policy in policies:
        chosen = dict(params or {})
        if policy == "lookahead":
            chosen.setdefault("calibrate", "tempering")
        curve = replay(data, truth,
                       lambda chosen=chosen: make_truth_estimator(method, chosen),  # type: ignore[misc]  # mypy#15459
                       policy=policy, round_share=round_share, seed=seed)
        summary.append((policy, labels_needed(curve), float(curve["accuracy"].iloc[-1]), data.n_labels, len(curve)))
        curves.append(curve.assign(policy=policy))
    curve_table = pd.concat(curves, ignore_index=True)[["policy", *CURVE_COLUMNS]]
    return pd.DataFrame(summary, columns=SUMMARY_COLUMNS), curve_table
