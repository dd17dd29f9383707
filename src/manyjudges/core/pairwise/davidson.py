"""The Davidson (1970) model of paired comparisons with ties, on counted pairs: objective, Hessian, fit.

Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in paired
comparison experiments. JASA 65, 317-328. With strengths pi_i = e^{s_i} and tie parameter
nu = e^theta > 0:

    P(i beats j) = pi_i / (pi_i + pi_j + nu sqrt(pi_i pi_j)),
    P(tie)       = nu sqrt(pi_i pi_j) / (pi_i + pi_j + nu sqrt(pi_i pi_j)).

Dividing through by sqrt(pi_i pi_j), with d = s_i - s_j and D = e^{d/2} + e^{-d/2} + e^theta,
log P(i beats j) = d / 2 - log D, log P(j beats i) = -d / 2 - log D, log P(tie) = theta - log D:
log D is a log-sum-exp of linear functions of (s, theta), so the negative log-likelihood is
convex and Newton's method with the exact Hessian converges in a few steps.
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.pairwise.bradley_terry import fit_bt_scores
from manyjudges.core.solvers import lbfgsb, newton_fit

__all__ = ["fit_davidson"]

def _terms(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(d, log D, u, v)``: d = s_a - s_b, u = e^{d/2} / D, v = e^{-d/2} / D (and q = e^theta / D = 1 - u - v)."""
    s, theta = x[:-1], x[-1]
    d = s[a] - s[b]
    log_d = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), theta)
    return d, log_d, np.exp(0.5 * d - log_d), np.exp(-0.5 * d - log_d)


def _davidson_objective(x: np.ndarray, a: np.ndarray, b: np.ndarray, w_a: np.ndarray, w_b: np.ndarray,
                       t: np.ndarray, reg: float) -> tuple[float, np.ndarray]:
    """Negative penalised Davidson log-likelihood of ``x = (s, theta)`` and its gradient.

    Per judged pair (a, b) with w_a wins of a, w_b wins of b and t ties, N = w_a + w_b + t:

        f = sum_pairs [N log D - (w_a - w_b) d / 2 - t theta] + reg ||s||^2 / 2 + (sum s)^2 / 2
        df/dd     = N (u - v) / 2 - (w_a - w_b) / 2       (u = e^{d/2} / D, v = e^{-d/2} / D)
        df/dtheta = sum_pairs N q - t                      (q = e^theta / D)

    The last term only fixes the common shift of s, which the likelihood does not see: the
    likelihood's gradient sums to 0 over s, so at the optimum sum(s) = 0 and the term is 0.
    """
    s, theta = x[:-1], x[-1]
    d, log_d, u, v = _terms(x, a, b)
    total = w_a + w_b + t
    value = float(total @ log_d - 0.5 * ((w_a - w_b) @ d) - theta * t.sum())
    value += 0.5 * reg * float(s @ s) + 0.5 * float(s.sum()) ** 2
    dd = 0.5 * (total * (u - v) - (w_a - w_b))
    n = len(s)
    grad = np.empty(n + 1)
    grad[:n] = np.bincount(a, weights=dd, minlength=n) - np.bincount(b, weights=dd, minlength=n) + reg * s + s.sum()
    grad[n] = float(total @ (1.0 - u - v) - t.sum())
    return value, grad


def _davidson_hessian(x: np.ndarray, a: np.ndarray, b: np.ndarray, w_a: np.ndarray, w_b: np.ndarray,
                     t: np.ndarray, reg: float) -> np.ndarray:
    """Hessian of :func:`_davidson_objective`, dense (n + 1, n + 1).

        d2 log D / dd2 = (u + v) / 4 - (u - v)^2 / 4,  d2 log D / dd dtheta = -(u - v) q / 2,
        d2 log D / dtheta2 = q (1 - q);
    times N, the dd term spread as a graph Laplacian over s, plus reg I + 1 1^T on the s block.
    """
    n = len(x) - 1
    _, _, u, v = _terms(x, a, b)
    q = 1.0 - u - v
    total = w_a + w_b + t
    h = total * ((u + v) - (u - v) ** 2) / 4.0
    cross = -total * (u - v) * q / 2.0
    hess = np.zeros((n + 1, n + 1))
    np.add.at(hess, (a, b), -h)
    np.add.at(hess, (b, a), -h)
    hess[np.arange(n), np.arange(n)] += np.bincount(a, weights=h, minlength=n) + np.bincount(b, weights=h, minlength=n)
    hess[:n, :n] += reg * np.eye(n) + 1.0
    col = np.bincount(a, weights=cross, minlength=n) - np.bincount(b, weights=cross, minlength=n)
    hess[:n, n] = col
    hess[n, :n] = col
    hess[n, n] = float(total @ (q * (1.0 - q)))
    return hess


def fit_davidson(a: np.ndarray, b: np.ndarray, w_a: np.ndarray, w_b: np.ndarray, t: np.ndarray, n_models: int,
                 reg: float, x0: np.ndarray | None = None, max_iter: int = 200, tol: float = 1e-10) -> np.ndarray:
    """Return ``x = (s, theta)`` minimising :func:`_davidson_objective`.

    Damped Newton (:func:`~manyjudges.core.solvers.damped_newton`, then
    :func:`~manyjudges.core.solvers.newton_polish`) from ``x0`` (default s = 0 and theta = log(2 tau /
    (1 - tau)), tau = the share of ties, the tie parameter of equal strengths); L-BFGS-B if Newton
    fails. A given ``x0`` with finite theta (a replicate's full-data fit) first tries
    :func:`~manyjudges.core.solvers.newton_warm`.

    Without a tie the likelihood grows as theta -> -inf (nu -> 0: Bradley-Terry without ties), so
    the result is the Bradley-Terry fit of the wins (same ``reg``) and theta = -inf; with ties only,
    it grows as theta -> +inf for any s, so the result is s = 0 and theta = +inf. (A bootstrap
    replicate of a data set with few ties can be either.)
    """
    ties, verdicts = float(t.sum()), float((w_a + w_b + t).sum())
    if ties <= 0:
        return np.concatenate([fit_bt_scores(a, b, w_a, w_b, n_models, reg, max_iter=max_iter, tol=tol,
                                             x0=None if x0 is None else x0[:-1]), [-np.inf]])
    if ties >= verdicts:
        return np.concatenate([np.zeros(n_models), [np.inf]])
    warm = x0 is not None and bool(np.isfinite(x0[-1]))
    if not warm:
        tau = ties / verdicts
        x0 = np.concatenate([np.zeros(n_models), [np.log(2.0 * tau / (1.0 - tau))]])

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        return _davidson_objective(x, a, b, w_a, w_b, t, reg)

    def hess(x: np.ndarray) -> np.ndarray:
        return _davidson_hessian(x, a, b, w_a, w_b, t, reg)

    x = newton_fit(fun, hess, np.asarray(x0, dtype=float), warm, max_iter, tol)
    if x is None:
        x = lbfgsb(fun, np.asarray(x0, dtype=float), None, maxiter=100 * max_iter, gtol=tol, ftol=1e-15,
                   maxcor=20)[0]
    return x

