"""Replaying a labelled set as if its labels had been bought by a policy, until the tool's own advice stops.

The protocol (the set's real labels, so no simulated judges), word for word as :func:`replay` does it:

1. Start from each item's first label in file order.
2. Each round, fit the method on the labels bought so far and record its accuracy on the items with a
   truth, its estimated accuracy (the mean top posterior over the items) and the advice's expected gain
   per label. The advice (:func:`manyjudges.truth.active.advice.advise`, with the item-level stop ``stop``, the
   exploration share ``explore`` and the stop rule ``min_gain``, each default that of ``manyjudges truth
   next``) is asked for B = max(1, round(round_share * N)) labels, or for every label left when fewer
   than B are; the candidates are the items with labels left, each offered at most its labels left
   (and at most ``item_cap`` per round). For each time the advice names an item, buy that item's next
   unused label in file order. Only the named labels are bought: nothing fills a round.
3. End when the advice names none (the budget's expected gain per label is below ``min_gain``, or
   nothing the policy scores is worth a label) or when every label is bought; the last recorded fit is
   the one at the stop. No truth decides when to stop.

The all-labels accuracy comes from a separate fit of the method on every label; the shortfall is the
all-labels accuracy less the accuracy at the stop. The stop is budget-level (a round is bought whole or
the replay stops) and the labels named do not depend on ``min_gain``, so the replay with ``min_gain`` G
is the prefix of the replay with a smaller G0 up to its first round whose gain per label is below G
(:func:`stop_at`): one replay gives the stop of every threshold at least G0. ``labels_needed`` (the
first share of the labels at which the curve is within ``slack`` of the all-labels accuracy) is read
off the truth, which a user does not have: kept as a reading of the curve, not as the headline.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth.active.advice import _DEFAULT_STOP, DEFAULT_MIN_GAIN, advise, fitted_confusions
from manyjudges.truth.base import TruthEstimator
from manyjudges.truth.heldout import subset
from manyjudges.truth.results import accuracy

__all__ = ["SUMMARY_COLUMNS", "all_labels_accuracy", "labels_needed", "replay", "replay_policies", "stop_at"]

#: ``estimated_accuracy``: the mean top posterior of the round's fit; ``gain_per_label``: the advice's expected
#: gain per label of the round's budget (NaN once every label is bought); ``named``: the labels the advice named
#: after the round's fit (and bought before the next round)
_CURVE_COLUMNS = ["round", "n_labels", "share", "accuracy", "estimated_accuracy", "gain_per_label", "named"]
#: ``stop_share``, ``stop_accuracy``: at the stop (the last fit); ``shortfall``: all-labels accuracy - stop_accuracy
SUMMARY_COLUMNS = ["policy", "stop_share", "stop_accuracy", "all_labels_accuracy", "shortfall", "n_labels", "rounds",
                   "labels_needed", "reached"]


def _file_ranks(data: CrowdLabels) -> np.ndarray:
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


def _round(data: CrowdLabels, seen: CrowdLabels, method: TruthEstimator, left: np.ndarray, budget: int,
           policy: str, settings: dict, seed: int) -> tuple[np.ndarray, float, float]:
    """(labels named per item, estimated accuracy, gain per label) of one round's advice."""
    offer = left if settings["item_cap"] is None else np.minimum(left, settings["item_cap"])
    candidates = pd.DataFrame({"item": data.items[left > 0], "available": offer[left > 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        advice = advise(seen, method.proba_.to_numpy(), min(budget, int(left.sum())), policy=policy,
                        confusions=fitted_confusions(method, seen), candidates=candidates, stop=settings["stop"],
                        explore=settings["explore"], seed=seed, min_gain=settings["min_gain"])
    named = np.bincount(data.items.get_indexer(pd.Index(advice.table["item"])), minlength=data.n_items)
    return named, advice.accuracy, advice.per_label


def replay(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, make_method: Callable[[], TruthEstimator],
           policy: str = "lookahead", round_share: float = 0.05, seed: int = 0, item_cap: int | None = None,
           stop: float | None = _DEFAULT_STOP, explore: float | None = None,
           min_gain: float | None = DEFAULT_MIN_GAIN, progress: Callable[[int, int], None] | None = None,
           on_fit: Callable[[int, CrowdLabels, TruthEstimator], None] | None = None) -> pd.DataFrame:
    """Replay ``policy`` until the advice stops: the curve (columns :data:`_CURVE_COLUMNS`).

    ``labels`` in file order (a CrowdLabels keeps its rows' order); ``make_method()`` builds the fitted
    method afresh each round (its posteriors and confusions are what the advice reads); ``item_cap``: at
    most this many labels per item per round (None: as many as the policy says it deserves); ``stop``,
    ``explore`` and ``min_gain``: the advice's item-level stop, exploration share and stop rule
    (:func:`manyjudges.truth.active.advice.advise`). Only the labels the advice names are bought; the replay
    ends when it names none or every label is bought.
    """
    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    settings = {"item_cap": item_cap, "stop": stop, "explore": explore, "min_gain": min_gain}
    rank = _file_ranks(data)
    bought = np.bincount(data.item[rank == 0], minlength=data.n_items)  # labels bought per item
    total = np.bincount(data.item, minlength=data.n_items)
    budget = max(1, int(round(round_share * data.n_labels)))
    rows: list[tuple] = []
    while True:
        used = rank < bought[data.item]
        seen = subset(data, used)
        method = _fit(make_method, seen)
        acc, _ = accuracy(method.labels_, truth)
        if progress is not None:
            progress(int(used.sum()), data.n_labels)
        if on_fit is not None:
            on_fit(len(rows), seen, method)
        left = total - bought
        extra, estimated, per_label = np.zeros(data.n_items, dtype=np.int64), float("nan"), float("nan")
        if left.sum() > 0:
            extra, estimated, per_label = _round(data, seen, method, left, budget, policy, settings, seed + len(rows))
        else:
            estimated = float(method.proba_.to_numpy().max(axis=1).mean())
        rows.append((len(rows), int(used.sum()), used.sum() / data.n_labels, acc, estimated, per_label,
                     int(extra.sum())))
        if extra.sum() == 0:
            break
        bought = bought + extra  # advise keeps each item within its ``available``
    return pd.DataFrame(rows, columns=_CURVE_COLUMNS)


def stop_at(curve: pd.DataFrame, min_gain: float) -> pd.DataFrame:
    """Return the replay with ``min_gain`` read off a replay with a smaller one: ``curve`` up to its stop.

    The stop is the first round whose ``gain_per_label`` is below ``min_gain`` (or the curve's last
    round); its ``named`` becomes 0. Exact when ``curve`` was replayed with a ``min_gain`` of at most
    this one (the rounds before the stop named the same labels: the advice does not read ``min_gain``
    but to stop).
    """
    below = np.flatnonzero((curve["gain_per_label"] < min_gain).to_numpy())
    end = int(below[0]) if len(below) else len(curve) - 1
    out = curve.iloc[: end + 1].copy()
    out.loc[out.index[-1], "named"] = 0
    return out.reset_index(drop=True)


def labels_needed(curve: pd.DataFrame, target_accuracy: float, slack: float = 0.005) -> float:
    """Return the first share of labels at which the accuracy is at least ``target_accuracy`` less ``slack``.

    ``target_accuracy`` is the all-labels accuracy; NaN when the curve never reaches it. Read off the truth:
    a reading of the curve, not a stop a user can follow.
    """
    reached = curve[curve["accuracy"] >= target_accuracy - slack - 1e-12]
    return float(reached["share"].iloc[0]) if len(reached) else float("nan")


def _summarise(policy: str, curve: pd.DataFrame, target_accuracy: float, n_labels: int,
              slack: float = 0.005) -> tuple:
    """One row of :data:`SUMMARY_COLUMNS` for a replay's ``curve`` (its last fit is the stop)."""
    needed = labels_needed(curve, target_accuracy, slack)
    at_stop = float(curve["accuracy"].iloc[-1])
    return (policy, float(curve["share"].iloc[-1]), at_stop, target_accuracy, target_accuracy - at_stop, n_labels,
            len(curve), needed, bool(np.isfinite(needed)))


def replay_policies(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame, method: str,
                    params: dict | None = None, policies: tuple[str, ...] = ("lookahead", "uncertainty", "uniform",
                                                                             "random"),
                    round_share: float = 0.05, seed: int = 0, stop: float | None = _DEFAULT_STOP,
                    explore: float | None = None,
                    min_gain: float | None = DEFAULT_MIN_GAIN) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every policy's replay with the registry ``method``, on the same terms: (summary, curves).

    The summary has the columns :data:`SUMMARY_COLUMNS`; the curves ``policy`` and :data:`_CURVE_COLUMNS`.
    Every policy reads the same posteriors, the method's tempered on withheld labels
    (``calibrate="tempering"``) unless ``params`` sets ``calibrate``, with the same item-level stop,
    exploration share and stop rule (``stop``, ``explore``, ``min_gain``).
    """
    from manyjudges.truth.registry import make_truth_estimator

    data = labels if isinstance(labels, CrowdLabels) else as_crowd_labels(labels, duplicates="first")
    chosen = {"calibrate": "tempering", **(params or {})}

    def make() -> TruthEstimator:
        return make_truth_estimator(method, chosen)

    target = all_labels_accuracy(data, truth, make)
    summary, curves = [], []
    for policy in policies:
        curve = replay(data, truth, make, policy=policy, round_share=round_share, seed=seed, stop=stop,
                       explore=explore, min_gain=min_gain)
        summary.append(_summarise(policy, curve, target, data.n_labels))
        curves.append(curve.assign(policy=policy))
    curve_table = pd.concat(curves, ignore_index=True)[["policy", *_CURVE_COLUMNS]]
    return pd.DataFrame(summary, columns=SUMMARY_COLUMNS), curve_table
