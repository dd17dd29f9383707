"""Where the next labels should go: the items (and judges) whose next label is expected to fix most.

Policies, each a score per item from a fitted truth method's posteriors T (n_items, K):

- ``"lookahead"`` (ours, the default): the expected gain in accuracy per label that m more labels
  bring, m = 1..M, under the panel's typical judge. With pi the judges' confusion matrices
  averaged with weights their label counts (the judge a next label comes from, on average), the
  expected accuracy of item i after m more labels is

      E_m(i) = sum_n multinomial(m; n) max_t T[i, t] prod_c pi[t, c]^n_c

  over the count vectors n of m labels (E_0 = max_t T[i, t]). One label cannot change a decision
  that two could, so a myopic gain (m = 1) is 0 on items that still need work; looking M = 3 labels
  ahead (2 past 8 classes, 1 past 20) finds them. Each item's k-th next label is scored by the
  concave envelope of E_0..E_M (from k labels, the next m labels share the best rate
  max_m (E_{k+m} - E_k) / m), and the budget goes to the best (item, k) pairs: an item appears as
  often as its labels outscore other items' first ones. Expected error reduction (Roy and McCallum 2001) with the
  lookahead of knowledge-gradient budget allocation for crowd labels (Chen, Lin and Zhou 2013,
  "Optimistic knowledge gradient policy for optimal budget allocation in crowdsourcing", ICML).
- ``"uncertainty"``: 1 - max_t T[i, t] (uncertainty sampling, Lewis and Gale 1994), one label each.
- ``"uniform"``: the items with the fewest labels first (seeded random order among equals).
- ``"random"``: a seeded random order.

The stop (every policy's, read from the lookahead whatever policy then names the labels): with
G(B) the sum of the B best lookahead rates over the candidate items (:func:`budget_gain`: the expected
number of items the budget sets right if it goes where the lookahead says), the advice names no label
when G(B) / B < ``min_gain`` (:func:`advise`): G reads "at least one item set right per 1/G labels".
Items whose top posterior is at least ``stop`` get none (the item-level stop), as do items with a score
of 0 under the lookahead. The posteriors are read as given: calibrated ones (``calibrate="tempering"``,
or ``auto``) make the expected gains mean what they say.

Exploration (``explore``; default :data:`_DEFAULT_EXPLORE`, the same share for every policy): the first
ceil(explore * budget) labels go one each to the items with the fewest labels, whatever their
posterior and score (the item-level stop does not apply to them): by labels so far, then the policy's
own score of the item's next label, then a seeded random order; the rest of the budget goes by the
policy. It stops when the advice stops. The defaults of ``min_gain``, ``explore`` and ``stop`` were
chosen leave one group out on the development pool (``benchmarks/defaults/min_gain.py``).
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from math import factorial

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.random_streams import rng_for
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth.heldout import _judge_confusions

__all__ = ["DEFAULT_MIN_GAIN", "Advice", "advise", "budget_gain", "fitted_confusions", "next_labels"]

_POLICIES = ("lookahead", "uncertainty", "uniform", "random")
#: every policy's share of a budget for the items with the fewest labels (``explore=None``): none, chosen leave
#: one group out against 0.1 on the development pool (``benchmarks/defaults/min_gain.py``)
_DEFAULT_EXPLORE = 0.0
#: items at least this sure of their class get no label by default (kept: it lowers the baselines' share of
#: labels at the stop, the lookahead's alike)
_DEFAULT_STOP: float | None = 0.99
#: the advice stops when the budget's expected gain per label is below this (items set right per label): one
#: item per 500 labels, chosen leave one group out on the development pool with ``auto``, the command's default
#: method (``benchmarks/defaults/min_gain.py``)
DEFAULT_MIN_GAIN: float | None = 0.002


def fitted_confusions(estimator, data: CrowdLabels) -> np.ndarray:
    """(n_judges, K, K) a fitted truth method's judge confusions.

    These are its ``confusions_``, or for a method without them (majority vote, Wawa, GLAD) one Dawid-Skene
    M-step on its posteriors.
    """
    k = data.n_classes
    if estimator.confusions_ is not None:
        return estimator.confusions_.to_numpy().reshape(data.n_judges, k, k)
    return _judge_confusions(data, estimator.proba_.to_numpy())


def _lookahead_depth(n_classes: int) -> int:
    """M: 3 labels ahead up to 8 classes, 2 up to 20, else 1 (the count vectors grow as C(M + K - 1, M))."""
    return 3 if n_classes <= 8 else 2 if n_classes <= 20 else 1


def _typical_confusion(confusions: np.ndarray, label_counts: np.ndarray) -> np.ndarray:
    """(K, K) the judges' confusions (n_judges, K, K) averaged with weights their label counts."""
    weights = np.asarray(label_counts, dtype=float)
    if weights.sum() <= 0:
        weights = np.ones(len(confusions))
    return np.einsum("w,wtc->tc", weights / weights.sum(), confusions)


