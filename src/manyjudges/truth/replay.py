"""Replaying a labelled set as if its labels had been bought by a policy: how many labels a policy needs.

The protocol (the set's real labels, so no simulated judges), word for word as :func:`replay` does it:

1. Start from each item's first label in file order.
2. Each round, fit the method on the labels bought so far and record its accuracy on the items with a
   truth. Then ask the policy (:func:`manyjudges.truth.active.next_labels`, with its stopping advice
   ``stop``, default 0.99, and its exploration share ``explore``, default the policy's own: 0.1 of
   each round for the lookahead, 0 for the others) for B = max(1, round(round_share * N)) labels, or
   for every label left when fewer than B are; the candidates are the items with labels left, each
   offered at most its labels left (and at most ``item_cap`` per round). For each time the policy
   names an item, buy that item's next unused label in file order. Only the named labels are bought:
   a policy that names fewer than B buys fewer, and nothing fills the round.
3. End when the policy names none (its stopping advice says stop, or nothing it scores is worth a
   label) or when every label is bought; the last recorded fit is on the labels bought by then. With
   ``until`` (the target less the slack, say), end also at the first fit whose accuracy is at least
   ``until``: the labels needed are then known, and the rest of the curve is not replayed.

The all-labels accuracy, the target, comes from a separate fit of the method on every label; the
curve may never reach it. ``labels_needed`` is the first share of the labels at which the accuracy is
at least the all-labels accuracy less ``slack`` (0.005), or NaN (never) when no round reaches it.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.io.errors import DataWarning
from manyjudges.truth.active import DEFAULT_STOP, fitted_confusions, next_labels
from manyjudges.truth.base import TruthEstimator
from manyjudges.truth.heldout import subset
from manyjudges.truth.results import accuracy

__all__ = ["CURVE_COLUMNS", "SUMMARY_COLUMNS", "all_labels_accuracy", "file_ranks", "labels_needed", "replay",
           "replay_policies", "summarise"]

#: ``named``: the labels the policy named after the round's fit (and bought before the next round)
CURVE_COLUMNS = ["round", "n_labels", "share", "accuracy", "named"]
SUMMARY_COLUMNS = ["policy", "labels_needed", "reached", "final_share", "final_accuracy", "all_labels_accuracy",
                   "n_labels", "rounds"]


def file_ranks(data: CrowdLabels) -> np.ndarray:
    """(n_labels,) each label's place among its item's labels in table order (0 = the item's first)."""
    order = np.argsort(data.item, kind="stable")
    counts = np.bincount(data.item, minlength=data.n_items)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(data.n_labels, dtype=np.int64)
    rank[order] = np.arange(data.n_labels) - first[data.item[order]]
    return rank


def _fit(make_method: Callable[[], TruthEstimator], data: CrowdLabels) -> TruthEstimator:
    method = make_method()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        method.fit(data)
    return method


def all_labels_accuracy(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame,
                        make_method: Callable[[], TruthEstimator]) -> float:
    """Return the accuracy on the items with a truth of ``make_method()`` fitted on every label.

    This is the replay's target.
    """
    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    return float(accuracy(_fit(make_method, data).labels_, truth)[0])


def replay(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, make_method: Callable[[], TruthEstimator],
           policy: str = "lookahead", round_share: float = 0.05, seed: int = 0, item_cap: int | None = None,
           stop: float | None = DEFAULT_STOP, explore: float | None = None,
           progress: Callable[[int, int], None] | None = None, until: float | None = None,
           on_fit: Callable[[int, CrowdLabels, TruthEstimator], None] | None = None) -> pd.DataFrame:
    """Replay ``policy``: its accuracy-vs-labels curve (columns ``round, n_labels, share, accuracy, named``).

    ``labels`` in file order (a CrowdLabels keeps its rows' order); ``make_method()`` builds the fitted
    method afresh each round (its posteriors and confusions are what the policy reads); ``item_cap``: at
    most this many labels per item per round (None: as many as the policy says it deserves); ``stop``
    and ``explore``: the policy's stopping advice and exploration share (:func:`next_labels`). Only the
    labels the policy names are bought; the replay ends when it names none or every label is bought, or
    (``until``) at the first fit whose accuracy is at least ``until``.
    """
    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    rank = file_ranks(data)
    bought = np.bincount(data.item[rank == 0], minlength=data.n_items)  # labels bought per item
    total = np.bincount(data.item, minlength=data.n_items)
    budget = max(1, int(round(round_share * data.n_labels)))
    rows, round_no = [], 0
    while True:
        used = rank < bought[data.item]
        seen = subset(data, used)
        method = _fit(make_method, seen)
        acc, _ = accuracy(method.labels_, truth)
        n_used = int(used.sum())
        if progress is not None:
            progress(n_used, data.n_labels)
        if on_fit is not None:
            on_fit(round_no, seen, method)
        left = total - bought
        extra = np.zeros(data.n_items, dtype=np.int64)
        if left.sum() > 0 and (until is None or acc < until - 1e-12):
            offer = left if item_cap is None else np.minimum(left, item_cap)
            candidates = pd.DataFrame({"item": data.items[left > 0], "available": offer[left > 0]})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DataWarning)
                named = next_labels(seen, method.proba_.to_numpy(), min(budget, int(left.sum())), policy=policy,
                                    confusions=fitted_confusions(method, seen), candidates=candidates, stop=stop,
                                    explore=explore, seed=seed + round_no)
            extra = np.bincount(data.items.get_indexer(pd.Index(named["item"])), minlength=data.n_items)
        rows.append((round_no, n_used, n_used / data.n_labels, acc, int(extra.sum())))
        if extra.sum() == 0:
            break
        bought = bought + extra  # next_labels keeps each item within its ``available``
        round_no += 1
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def labels_needed(curve: pd.DataFrame, target_accuracy: float, slack: float = 0.005) -> float:
    """Return the first share of labels at which the accuracy is at least ``target_accuracy`` less ``slack``.

    ``target_accuracy`` is the all-labels accuracy; NaN when the curve never reaches it.
    """
    reached = curve[curve["accuracy"] >= target_accuracy - slack - 1e-12]
    return float(reached["share"].iloc[0]) if len(reached) else float("nan")


