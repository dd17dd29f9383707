"""The shared step of :class:`~manyjudges.truth.ordinal.OrdinalDawidSkene`: class locations and cut points.

With the workers held, sum_w f_w is concave in the cut table x[t, j] = tau_{j+1} - mu_t; Newton's
method on its free coordinates (mu_1..mu_{K-2}, tau on its sum-zero plane) keeps tau and mu
increasing (formulas: :mod:`manyjudges.truth.ordinal`).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import null_space

from manyjudges.truth.ordinal_probit import HALVINGS, NEWTON_STEPS, _edges, _log_interval, _ratios, default_cuts

__all__ = ["cut_basis", "cut_objective", "newton_cut_step"]



def cut_basis(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learned cut table's parametrisation: x = x0 + J z, flattened [t, j], z = (mu_1..mu_{K-2}, v).

    mu_0 = 0 and mu_{K-1} = K - 1 stay (they fix the scale), the inner mu_t are free, and
    tau = (j + 1/2)_j + N v with N an orthonormal basis of the sum-zero vectors (the cut points'
    mean stays (K - 1) / 2: it fixes the location, which the biases would otherwise share).
    Returns (x0 (K, K - 1), J_mu (K - 2 free mu -> mu, (K, K - 2)), J_tau (K - 2 free v -> tau, (K - 1, K - 2))).
    """
    m = k - 1
    j_mu = np.zeros((k, max(k - 2, 0)))
    j_mu[1:k - 1, :] = np.eye(k - 2)
    j_tau = null_space(np.ones((1, m))) if m > 1 else np.zeros((m, 0))
    return default_cuts(k), j_mu, j_tau


def cut_objective(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, cuts: np.ndarray,
                  derivatives: bool = True) -> tuple[float, np.ndarray | None, np.ndarray | None]:
    """F = sum_w f_w at the cut table x[t, j] = tau_{j+1} - mu_t, its gradient (K, K - 1) and Hessian (K, K - 1, K - 1).

    x[t, j] is the upper edge of bin j and the lower edge of bin j + 1 for true class t, entering
    as u = a_w x + d_w, so (module docstring) dF/dx[t, j] = sum_w a_w (W[w, t, j] r_hi[w, t, j] -
    W[w, t, j + 1] r_lo[w, t, j + 1]); the Hessian is block diagonal in t, tridiagonal in j, with
    d2 log P / du_hi2 = -q_hi - r_hi^2, d2 log P / du_lo2 = q_lo - r_lo^2, d2 log P / du_hi du_lo = r_hi r_lo.
    """
    lo, hi, _, _ = _edges(precision, shift, cuts)
    log_p = _log_interval(lo, hi)
    value = float(np.sum(weights * log_p))
    if not derivatives:
        return value, None, None
    r_hi, q_hi = _ratios(hi, log_p)
    r_lo, q_lo = _ratios(lo, log_p)
    a = np.asarray(precision, dtype=float)
    grad = (np.einsum("w,wtj->tj", a, weights[:, :, :-1] * r_hi[:, :, :-1])
            - np.einsum("w,wtj->tj", a, weights[:, :, 1:] * r_lo[:, :, 1:]))
    a2 = a * a
    diag = (np.einsum("w,wtj->tj", a2, weights[:, :, :-1] * (-q_hi - r_hi * r_hi)[:, :, :-1])
            + np.einsum("w,wtj->tj", a2, weights[:, :, 1:] * (q_lo - r_lo * r_lo)[:, :, 1:]))
    off = np.einsum("w,wtj->tj", a2, weights[:, :, 1:-1] * (r_hi * r_lo)[:, :, 1:-1])  # bin j: x[t, j], x[t, j - 1]
    k, m = cuts.shape
    hess = np.zeros((k, m, m))
    hess[:, np.arange(m), np.arange(m)] = diag
    hess[:, np.arange(1, m), np.arange(m - 1)] = off
    hess[:, np.arange(m - 1), np.arange(1, m)] = off
    return value, grad, hess


def newton_cut_step(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, cuts: np.ndarray,
                    rtol: float = 1e-12) -> np.ndarray:
    """Raise F over the free coordinates z of the cut table (:func:`cut_basis`) with the workers held.

    F is concave in x (u is affine in x), so in z: Newton steps on z (the gradient over the total
    weight when the Newton system is singular or its step does not point uphill), halved until F
    rises by the Armijo share 1e-4 of the predicted gain with the cut points and the class
    locations both increasing (tau_1 < ... < tau_{K-1}, mu_0 < ... < mu_{K-1}); a step that never
    does is refused, so F never falls. At most NEWTON_STEPS steps. Returns the new table.
    """
    k = cuts.shape[0]
    _, j_mu, j_tau = cut_basis(k)
    # dx[t, j] / dz: -J_mu[t] for the mu block, J_tau[j] for the tau block; (K, K - 1, p)
    jac = np.concatenate([np.broadcast_to(-j_mu[:, None, :], (k, k - 1, j_mu.shape[1])),
                          np.broadcast_to(j_tau[None, :, :], (k, k - 1, j_tau.shape[1]))], axis=2)
    if jac.shape[2] == 0:
        return cuts
    total = 1.0 + float(weights.sum())
    for _ in range(NEWTON_STEPS):
        value, grad, hess = cut_objective(precision, shift, weights, cuts)
        assert grad is not None and hess is not None  # derivatives=True (the default) returns both
        g = np.einsum("tjp,tj->p", jac, grad)
        h = np.einsum("tjp,tjl,tlq->pq", jac, hess, jac)
        try:
            step = -np.linalg.solve(h, g)
        except np.linalg.LinAlgError:
            step = g / total
        if not np.all(np.isfinite(step)) or g @ step <= 0:
            step = g / total
        gain = float(g @ step)
        if not gain > rtol * (1.0 + abs(value)):
            break
        t = 1.0
        for _ in range(HALVINGS):
            cand = cuts + t * np.einsum("tjp,p->tj", jac, step)
            # the cut points increasing along j, the class locations mu_t = x[0, 0] - x[t, 0] along t
            if np.all(np.diff(cand, axis=1) > 0) and np.all(np.diff(cand[:, 0]) < 0):
                cand_value, _, _ = cut_objective(precision, shift, weights, cand, derivatives=False)
                if np.isfinite(cand_value) and cand_value >= value + 1e-4 * t * gain and cand_value > value:
                    cuts = cand
                    break
            t *= 0.5
        else:
            break
    return cuts