def _count_vectors(m: int, k: int) -> list[np.ndarray]:
    """Every (k,) vector of non-negative counts summing to m (each multiset of m classes once)."""
    return [np.bincount(combo, minlength=k) for combo in itertools.combinations_with_replacement(range(k), m)]


def _expected_accuracy(posteriors: np.ndarray, confusion: np.ndarray, m: int) -> np.ndarray:
    """(n_items,) E_m: the expected top posterior after m more labels from a judge with ``confusion`` (K, K)."""
    t = np.asarray(posteriors, dtype=float)
    if m == 0:
        return t.max(axis=1)
    k = t.shape[1]
    log_pi = np.log(np.maximum(confusion, 1e-300))
    total = np.zeros(len(t))
    for n in _count_vectors(m, k):
        coefficient = factorial(m) / np.prod([factorial(int(c)) for c in n])
        likelihood = np.exp(log_pi @ n.astype(float))  # (K,) prod_c pi[t, c]^n_c
        total += coefficient * (t * likelihood).max(axis=1)
    return total


def _lookahead_rates(posteriors: np.ndarray, confusion: np.ndarray) -> np.ndarray:
    """(n_items, M) the expected gain in accuracy of each item's 1st, 2nd, ... M-th next label.

    The gains are the concave envelope of E_0..E_M: from k labels, the next m* labels share the best rate
    max_m (E_{k+m} - E_k) / m, so a label that only pays with the one after it is valued as the pair.
    """
    t = np.asarray(posteriors, dtype=float)
    depth = _lookahead_depth(t.shape[1])
    expected = np.stack([_expected_accuracy(t, confusion, m) for m in range(depth + 1)], axis=1)
    rates = np.zeros((len(t), depth))
    rows = np.arange(len(t))
    k = np.zeros(len(t), dtype=np.int64)
    while (k < depth).any():
        best = np.full(len(t), -np.inf)
        step = np.ones(len(t), dtype=np.int64)
        for m in range(1, depth + 1):
            ok = k + m <= depth
            rate = np.where(ok, (expected[rows, np.minimum(k + m, depth)] - expected[rows, k]) / m, -np.inf)
            better = rate > best + 1e-15
            best[better], step[better] = rate[better], m
        for j in range(depth):
            fill = (j >= k) & (j < k + step) & (k < depth)
            rates[fill, j] = np.where(best[fill] > 1e-12, best[fill], 0.0)  # rounding noise is no gain
        k = np.minimum(k + step, depth)
    return rates


def _policy_scores(policy: str, posteriors: np.ndarray, confusion: np.ndarray | None = None,
                  label_counts: np.ndarray | None = None, seed: int = 0) -> np.ndarray:
    """(n_items, L) the score of each item's 1st, ..., L-th next label under ``policy``.

    L = 1 but for the lookahead; higher first, 0 = not worth a label.
    """
    t = np.asarray(posteriors, dtype=float)
    n = len(t)
    rng = rng_for(seed, "truth", "next labels", policy)
    if policy == "lookahead":
        if confusion is None:
            raise ValueError("the lookahead policy needs the judges' typical confusion")
        return _lookahead_rates(t, confusion)
    if policy == "uncertainty":
        return (1.0 - t.max(axis=1))[:, None]
    if policy == "uniform":
        counts = np.zeros(n) if label_counts is None else np.asarray(label_counts, dtype=float)
        return (1.0 / (1.0 + counts) + 1e-9 * rng.random(n))[:, None]  # fewest first, random among equals
    if policy == "random":
        return rng.random(n)[:, None]
    raise ValueError(f"policy must be one of {', '.join(_POLICIES)}, got {policy!r}")


