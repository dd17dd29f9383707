"""Agreement measures of a panel of judges on three-class verdicts.

The majority class of a unit's votes, Cohen's kappa, Krippendorff's alpha (nominal), Pearson
correlation, and the effective number of judges.
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.coincidences import alpha_from_coincidences, coincidence_matrix

__all__ = ["TIE", "effective_judges"]

#: the class of a tie, and of a majority shared by two classes or more
TIE = 2

#: two vote totals closer than this are equal (totals are sums of shares, exact to about 1e-15)
_EQUAL = 1e-9


def _majority_class(counts: np.ndarray, shared: int = TIE) -> np.ndarray:
    """Return the class with the most votes per row of ``counts`` (units x 3: model_1, model_2, tie).

    A top shared by two classes or more gives ``shared``: a tie (class 2, the default) or -1 (no
    majority); a row without votes gives -1.
    """
    counts = np.asarray(counts, dtype=float)
    top = counts.max(axis=1, keepdims=True)
    leaders = (counts >= top - _EQUAL).sum(axis=1)
    out = np.where(leaders > 1, shared, counts.argmax(axis=1))
    return np.where(counts.sum(axis=1) > 0, out, -1).astype(np.int64)


def _cohen_kappa(confusion: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each K x K confusion matrix (rows one rater's class, columns the other's).

    kappa = (p_o - p_e) / (1 - p_e), p_o = sum_k C_kk / N the observed agreement and
    p_e = sum_k (C_k. / N)(C_.k / N) the agreement expected from the two marginals (Cohen, J. (1960).
    A coefficient of agreement for nominal scales. *Educational and Psychological Measurement*
    20(1), 37-46). NaN when N = 0 or p_e = 1 (both raters always in one class), as scikit-learn's
    ``cohen_kappa_score``.

    Parameters
    ----------
    confusion : numpy.ndarray
        (..., K, K) counts.

    Returns
    -------
    numpy.ndarray
        (...) kappas.
    """
    c = np.asarray(confusion, dtype=float)
    n = c.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(c, axis1=-2, axis2=-1) / n
        expected = (c.sum(axis=-1) * c.sum(axis=-2)).sum(axis=-1) / (n * n)
        kappa = (observed - expected) / (1.0 - expected)
    return np.where((n > 0) & (expected < 1.0 - _EQUAL), kappa, np.nan)


def _nominal_alpha(unit_counts: np.ndarray) -> float:
    """Krippendorff's alpha, nominal metric, from the number of values of each class in each unit.

    With n_uc the values of class c in unit u and m_u = sum_c n_uc, the pairable units (m_u >= 2)
    give the coincidences o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1), n_c = sum_k o_ck and
    n = sum_c n_c; then

        alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k

    (Krippendorff, K. (2004). *Content Analysis*, 2nd ed.; "Computing Krippendorff's
    alpha-reliability", 2011). Every value counts: a judge with two verdicts on a unit gives two.

    Parameters
    ----------
    unit_counts : numpy.ndarray
        (units, K) counts.

    Returns
    -------
    float
        alpha; NaN with fewer than two pairable values or all of them in one class.
    """
    return alpha_from_coincidences(coincidence_matrix(unit_counts))


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Return Pearson's correlation of two equal-length vectors.

    NaN with fewer than two values or a constant vector. On 0/1 indicators it is the phi coefficient
    (the correlation of two classifiers' oracle outputs in Kuncheva and Whitaker 2003).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    return float(np.clip((dx @ dy) / np.sqrt(sxx * syy), -1.0, 1.0))


def effective_judges(n: int, rho: float) -> float:
    """Return the effective number of independent judges among ``n`` whose errors correlate ``rho`` on average.

    The mean of n equally variable, equicorrelated errors has variance sigma^2 (1 + (n - 1) rho) / n,
    that of the mean of n / (1 + (n - 1) rho) independent ones: the design effect
    deff = 1 + (m - 1) rho of a cluster of m correlated units (Kish, L. (1965). *Survey Sampling*,
    Wiley), so

        n_eff = n / (1 + (n - 1) rho),

    n at rho = 0, 1 at rho = 1. NaN when rho is NaN or n_eff is undefined (1 + (n - 1) rho <= 0,
    i.e. rho <= -1 / (n - 1), below the smallest correlation n equicorrelated variables can have).
    """
    if not np.isfinite(rho) or n < 1:
        return float("nan")
    denominator = 1.0 + (n - 1.0) * float(rho)
    return float(n / denominator) if denominator > 0 else float("nan")
