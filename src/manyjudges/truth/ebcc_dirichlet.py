"""The Dirichlet factors of EBCC's mean-field bound (:mod:`manyjudges.truth.ebcc`).

Log B(a), E log theta under Dirichlet(a), and a factor's term of the ELBO.
"""
from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

__all__ = ["dirichlet_terms", "expected_log", "log_beta"]


def log_beta(a: np.ndarray, axis: int) -> np.ndarray:
    """Log B(a) = sum_c log Gamma(a_c) - log Gamma(sum_c a_c), the components along ``axis``."""
    return gammaln(a).sum(axis=axis) - gammaln(a.sum(axis=axis))


def expected_log(a: np.ndarray, axis: int) -> np.ndarray:
    """E log theta under Dirichlet(a), the components along ``axis``."""
    return digamma(a) - digamma(a.sum(axis=axis, keepdims=True))


def dirichlet_terms(a: np.ndarray, prior: np.ndarray | float, mean_log: np.ndarray, log_b0: float, axis: int) -> float:
    """Sum over the factors of log B(a) - log B(prior) - (a - prior) . E log theta.

    ``mean_log`` = E log theta under Dirichlet(a) and ``log_b0`` = sum of log B(prior).
    """
    return float(log_beta(a, axis).sum() - log_b0 - np.sum((a - prior) * mean_log))
