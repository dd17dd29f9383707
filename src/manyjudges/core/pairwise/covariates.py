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
from scipy.special import expit

from manyjudges.core.solvers import lbfgsb, newton_fit

__all__ = ["covariate_hessian", "feature_differences", "fit_covariate_bt", "standardised"]


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


def _covariate_objective(theta: np.ndarray, a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray,
                        w: np.ndarray, reg: float) -> tuple[float, np.ndarray]:
    """Return f(s, gamma) of the module docstring and its gradient; ``theta`` = (s, gamma).

    With r_i = w_i (sigma(z_i) - y_i): df/ds_m = sum_{i: a_i = m} r_i - sum_{i: b_i = m} r_i + reg s_m
    + sum(s), df/dgamma = x^T r + reg gamma (``np.bincount``, no matrix of the verdicts).
    """
    m = len(theta) - x.shape[1]
    s, gamma = theta[:m], theta[m:]
    z = s[a] - s[b] + x @ gamma
    # y log(1 + e^{-z}) + (1 - y) log(1 + e^{z}) = log(1 + e^{z}) - y z
    value = float(w @ (np.logaddexp(0.0, z) - y * z))
    total = float(s.sum())
    value += 0.5 * reg * float(theta @ theta) + 0.5 * total * total
    r = w * (expit(z) - y)
    grad_s = np.bincount(a, weights=r, minlength=m) - np.bincount(b, weights=r, minlength=m) + reg * s + total
    return value, np.concatenate([grad_s, x.T @ r + reg * gamma])


def covariate_hessian(theta: np.ndarray, a: np.ndarray, b: np.ndarray, x: np.ndarray, w: np.ndarray, reg: float
                      ) -> np.ndarray:
    """Return the dense Hessian of :func:`_covariate_objective`, ((M + P), (M + P)).

    With h_i = w_i sigma(z_i) (1 - sigma(z_i)) and J_i = (e_{a_i} - e_{b_i}, x_i) the verdict's row of
    the design: H = sum_i h_i J_i J_i^T + reg I + 1 in every entry of the s block (the centring
    term). The s block is a graph Laplacian of the h summed per ordered pair (one ``np.bincount``);
    the (s, gamma) block is sum_{i: a_i = m} h_i x_i - sum_{i: b_i = m} h_i x_i.
    """
    m, p = len(theta) - x.shape[1], x.shape[1]
    z = theta[a] - theta[b] + x @ theta[m:]
    q = expit(z)
    h = w * q * (1.0 - q)
    pair = np.bincount(a * m + b, weights=h, minlength=m * m).reshape(m, m)
    h_ss = -(pair + pair.T) + reg * np.eye(m) + 1.0
    h_ss[np.diag_indices(m)] += pair.sum(axis=1) + pair.sum(axis=0)
    hx = x * h[:, None]
    h_sg = np.stack([np.bincount(a, weights=hx[:, k], minlength=m) - np.bincount(b, weights=hx[:, k], minlength=m)
                     for k in range(p)], axis=1) if p else np.zeros((m, 0))
    h_gg = hx.T @ x + reg * np.eye(p)
    return np.block([[h_ss, h_sg], [h_sg.T, h_gg]])


def fit_covariate_bt(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, n_models: int,
                     reg: float, x0: np.ndarray | None = None, max_iter: int = 1000, tol: float = 1e-10
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Minimise :func:`_covariate_objective`; return ``(s, gamma)``, s centred to mean 0.

    ``a``, ``b``: each verdict's first and second model codes; ``x``: (n, P) covariates; ``y``: the
    outcome (1, 0 or 1/2); ``w``: the weights. From ``x0`` = (s, gamma) (a bootstrap replicate starts
    from the full-data fit): full Newton steps (:func:`~manyjudges.core.solvers.newton_warm`) first;
    else, or from 0, damped Newton with the Hessian :func:`covariate_hessian` and
    :func:`~manyjudges.core.solvers.newton_polish`; L-BFGS-B when Newton fails (a singular Hessian:
    a covariate constant over the weighted verdicts).
    """
    x = np.asarray(x, dtype=float).reshape(len(a), -1)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    y, w = np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    used = w > 0  # a verdict of weight 0 (not drawn in a replicate) adds nothing
    if not used.all():
        a, b, x, y, w = a[used], b[used], x[used], y[used], w[used]

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        return _covariate_objective(theta, a, b, x, y, w, reg)

    def hess(theta: np.ndarray) -> np.ndarray:
        return covariate_hessian(theta, a, b, x, w, reg)

    start = np.zeros(n_models + x.shape[1]) if x0 is None else np.asarray(x0, dtype=float)
    theta = newton_fit(fun, hess, start, x0 is not None, max_iter, tol)
    if theta is None:
        theta = lbfgsb(fun, start, None, maxiter=max_iter, gtol=tol, ftol=1e-15, maxcor=20)[0]
    s = theta[:n_models]
    return s - s.mean(), theta[n_models:]
