"""Annotator skill against the truth and the summary statistics of Niu et al. s.6.3-6.4.

- :func:`annotator_accuracy`: eq (18), each judge's pairwise preference accuracy vs truth;
- :func:`skill_histogram_kl`: KL divergence of the true vs estimated skill histograms
  (s.6.3.2, Figure 2);
- :func:`coefficient_of_variation`: sd / mean of a robustness curve (s.6.4, footnote 3).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from manyjudges.crowd.judgments import TopicJudgments

Truth = Mapping[str, int] | np.ndarray


def truth_vector(topic: TopicJudgments, truth_grades: Truth) -> np.ndarray:
    """(n,) float array of truth grades aligned with ``topic.items``; NaN = no grade.

    ``truth_grades`` is a mapping ``item id -> grade`` (items of other topics are ignored) or
    an (n,) array already aligned with ``topic.items`` (NaN for ungraded items).
    """
    if isinstance(truth_grades, Mapping):
        lookup = {str(item): float(grade) for item, grade in truth_grades.items()}
        return np.array([lookup.get(str(item), np.nan) for item in topic.items], dtype=float)
    out = np.asarray(truth_grades, dtype=float)
    if out.shape != (topic.n_items,):
        raise ValueError(f"truth array has shape {out.shape}, topic {topic.topic!r} has {topic.n_items} items")
    return out


def truth_preference(grades: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """y(a, b) of each pair from the truth: +1 left graded higher, -1 right, 0 equal or ungraded."""
    diff = grades[left] - grades[right]
    return np.where(np.isnan(diff), 0, np.sign(diff)).astype(np.int8)


def annotator_accuracy(topic: TopicJudgments, truth_grades: Truth) -> np.ndarray:
    """Pairwise preference accuracy of each judge against the truth (eq 18).

    ``ACC_i = sum_{(s,t)} I(y_s > y_t) I(i prefers s to t) / sum_{(s,t)} I(y_s > y_t)`` over
    judge i's judgments. Reading: only the judge's strict preferences (outcome +-1) on
    pairs whose two items both have truth grades and whose grades differ are counted; the
    judge's ties ("same") and pairs tied or ungraded in the truth are excluded from both
    numerator and denominator. A pair judged twice counts twice.

    Returns
    -------
    numpy.ndarray of float, shape (m,)
        Aligned with ``topic.judges``; NaN for a judge with no counted judgment.
    """
    grades = truth_vector(topic, truth_grades)
    y = truth_preference(grades, topic.left, topic.right)
    counted = (topic.outcome != 0) & (y != 0)
    agree = counted & (topic.outcome == y)
    total = np.bincount(topic.judge[counted], minlength=topic.n_judges).astype(float)
    right = np.bincount(topic.judge[agree], minlength=topic.n_judges).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, right / total, np.nan)


def skill_histogram_kl(true_skill: np.ndarray, estimated_skill: np.ndarray, bins: int = 10,
                         eps: float = 1e-3) -> float:
    """KL(true || estimated) of the two skill histograms on [0, 1] (s.6.3.2, Figure 2).

    The paper gives no detail; reading: both samples (NaN dropped, values clipped to
    [0, 1]) are binned into ``bins`` equal-width bins on [0, 1] (last bin closed), turned
    into proportions, smoothed additively ``h' = (h + eps) / (1 + bins * eps)`` so that
    empty bins do not give infinite divergence, and compared by
    ``KL = sum_b h'_true(b) log(h'_true(b) / h'_est(b))`` (natural log). NaN when either
    sample is empty.
    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    if eps <= 0:
        raise ValueError(f"eps must be > 0, got {eps}")
    hists = []
    for values in (true_skill, estimated_skill):
        v = np.asarray(values, dtype=float).ravel()
        v = np.clip(v[~np.isnan(v)], 0.0, 1.0)
        if v.size == 0:
            return float("nan")
        h, _ = np.histogram(v, bins=bins, range=(0.0, 1.0))
        hists.append((h / v.size + eps) / (1.0 + bins * eps))
    p, q = hists
    return float((p * np.log(p / q)).sum())


def coefficient_of_variation(values: np.ndarray, ddof: int = 0) -> float:
    """Return the coefficient of variation ``sd / mean``.

    Niu et al., footnote 3: "the ratio of the standard deviation to the mean".

    ``sd`` with ``ddof=0`` by default (the population sd of the given values: the points of
    one curve, as ``scipy.stats.variation``). NaN values are dropped; NaN when nothing is
    left, when ``ddof`` leaves no degrees of freedom, or when the mean is 0.
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if v.size <= ddof:
        return float("nan")
    mean = v.mean()
    if mean == 0:
        return float("nan")
    return float(v.std(ddof=ddof) / mean)
