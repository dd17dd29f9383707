"""Bradley-Terry with covariates, per verdict: Chatbot Arena's style control, written out.

Each verdict i shows model a_i first and b_i second and has P covariates x_i (the answers' feature
differences, :func:`feature_differences`, standardised by :func:`standardised`). The model is

    P(a_i beats b_i) = sigma(s_{a_i} - s_{b_i} + x_i . gamma)

(Li, Angelopoulos and Chiang 2024, "Does style matter? Disentangling style and substance in Chatbot
Arena", lmsys.org blog: a logistic regression of the outcome on the models' +-1 indicators and the
style features). A verdict's outcome y_i is 1 when a_i wins, 0 when b_i wins, 1/2 for a tie (half a
win each way, as :func:`~manyjudges.core.pairwise.bradley_terry.bt_objective` counts it), with a
weight w_i (a bootstrap replicate's multiplicity). The fit minimises

    f(s, gamma) = sum_i w_i [y_i log(1 + e^{-z_i}) + (1 - y_i) log(1 + e^{z_i})]
                  + reg (||s||^2 + ||gamma||^2) / 2 + (sum_m s_m)^2 / 2,   z_i = s_{a_i} - s_{b_i} + x_i . gamma

The ridge ``reg`` is on the scores and on gamma alike (the MAP under N(0, 1 / reg) priors: with
few verdicts a covariate can separate the outcomes, and gamma would have no finite maximum); the
last term fixes the common shift
of s without moving the optimum (the likelihood's gradient in s sums to 0), so the scores come out
centred to mean 0 and Newton's method works also for ``reg = 0``. With no covariates (P = 0) f is
the Bradley-Terry objective of the leaderboard's ``bradley_terry`` summed per verdict instead of per
pair: the same scores.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import expit

from manyjudges.core.solvers import damped_newton, lbfgsb, newton_polish, newton_warm

__all__ = ["covariate_hessian", "covariate_objective", "feature_differences", "fit_covariate_bt", "incidence",
           "standardised"]


def feature_differences(f_a: np.ndarray, f_b: np.ndarray) -> np.ndarray:
    """Return (f_a - f_b) / (f_a + f_b) elementwise, 0 where both are 0.

    The normalised difference of a feature of the answer shown first and the one shown second (Li et
    al. 2024): 500 against 520 tokens is a small difference, 20 against 40 a large one.
    """
    f_a, f_b = np.asarray(f_a, dtype=float), np.asarray(f_b, dtype=float)
    total = f_a + f_b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((f_a == 0) & (f_b == 0), 0.0, (f_a - f_b) / np.where(total == 0, 1.0, total))


def standardised(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(z, mean, sd)``: each column of ``d`` (n, P) minus its mean, over its standard deviation.

    z = (d - mean) / sd with sd the population standard deviation (ddof 0), as Arena normalises its
    style features. A constant column (sd = 0) is a ValueError naming its position.
    """
    d = np.asarray(d, dtype=float)
    mean = d.mean(axis=0)
    sd = d.std(axis=0)
    flat = np.flatnonzero(~(sd > 1e-12 * np.maximum(1.0, np.abs(mean))))
    if len(flat):
        raise ValueError(f"covariate column {int(flat[0])} is constant over the verdicts: it cannot be controlled for")
    return (d - mean) / sd, mean, sd


def incidence(a: np.ndarray, b: np.ndarray, n_models: int) -> sparse.csr_matrix:
    """Return the (n, n_models) sparse matrix E with E[i, a_i] = 1 and E[i, b_i] = -1 (so E s = s_a - s_b)."""
    n = len(a)
    rows = np.concatenate([np.arange(n), np.arange(n)])
    values = np.concatenate([np.ones(n), -np.ones(n)])
    return sparse.csr_matrix((values, (rows, np.concatenate([a, b]))), shape=(n, n_models))


def covariate_objective(theta: np.ndarray, e: sparse.csr_matrix, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                        reg: float) -> tuple[float, np.ndarray]:
    """Return f(s, gamma) of the module docstring and its gradient; ``theta`` = (s, gamma), ``e`` = :func:`incidence`.

    With r_i = w_i (sigma(z_i) - y_i): df/ds = E^T r + reg s + sum(s), df/dgamma = x^T r + reg gamma.
    """
    m = e.shape[1]
    s, gamma = theta[:m], theta[m:]
    z = e @ s + x @ gamma
    value = float(w @ (y * np.logaddexp(0.0, -z) + (1.0 - y) * np.logaddexp(0.0, z)))
    total = float(s.sum())
    value += 0.5 * reg * float(theta @ theta) + 0.5 * total * total
    r = w * (expit(z) - y)
    grad = np.concatenate([e.T @ r + reg * s + total, x.T @ r + reg * gamma])
    return value, grad


def covariate_hessian(theta: np.ndarray, e: sparse.csr_matrix, x: np.ndarray, w: np.ndarray, reg: float
                      ) -> np.ndarray:
    """Return the dense Hessian of :func:`covariate_objective`, ((M + P), (M + P)).

    With h_i = w_i sigma(z_i) (1 - sigma(z_i)) and J = [E, x]: H = J^T diag(h) J + reg I
    + 1 in every entry of the s block (the centring term).
    """
    m = e.shape[1]
    z = e @ theta[:m] + x @ theta[m:]
    p = expit(z)
    h = w * p * (1.0 - p)
    eh = e.T.multiply(h).tocsr()  # E^T diag(h)
    h_ss = (eh @ e).toarray() + reg * np.eye(m) + 1.0
    h_sg = np.asarray(eh @ x).reshape(m, x.shape[1])
    h_gg = (x * h[:, None]).T @ x + reg * np.eye(x.shape[1])
    return np.block([[h_ss, h_sg], [h_sg.T, h_gg]])


def fit_covariate_bt(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, n_models: int,
                     reg: float, x0: np.ndarray | None = None, max_iter: int = 1000, tol: float = 1e-10
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Minimise :func:`covariate_objective`; return ``(s, gamma)``, s centred to mean 0.

    ``a``, ``b``: each verdict's first and second model codes; ``x``: (n, P) covariates; ``y``: the
    outcome (1, 0 or 1/2); ``w``: the weights. From ``x0`` = (s, gamma) (a bootstrap replicate starts
    from the full-data fit): full Newton steps (:func:`~manyjudges.core.solvers.newton_warm`) first;
    else, or from 0, damped Newton with the Hessian :func:`covariate_hessian` and
    :func:`~manyjudges.core.solvers.newton_polish`; L-BFGS-B when Newton fails (a singular Hessian:
    a covariate constant over the weighted verdicts).
    """
    x = np.asarray(x, dtype=float).reshape(len(a), -1)
    e = incidence(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64), n_models)
    y, w = np.asarray(y, dtype=float), np.asarray(w, dtype=float)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        return covariate_objective(theta, e, x, y, w, reg)

    def hess(theta: np.ndarray) -> np.ndarray:
        return covariate_hessian(theta, e, x, w, reg)

    start = np.zeros(n_models + x.shape[1]) if x0 is None else np.asarray(x0, dtype=float)
    theta = None if x0 is None else newton_warm(fun, hess, start, tol)
    if theta is None:
        theta = damped_newton(fun, hess, start, max_iter, tol)
        if theta is not None:
            theta = newton_polish(fun, hess, theta, tol=tol)
    if theta is None:
        theta = lbfgsb(fun, start, None, maxiter=max_iter, gtol=tol, ftol=1e-15, maxcor=20)[0]
    s = theta[:n_models]
    return s - s.mean(), theta[n_models:]
