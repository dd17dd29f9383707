"""How much a truth method's posteriors can be trusted, measured against a truth.

For each scored item, the confidence is the posterior of the class the method chose (its
top-class probability) and ``correct`` says whether that class is the truth.

- Expected calibration error (Guo, Pleiss, Sun and Weinberger 2017, eq. 3): the confidences in 10
  equal-width bins of [0, 1] (bin b holds (b/10, (b+1)/10], the first also 0),
  ECE = sum_b (n_b / n) |accuracy_b - mean confidence_b|. 0 for posteriors that mean what they say.
- AUROC of the confidence for "the label is right": the probability that a right item has a higher
  confidence than a wrong one, ties counting one half (the Mann-Whitney U statistic over
  n_right x n_wrong). NaN when every scored item is right, or every one wrong.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from manyjudges.core.coded_labels import as_text, id_positions

__all__ = ["auroc", "mid_ranks"]

#: equal-width bins of the top-class probability for the expected calibration error
ECE_BINS = 10


def _expected_calibration_error(confidence: np.ndarray, correct: np.ndarray, n_bins: int = ECE_BINS) -> float:
    """sum_b (n_b / n) |mean(correct in b) - mean(confidence in b)| over ``n_bins`` equal-width bins."""
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=float)
    if len(confidence) == 0:
        return float("nan")
    bins = np.clip(np.ceil(confidence * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    gap = np.bincount(bins, correct - confidence, minlength=n_bins)   # n_b (accuracy_b - confidence_b)
    return float(np.abs(gap).sum() / len(confidence))


def mid_ranks(values: np.ndarray) -> np.ndarray:
    """Return each value's rank among ``values`` (1 for the smallest), ties sharing their mean rank.

    A value with c ties whose last rank is r ranks r - (c - 1) / 2 (``scipy.stats.rankdata``'s
    ``"average"``), from one sort (``numpy.unique``).
    """
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    return (last - (counts - 1) / 2)[inverse]


def auroc(score: np.ndarray, positive: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + P(equal) / 2.

    Computed as (rank sum of the positives - n_p (n_p + 1) / 2) / (n_p n_n) with mid-ranks; NaN without
    positives or without negatives.
    """
    score = np.asarray(score, dtype=float)
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = mid_ranks(score)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _calibration_scores(proba: pd.DataFrame, labels: pd.Series, truth: pd.DataFrame | None,
                       position: np.ndarray | None = None) -> tuple[float, float]:
    """(ECE, AUROC) of a fitted method's posteriors (``proba_``, ``labels_``) on the items of ``truth``.

    ``truth`` is ``item, truth``, compared as text; (NaN, NaN) without truth. ``position`` is each truth
    item's position in ``labels.index`` (-1: none), when the caller has found it already.
    """
    if truth is None or truth.empty:
        return float("nan"), float("nan")
    if position is None:
        position = id_positions(labels.index, truth["item"])
    chosen = position[position >= 0]
    values = proba.to_numpy()
    chosen_class, classes = pd.factorize(labels.to_numpy()[chosen], sort=False)
    columns = id_positions(proba.columns, classes)[chosen_class]
    confidence = values[chosen, columns]
    right = _same_class(labels.to_numpy()[chosen], truth["truth"].to_numpy()[position >= 0])
    return _expected_calibration_error(confidence, right), auroc(confidence, right)


def _same_class(predicted: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Return whether each predicted class is the expected one, compared as text (a code 1 equals "1").

    Integers are compared as they are (the same answer as their text, without making it).
    """
    if predicted.dtype.kind in "iu" and expected.dtype.kind in "iu":
        return np.asarray(predicted == expected)
    return np.asarray(pc.equal(as_text(predicted), as_text(expected)).to_numpy(zero_copy_only=False), dtype=bool)
