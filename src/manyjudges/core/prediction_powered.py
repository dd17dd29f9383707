"""Prediction-powered inference with power tuning (PPI++): a few human labels, many predictions.

Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. and Zrnic, T. (2023). Prediction-powered
inference. Science 382, 669-674. Angelopoulos, A. N., Duchi, J. C. and Zrnic, T. (2023). PPI++: Efficient
prediction-powered inference. arXiv:2311.01453.

Setting: n *labelled* units carry a human label h_i and a prediction l_i (e.g. an LLM judge's verdict);
N *unlabelled* units, disjoint from them, carry a prediction l_j only; every unit is drawn from the same
population. For a convex per-unit loss ``loss_theta`` the PPI++ estimate is

    theta_hat(lambda) = argmin  (1/n) sum_i loss_theta(h_i)
                                + lambda [ (1/N) sum_j loss_theta(l_j) - (1/n) sum_i loss_theta(l_i) ]

(their eq. 2): lambda = 0 uses the humans alone, lambda = 1 is plain PPI, and the bracket (the
*rectifier*, with the sign flipped) removes whatever bias the predictions have on average. With
per-unit gradients g_h,i = grad loss(h_i), g_l,i = grad loss(l_i), g_u,j = grad loss(l_j) at theta_hat
and the Hessian H of the expected loss, its asymptotic covariance (their Theorem 1) is

    Sigma(lambda) = H^-1 [ Cov(g_h - lambda g_l) / n + lambda^2 Cov(g_u) / N ] H^-1

and the lambda minimising tr Sigma (their eq. 6, "power tuning") is

    lambda* = tr(H^-1 (C + C^T) H^-1) / (2 (1 + n / N) tr(H^-1 V H^-1)),   C = Cov(g_h, g_l),
    V = Cov of the predictions' gradients over all n + N units,

clipped to [0, 1]. Covariances use the n - 1 (N - 1) divisor. For the mean (loss (theta - y)^2 / 2,
H = 1) everything is closed form (:func:`ppi_mean`).

**Worth.** The estimate is worth n * tr Sigma(0) / tr Sigma(lambda) human labels
(:func:`worth`): the number of human labels that alone would give the same total variance, both
variances taken at the same theta_hat with the same H (a ratio of traces for a vector).

**Overlap.** When the predictions cover all units, labelled ones included (an LLM judged every unit,
humans a random n of them), put only the predicted units *without* a human label in the unlabelled
set: the estimate with the mean over all n + N predicted units and weight lambda_all equals this one
with lambda = lambda_all N / (n + N), because the labelled units' share of that mean cancels against
the rectifier. Nothing is lost, and the covariance above stays exact (the two sets are independent).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["PPIMean", "power_tuned_lambda", "ppi_covariance", "ppi_mean", "worth"]


def _centred(grads: np.ndarray) -> np.ndarray:
    """Rows minus their column means, as a 2-D float array."""
    grads = np.atleast_2d(np.asarray(grads, dtype=float))
    return grads - grads.mean(axis=0)


def _cov(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sample cross-covariance sum_i (x_i - mean x)(y_i - mean y)^T / (n - 1) of (n, d) rows (0 when n < 2)."""
    n = len(x)
    if n < 2:
        return np.zeros((x.shape[1], y.shape[1]))
    return _centred(x).T @ _centred(y) / (n - 1)


def _as_rows(grads: np.ndarray) -> np.ndarray:
    """Gradients as (units, d): a 1-D array is one scalar gradient per unit."""
    grads = np.asarray(grads, dtype=float)
    return grads[:, None] if grads.ndim == 1 else grads


def power_tuned_lambda(grad_h: np.ndarray, grad_l: np.ndarray, grad_u: np.ndarray,
                       inverse_hessian: np.ndarray) -> float:
    """PPI++'s power-tuned lambda (Angelopoulos, Duchi and Zrnic 2023, eq. 6), clipped to [0, 1].

        lambda* = tr(H^-1 (C + C^T) H^-1) / (2 (1 + n / N) tr(H^-1 V H^-1))

    with C = Cov(g_h, g_l) over the n labelled units and V the covariance of the predictions'
    gradients over all n + N units (``grad_l`` and ``grad_u`` stacked). Rows are units. 0 when there is
    no unlabelled unit or the predictions' gradients do not vary.
    """
    grad_h, grad_l, grad_u = _as_rows(grad_h), _as_rows(grad_l), _as_rows(grad_u)
    n, big_n = len(grad_h), len(grad_u)
    if big_n == 0 or n < 2:
        return 0.0
    hinv = np.atleast_2d(inverse_hessian)
    cross = _cov(grad_h, grad_l)
    stacked = np.vstack([grad_l, grad_u])
    numerator = float(np.trace(hinv @ (cross + cross.T) @ hinv))
    denominator = 2.0 * (1.0 + n / big_n) * float(np.trace(hinv @ _cov(stacked, stacked) @ hinv))
    if not denominator > 0:
        return 0.0
    return float(np.clip(numerator / denominator, 0.0, 1.0))