@dataclass(frozen=True)
class _Plan:
    items: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class Advice:
    """What :func:`advise` says: the labels to buy next and why (or why none).

    ``table``: ``item, score`` (and ``judge``), best first, empty (header only) when the advice stops;
    ``accuracy``: the estimated accuracy now, the mean top posterior over the items; ``gain``: the
    expected number of items the budget sets right (:func:`budget_gain`); ``per_label``: ``gain / budget``;
    ``stopped``: True when ``per_label`` is below ``min_gain``.
    """

    table: pd.DataFrame
    accuracy: float
    gain: float
    per_label: float
    budget: int
    n_items: int
    min_gain: float | None
    stopped: bool

    @property
    def gain_accuracy(self) -> float:
        """The expected gain of the budget in accuracy: ``gain / n_items``."""
        return self.gain / max(self.n_items, 1)


def _allocate(scores: np.ndarray, available: np.ndarray, budget: int, eligible: np.ndarray,
              positive_only: bool) -> _Plan:
    """Return the ``budget`` best (item, level) pairs of ``scores`` (n_items, L) among eligible items.

    At most ``available`` levels per item; by score, then level, then item code; best first.
    """
    n, levels = scores.shape
    item = np.repeat(np.arange(n), levels)
    level = np.tile(np.arange(levels), n)
    score = scores.ravel()
    keep = eligible[item] & (level < np.minimum(available, levels)[item])
    if positive_only:
        keep &= score > 0
    item, level, score = item[keep], level[keep], score[keep]
    order = np.lexsort((item, level, -score))[:budget]
    return _Plan(item[order], score[order])


def budget_gain(rates: np.ndarray, budget: int, eligible: np.ndarray | None = None,
                available: np.ndarray | None = None) -> float:
    """Return the expected number of items a budget of B labels sets right, if it goes where the lookahead says.

    G(B) = the sum of the B largest lookahead rates ``rates[i, k]`` (:func:`_lookahead_rates`: the expected
    gain in accuracy of item i's (k+1)-th next label, the concave envelope of E_0..E_M) over the
    ``eligible`` items, each at most ``available`` levels. Each rate is an expected number of items set
    right (E_m is the probability that item i's decision is right after m labels), so G(B) counts items;
    G(B) / B is the budget's expected gain per label, the stop rule's (:func:`advise`).
    """
    n = len(rates)
    eligible = np.ones(n, dtype=bool) if eligible is None else eligible
    available = np.full(n, rates.shape[1], dtype=np.int64) if available is None else available
    return float(_allocate(rates, available, int(budget), eligible, positive_only=True).scores.sum())


