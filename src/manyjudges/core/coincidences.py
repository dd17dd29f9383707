"""Krippendorff's alpha in its coincidence-matrix form, from the number of values of each class in each unit.

Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology*, 2nd ed.; and
"Computing Krippendorff's alpha-reliability" (2011). With ``n_uc`` the values of class ``c`` in unit
``u`` (an item's labels, a model pair's verdicts) and ``m_u = sum_c n_uc``, only the pairable units
(``m_u >= 2``) count; the coincidences are

    o_ck = sum_u n_uc (n_uk - [c == k]) / (m_u - 1),   n_c = sum_k o_ck,   n = sum_c n_c,

and alpha = 1 - (n - 1) sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck for a difference function d2 (the
level of measurement: ``1 - I`` for nominal classes). Every value counts: a judge with two values
in one unit gives two. Shared by the truth family (labels) and the crowd family (verdicts).
"""
from __future__ import annotations

import numpy as np

__all__ = ["alpha_from_coincidences", "coincidence_matrix"]


def coincidence_matrix(unit_counts: np.ndarray) -> np.ndarray:
    """(K, K) coincidences ``o_ck`` of the pairable units of a (units, K) count table (module docstring)."""
    counts = np.asarray(unit_counts, dtype=float)
    m = counts.sum(axis=1)
    pairable = m >= 2
    counts, m = counts[pairable], m[pairable]
    weighted = counts / (m - 1)[:, None]
    return weighted.T @ counts - np.diag(weighted.sum(axis=0))


def alpha_from_coincidences(coincidences: np.ndarray, d2: np.ndarray | None = None) -> float:
    """Return Krippendorff's alpha of a coincidence matrix; NaN when undefined.

    Alpha = 1 - (n - 1) sum o_ck d2_ck / sum n_c n_k d2_ck; ``d2`` None is nominal (``1 - I``). NaN when
    undefined: fewer than two pairable values, or every pairable value in one class.
    """
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    d2 = 1.0 - np.eye(len(totals)) if d2 is None else d2
    expected = float(totals @ d2 @ totals)
    if n < 2 or expected <= 0:
        return float("nan")
    return float(1.0 - (n - 1.0) * float((coincidences * d2).sum()) / expected)