def summarise(policy: str, curve: pd.DataFrame, target_accuracy: float, n_labels: int,
              slack: float = 0.005) -> tuple:
    """One row of ``SUMMARY_COLUMNS`` for a replay's ``curve``."""
    needed = labels_needed(curve, target_accuracy, slack)
    return (policy, needed, bool(np.isfinite(needed)), float(curve["share"].iloc[-1]),
            float(curve["accuracy"].iloc[-1]), target_accuracy, n_labels, len(curve))


def replay_policies(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, method: str,
                    params: dict | None = None, policies: tuple[str, ...] = ("lookahead", "uncertainty", "uniform",
                                                                             "random"),
                    round_share: float = 0.05, seed: int = 0,
                    stop: float | None = DEFAULT_STOP) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every policy's replay with the registry ``method``: (summary, curves).

    The summary has columns ``policy, labels_needed, reached, final_share, final_accuracy,
    all_labels_accuracy, n_labels, rounds``; the curves ``policy, round, n_labels, share, accuracy,
    named``. ``labels_needed`` is NaN and ``reached`` False when a policy
    stops before its accuracy reaches the all-labels accuracy (a separate fit on every label, with the
    policy's method) less 0.005. The lookahead reads the method's posteriors tempered on withheld
    labels (``calibrate="tempering"``: the same labels) unless ``params`` sets ``calibrate``.
    """
    from manyjudges.truth.registry import make_truth_estimator

    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    summary, curves = [], []
    for policy in policies:
        chosen = dict(params or {})
        if policy == "lookahead":
            chosen.setdefault("calibrate", "tempering")

        def make(chosen: dict = chosen) -> TruthEstimator:
            return make_truth_estimator(method, chosen)

        curve = replay(data, truth, make, policy=policy, round_share=round_share, seed=seed, stop=stop)
        summary.append(summarise(policy, curve, all_labels_accuracy(data, truth, make), data.n_labels))
        curves.append(curve.assign(policy=policy))
    curve_table = pd.concat(curves, ignore_index=True)[["policy", *CURVE_COLUMNS]]
    return pd.DataFrame(summary, columns=SUMMARY_COLUMNS), curve_table