def _explore(counts: np.ndarray, first_scores: np.ndarray, available: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Up to ``n`` item codes, one each, among items with ``available`` > 0.

    Fewest ``counts`` first, then highest ``first_scores``, then a seeded random order.
    """
    tie = rng_for(seed, "truth", "next labels", "explore").random(len(counts))
    order = np.lexsort((tie, -first_scores, counts))
    return order[available[order] > 0][:n]


@dataclass(frozen=True)
class _Offer:
    """The candidate items (``offered``), the ones the policy may name (``eligible``), labels left each."""

    offered: np.ndarray
    eligible: np.ndarray
    available: np.ndarray


def _offer(data: CrowdLabels, posteriors: np.ndarray, candidates: pd.DataFrame | None,
           stop: float | None) -> _Offer:
    """Which items may get labels, and how many each (``candidates``; ``stop`` for ``eligible``)."""
    offered = np.ones(data.n_items, dtype=bool)
    available = np.full(data.n_items, np.iinfo(np.int64).max // 4, dtype=np.int64)
    if candidates is not None:
        position = pd.Index(data.items.astype(str)).get_indexer(candidates["item"].astype(str))
        known = position >= 0
        if not known.all():
            example = candidates["item"].iloc[int(np.flatnonzero(~known)[0])]
            warnings.warn(f"candidates: {int((~known).sum())} of {len(known)} items have no labels (nothing is known "
                          f"of them, e.g. {example!r}) and are left out", DataWarning, stacklevel=3)
        offered = np.zeros(data.n_items, dtype=bool)
        offered[position[known]] = True
        if "available" in candidates.columns:
            cap = np.zeros(data.n_items, dtype=np.int64)
            cap[position[known]] = candidates["available"].to_numpy()[known].astype(np.int64)
            available = cap
            offered &= cap > 0
    available = np.where(offered, available, 0)
    eligible = offered.copy() if stop is None else offered & (posteriors.max(axis=1) < stop)
    return _Offer(offered, eligible, available)


def _check(budget: int, explore: float, min_gain: float | None, confusions: np.ndarray | None) -> None:
    if int(budget) != budget or budget < 1:
        raise ValueError(f"budget must be a positive integer, got {budget!r}")
    if not 0 <= explore <= 1:
        raise ValueError(f"explore must be a share in [0, 1], got {explore!r}")
    if min_gain is not None and not min_gain >= 0:
        raise ValueError(f"min_gain must be at least 0 (or None: no stop), got {min_gain!r}")
    if min_gain is not None and confusions is None:
        raise ValueError("min_gain needs the judges' confusions (the stop rule reads the lookahead's expected "
                         "gains); min_gain=None turns the stop off")


def _plan(policy: str, scores: np.ndarray, counts: np.ndarray, offer: _Offer, budget: int, explore: float,
          seed: int) -> _Plan:
    """Return the policy's labels: ceil(explore * budget) one each to the fewest-labelled items, the rest by score."""
    available = offer.available
    explored = np.zeros(0, dtype=np.int64)
    if explore > 0:
        explored = _explore(counts, scores[:, 0], available, int(np.ceil(explore * budget)), seed)
        available = available.copy()
        available[explored] -= 1
    plan = _allocate(scores, available, budget - len(explored), offer.eligible, positive_only=policy == "lookahead")
    if len(explored):
        plan = _Plan(np.concatenate([plan.items, explored]), np.concatenate([plan.scores, scores[explored, 0]]))
    return plan


def advise(data: CrowdLabels, posteriors: np.ndarray, budget: int, policy: str = "lookahead",
           confusions: np.ndarray | None = None, candidates: pd.DataFrame | None = None,
           judges_available: pd.DataFrame | None = None, stop: float | None = _DEFAULT_STOP, seed: int = 0,
           explore: float | None = None, min_gain: float | None = DEFAULT_MIN_GAIN) -> Advice:
    """Name the ``budget`` labels to buy next, or none when they are not worth buying: an :class:`Advice`.

    The stop rule (every policy's, read from the lookahead whatever policy then names the labels): with
    G(B) = :func:`budget_gain` of the lookahead rates of the typical judge (:func:`_lookahead_rates`) over
    the candidate items, the advice names no label when G(B) / B < ``min_gain`` (None: never stops;
    ``min_gain`` G reads "at least one item set right per 1/G labels"). Otherwise the labels of
    :func:`next_labels`' description. The posteriors should be calibrated for G(B) to mean what it says.
    """
    explore = _DEFAULT_EXPLORE if explore is None else explore
    _check(budget, explore, min_gain, confusions)
    budget = int(budget)
    t = np.asarray(posteriors, dtype=float)
    counts = np.bincount(data.item, minlength=data.n_items)
    typical = None if confusions is None else _typical_confusion(confusions, data.judge_counts)
    offer = _offer(data, t, candidates, stop)
    gain = 0.0 if typical is None else budget_gain(_lookahead_rates(t, typical), budget, offer.eligible,
                                                   offer.available)
    stopped = min_gain is not None and gain / budget < min_gain
    plan = _Plan(np.zeros(0, dtype=np.int64), np.zeros(0))
    if not stopped:
        plan = _plan(policy, _policy_scores(policy, t, typical, counts, seed), counts, offer, budget, explore, seed)
    table = pd.DataFrame({"item": data.items[plan.items], "score": plan.scores})
    if judges_available is not None:
        table = _assign_judges(data, t, confusions, plan, judges_available, table)
    if not stopped and len(table) < budget:
        warnings.warn(f"next labels: {len(table)} of the {budget} asked for can be given (the other items are "
                      f"past stop={stop}, have nothing to gain or no labels left, or no listed judge can take them)",
                      DataWarning, stacklevel=2)
    return Advice(table.reset_index(drop=True), float(t.max(axis=1).mean()) if len(t) else float("nan"), gain,
                  gain / budget, budget, data.n_items, min_gain, stopped)


def next_labels(data: CrowdLabels, posteriors: np.ndarray, budget: int, policy: str = "lookahead",
                confusions: np.ndarray | None = None, candidates: pd.DataFrame | None = None,
                judges_available: pd.DataFrame | None = None, stop: float | None = _DEFAULT_STOP,
                seed: int = 0, explore: float | None = None,
                min_gain: float | None = DEFAULT_MIN_GAIN) -> pd.DataFrame:
    """Name the ``budget`` labels to buy next, best first: ``item, score`` (and ``judge`` with ``judges_available``).

    ``posteriors`` (n_items, K) and ``confusions`` (n_judges, K, K) come from a method fitted on ``data``.
    ``candidates`` (``item``, optional ``available``): only these items, each at most ``available`` more
    labels (default: as many as it deserves). ``judges_available`` (``judge``, optional ``available``):
    who can label now, each at most ``available`` labels (default: no limit); each label goes to the
    listed judge, not yet on that item, whose label tells most about its class (mutual information
    under the item's posterior and the judge's confusion). A budget larger than what can be given
    returns what can, with a DataWarning. Items whose top posterior is at least ``stop`` get none (None:
    no item-level stop). ``explore``: the share of the budget (rounded up) given one label each to the
    candidate items with the fewest labels, item-level stop or not (module docstring); listed last;
    None: :data:`_DEFAULT_EXPLORE`, the same for every policy. ``min_gain``: the stop rule of
    :func:`advise` (the table is empty when the budget's expected gain per label is below it).
    """
    return advise(data, posteriors, budget, policy, confusions, candidates, judges_available, stop, seed, explore,
                  min_gain).table


def _assign_judges(data: CrowdLabels, posteriors: np.ndarray, confusions: np.ndarray | None, plan: _Plan,
                    judges: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    if confusions is None:
        raise ValueError("judges_available needs the judges' confusions")
    position = pd.Index(data.judges.astype(str)).get_indexer(judges["judge"].astype(str))
    if (position < 0).any():
        unknown = judges["judge"].iloc[int(np.flatnonzero(position < 0)[0])]
        raise ValueError(f"judges_available: judge {unknown!r} has no labels, so nothing is known of it")
    capacity = (judges["available"].to_numpy().astype(np.int64) if "available" in judges.columns
                else np.full(len(position), np.iinfo(np.int64).max // 4))
    done = set(zip(data.item.tolist(), data.judge.tolist()))
    chosen_judges, keep = [], []
    for row, item in enumerate(plan.items):
        t = posteriors[item]
        pi = confusions[position]  # (n_listed, K, K)
        said = np.einsum("t,wtc->wc", t, pi)  # P(label c) per judge
        with np.errstate(divide="ignore", invalid="ignore"):
            info = np.nansum(t[None, :, None] * pi * np.log(pi / said[:, None, :]), axis=(1, 2))
        for j in np.argsort(-info, kind="stable"):
            if capacity[j] > 0 and (int(item), int(position[j])) not in done:
                capacity[j] -= 1
                done.add((int(item), int(position[j])))
                chosen_judges.append(data.judges[position[j]])
                keep.append(row)
                break
    out = table.iloc[keep].copy()
    out["judge"] = chosen_judges
    return out