def ppi_covariance(grad_h: np.ndarray, grad_l: np.ndarray, grad_u: np.ndarray, inverse_hessian: np.ndarray,
                   lam: float) -> np.ndarray:
    """Return the sandwich covariance of the PPI++ estimate (Angelopoulos, Duchi and Zrnic 2023, Theorem 1).

        Sigma = H^-1 [ Cov(g_h - lambda g_l) / n + lambda^2 Cov(g_u) / N ] H^-1

    Rows of the gradients are units (n labelled: ``grad_h``, ``grad_l``; N unlabelled: ``grad_u``).
    """
    grad_h, grad_l, grad_u = _as_rows(grad_h), _as_rows(grad_l), _as_rows(grad_u)
    hinv = np.atleast_2d(inverse_hessian)
    delta = grad_h - lam * grad_l
    middle = _cov(delta, delta) / len(grad_h)
    if len(grad_u) and lam != 0.0:
        middle = middle + lam * lam * _cov(grad_u, grad_u) / len(grad_u)
    return hinv @ middle @ hinv.T


def worth(n: int, covariance_alone: np.ndarray, covariance: np.ndarray) -> float:
    """Return the number of human labels the estimate is worth: n tr(Sigma(0)) / tr(Sigma(lambda)).

    An effective sample size: ``covariance_alone`` is the humans-alone estimate's covariance (lambda = 0),
    ``covariance`` the PPI++ estimate's. NaN when the latter's trace is not positive.
    """
    total = float(np.trace(np.atleast_2d(covariance)))
    return n * float(np.trace(np.atleast_2d(covariance_alone))) / total if total > 0 else float("nan")


class PPIMean(NamedTuple):
    """A PPI++ mean.

    ``estimate``, ``lam`` (lambda), ``variance``, ``variance_alone`` (the humans' mean's), ``worth``
    (:func:`worth`) and ``n`` (labelled units).
    """

    estimate: float
    lam: float
    variance: float
    variance_alone: float
    worth: float
    n: int


def ppi_mean(human: np.ndarray, predicted: np.ndarray, unlabelled: np.ndarray, lam: float | None = None) -> PPIMean:
    """Return the PPI++ estimate of a population mean (Angelopoulos, Duchi and Zrnic 2023, Example 1).

        theta_hat = mean(h) + lambda (mean(l_unlabelled) - mean(l_labelled))
        Var = Var(h - lambda l) / n + lambda^2 Var(l_unlabelled) / N
        lambda* = Cov(h, l) / ((1 + n / N) Var(l over all n + N units)), clipped to [0, 1]

    ``human`` and ``predicted`` are the n labelled units' label and prediction, ``unlabelled`` the N other
    units' predictions; ``lam`` None: power-tuned. The loss (theta - y)^2 / 2 has gradient theta - y and
    H = 1, so this is :func:`ppi_covariance` and :func:`power_tuned_lambda` in closed form.
    """
    human, predicted, unlabelled = (np.asarray(v, dtype=float) for v in (human, predicted, unlabelled))
    if len(human) != len(predicted):
        raise ValueError(f"human and predicted need one value per labelled unit, got {len(human)} and {len(predicted)}")
    if len(human) < 2:
        raise ValueError(f"at least 2 labelled units are needed, got {len(human)}")
    one = np.ones((1, 1))
    if lam is None:
        lam = power_tuned_lambda(-human, -predicted, -unlabelled, one)
    elif not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam}")
    rectifier = float(unlabelled.mean() - predicted.mean()) if len(unlabelled) else 0.0
    estimate = float(human.mean()) + lam * rectifier
    variance = float(ppi_covariance(-human, -predicted, -unlabelled, one, lam)[0, 0])
    alone = float(ppi_covariance(-human, -predicted, -unlabelled, one, 0.0)[0, 0])
    return PPIMean(estimate, float(lam), variance, alone, worth(len(human), np.array(alone), np.array(variance)),
                   len(human))
