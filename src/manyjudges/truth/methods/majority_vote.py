"""Majority vote: each item gets its most frequent label.

The plurality rule, the baseline of every truth-inference comparison (e.g. Sheng, Provost and
Ipeirotis, "Get another label?", KDD 2008, its "majority voting"; crowd-kit's ``MajorityVote``).
With n[i, c] the number of labels of class c that item i received and n[i] = sum_c n[i, c]:

    proba[i, c] = n[i, c] / n[i]          label[i] in argmax_c n[i, c]

When several classes share the largest count, ``ties`` chooses:

- ``"lowest"``: the lowest class (the first in the class order);
- ``"random"``: one of the tied classes uniformly at random: each item draws u[i, c] ~ U(0, 1)
  from ``numpy.random.default_rng(random_state)`` and the tied class with the largest u wins
  (the same ``random_state`` gives the same labels);
- ``"first"``: the tied class whose first label comes earliest in the labels table (row order).
  This is crowd-kit 1.4's rule under pandas 3: its ``MajorityVote`` takes ``idxmax`` over the
  columns of ``value_counts().unstack()``, and pandas 3's ``DataFrame.value_counts`` groups with
  ``sort=False`` ("value_counts to consistently maintain order of input", pandas pull request
  59745), so the columns, hence the ties, follow the order in which the classes first appear;
  under pandas 2, whose ``value_counts`` grouped sorted, the same code broke ties to the lowest
  class.

``skills_`` is each judge's agreement rate with the chosen labels:
skill[w] = #{w's labels equal to the chosen label of their item} / #{w's labels}, every label
counted, a repeated (item, worker) label included (crowd-kit's ``get_accuracy`` counts a repeated
identical (item, judge, label) row once).
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Interval, Options
from manyjudges.truth.base import TruthEstimator, TruthFit, _row_argmax

__all__ = ["MajorityVote"]

#: the tie rules of :class:`MajorityVote`
_TIES = ("lowest", "random", "first")
#: above this many classes :func:`_first_seen_order` sorts the labels once instead of one pass per class
FIRST_SEEN_PASSES = 32


def _first_seen_order(data: CrowdLabels) -> np.ndarray:
    """Return the class codes in the order their first label appears in ``data`` (unused classes last)."""
    first = np.full(data.n_classes, data.n_labels)
    if data.n_classes > FIRST_SEEN_PASSES:
        used, positions = np.unique(data.label, return_index=True)
        first[used] = positions
        return np.argsort(first, kind="stable").astype(np.int64)
    for c in range(data.n_classes):  # one pass per class; argmax stops at the first True
        hit = data.label == c
        position = int(hit.argmax())
        if hit[position]:
            first[c] = position
    return np.argsort(first, kind="stable").astype(np.int64)


def _pick_classes(scores: np.ndarray, ties: str, data: CrowdLabels, random_state: int = 0) -> np.ndarray:
    """Argmax of each row of ``scores`` (n_items, K), exact ties broken by ``ties`` (see :data:`_TIES`)."""
    if ties == "lowest":
        return _row_argmax(scores)
    if ties == "first":
        order = _first_seen_order(data)
        return order[_row_argmax(scores[:, order])]
    if ties == "random":
        draws = np.random.default_rng(random_state).random(scores.shape)
        tied = scores == scores.max(axis=1, keepdims=True)
        return np.argmax(np.where(tied, draws, -1.0), axis=1)
    raise ValueError(f"ties must be one of {', '.join(_TIES)}, got {ties!r}")


def _agreement_rates(data: CrowdLabels, chosen: np.ndarray) -> np.ndarray:
    """(n_judges,) each judge's share of labels equal to the chosen class of their item (NaN: no labels)."""
    agree = np.bincount(data.judge, weights=data.label == chosen[data.item], minlength=data.n_judges)
    total = data.judge_counts
    out = np.full(data.n_judges, np.nan)
    np.divide(agree, total, out=out, where=total > 0)
    return out


def _vote_shares(counts: np.ndarray) -> np.ndarray:
    """Rows of ``counts`` (n_items, K) divided by their sums; a row summing to 0 becomes uniform 1/K."""
    counts = np.asarray(counts, dtype=float)
    total = (counts @ np.ones(counts.shape[1]))[:, None]  # a matrix product: numpy's axis-1 sum of few columns is slow
    if total.all():
        return counts / total
    out = np.full(counts.shape, 1.0 / counts.shape[1])
    np.divide(counts, total, out=out, where=total > 0)
    return out


class VoteEstimator(TruthEstimator):
    """A vote among the labels, with a tie rule ``ties``; gold items get their known class."""

    gold_use = "labels"  # no judge model to learn from gold items: they get their known class
    ties: str

    def uses_row_order(self) -> bool:
        """``ties="first"`` reads the table's row order (the class whose first label comes earliest)."""
        return self.ties == "first"


class MajorityVote(VoteEstimator):
    """Majority vote; ``proba_`` the label shares, ``skills_`` the agreement rates with the vote.

    Parameters
    ----------
    ties : {"lowest", "random", "first"}
        Which of several classes with the largest count an item gets (module docstring).
    random_state : int
        Seed of the ``numpy.random.Generator`` used by ``ties="random"`` (ignored otherwise).
    """

    _parameter_constraints = {**TruthEstimator._parameter_constraints, "ties": [Options(_TIES)],
                              "random_state": [Interval(Integral, 0, None)]}

    def __init__(self, ties: str = "lowest", random_state: int = 0, calibrate: str | None = None) -> None:
        self.calibrate = calibrate
        self.ties = ties
        self.random_state = random_state

    def _fit(self, data: CrowdLabels) -> TruthFit:
        counts = data.class_counts
        chosen = _pick_classes(counts, self.ties, data, int(self.random_state))
        return TruthFit(proba=_vote_shares(counts), labels=chosen, skills=_agreement_rates(data, chosen))
