"""The ordered-probit confusion of :class:`~manyjudges.truth.ordinal.OrdinalDawidSkene` and its worker step.

P_w(c | t) = (1 - l_w) [Phi(a_w x_hi + d_w) - Phi(a_w x_lo + d_w)] + l_w / K, with a_w = 1 / s_w,
d_w = -b_w / s_w and x the cut table tau - mu_t (the formulas, their derivatives and the Newton
step on each worker's concave f_w: :mod:`manyjudges.truth.ordinal`).
"""
from __future__ import annotations

from typing import cast

import numpy as np
from scipy.special import log_ndtr

__all__ = ["HALVINGS", "NEWTON_STEPS", "PRECISION_BOUNDS", "SHIFT_LIMIT", "default_cuts", "newton_m_step",
           "ordinal_confusion", "ordinal_log_confusion", "worker_objective"]


#: the box of the M-step: a = 1 / s in PRECISION_BOUNDS (s in [0.01, 100]), |d| = |b| / s <= SHIFT_LIMIT * K
PRECISION_BOUNDS = (0.01, 100.0)
SHIFT_LIMIT = 100.0
#: Newton steps per M-step at most, and step halvings per Newton step
NEWTON_STEPS = 20
HALVINGS = 30
_LOG_SQRT_2PI = 0.5 * float(np.log(2.0 * np.pi))


def default_cuts(k: int) -> np.ndarray:
    """(K, K - 1) the equally spaced table x[t, j] = tau_{j+1} - mu_t = j + 1/2 - t (mu_t = t, tau_c = c - 1/2;
    column j, 0-based, holds the cut point between classes j and j + 1)."""
    return np.arange(k - 1)[None, :] + 0.5 - np.arange(k)[:, None].astype(float)


def _edges(precision: np.ndarray, shift: np.ndarray, cuts: np.ndarray | int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, K, K) bin edges u_lo, u_hi of class c for true class t, [w, t, c], and their (K, K) slopes in a.

    ``cuts`` is the (K, K - 1) table x[t, j] = tau_{j+1} - mu_t (j = 0..K-2), or K for the equally spaced one.
    """
    cuts = default_cuts(cast(int, cuts)) if np.ndim(cuts) == 0 else np.asarray(cuts, dtype=float)
    k = cuts.shape[0]
    x_lo, x_hi = np.zeros((k, k)), np.zeros((k, k))
    x_lo[:, 1:] = cuts
    x_hi[:, :-1] = cuts
    a = np.asarray(precision, dtype=float)[:, None, None]
    d = np.asarray(shift, dtype=float)[:, None, None]
    lo, hi = a * x_lo + d, a * x_hi + d
    lo[:, :, 0] = -np.inf
    hi[:, :, k - 1] = np.inf
    return lo, hi, x_lo, x_hi


def _log_interval(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """log(Phi(hi) - Phi(lo)) for lo < hi, elementwise, on the reflected interval when lo > 0."""
    flip = lo > 0
    x = np.where(flip, -hi, lo)
    y = np.where(flip, -lo, hi)
    log_y = log_ndtr(y)
    with np.errstate(invalid="ignore"):
        diff = log_ndtr(x) - log_y
    return log_y + np.log(-np.expm1(diff))


def _natural(bias: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, d) = (1 / s, -b / s)."""
    scale = np.asarray(scale, dtype=float)
    return 1.0 / scale, -np.asarray(bias, dtype=float) / scale


def _mix_lapse(log_probit: np.ndarray, lapse: np.ndarray | None) -> np.ndarray:
    """log((1 - l_w) P + l_w / K) from log P, (W, K, K); log P itself when ``lapse`` is None."""
    if lapse is None:
        return log_probit
    lapse = np.asarray(lapse, dtype=float)[:, None, None]
    k = log_probit.shape[2]
    with np.errstate(divide="ignore"):
        return np.logaddexp(np.log1p(-lapse) + log_probit, np.log(lapse / k))


def ordinal_log_confusion(bias: np.ndarray, scale: np.ndarray, k: int, cuts: np.ndarray | None = None,
                          lapse: np.ndarray | None = None) -> np.ndarray:
    """(W, K, K) log P_w(c | t), [w, t, c] (module docstring); ``cuts`` the (K, K - 1) table tau_{j+1} - mu_t
    (None: equally spaced), ``lapse`` the workers' l_w (None: no lapses)."""
    lo, hi, _, _ = _edges(*_natural(bias, scale), k if cuts is None else cuts)
    return _mix_lapse(_log_interval(lo, hi), lapse)


def ordinal_confusion(bias: np.ndarray, scale: np.ndarray, k: int, cuts: np.ndarray | None = None,
                      lapse: np.ndarray | None = None) -> np.ndarray:
    """(W, K, K) P_w(c | t) = (1 - l_w) [Phi((tau_{c+1} - mu_t - b_w) / s_w) - Phi((tau_c - mu_t - b_w) / s_w)]
    + l_w / K, end bins open (tau_0 = -inf, tau_K = +inf); by default tau_c - mu_t = c - 1/2 - t and l_w = 0."""
    return np.exp(ordinal_log_confusion(bias, scale, k, cuts, lapse))


def _ratios(u: np.ndarray, log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r(u) = phi(u) / P and q(u) = u r(u), both 0 at an infinite edge."""
    finite = np.isfinite(u)
    uf = np.where(finite, u, 0.0)
    r = np.exp(np.where(finite, -0.5 * uf * uf - _LOG_SQRT_2PI - log_p, -np.inf))
    return r, uf * r


def worker_objective(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, derivatives: bool = True,
                     cuts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Each worker's f_w = sum_{t, c} weights[w, t, c] log P_w(c | t) at (a_w, d_w), with its gradient and Hessian.

    P_w is the probit part (no lapses) on the cut table ``cuts`` (None: equally spaced). Returns
    (f (W,), gradient (W, 2) in (a, d), Hessian (W, 2, 2)); the last two None unless ``derivatives``.
    """
    k = weights.shape[1]
    lo, hi, x_lo, x_hi = _edges(precision, shift, k if cuts is None else cuts)
    log_p = _log_interval(lo, hi)
    value = np.sum(weights * log_p, axis=(1, 2))
    if not derivatives:
        return value, None, None
    r_hi, q_hi = _ratios(hi, log_p)
    r_lo, q_lo = _ratios(lo, log_p)
    g_a = r_hi * x_hi - r_lo * x_lo
    g_d = r_hi - r_lo
    h_aa = -q_hi * x_hi ** 2 + q_lo * x_lo ** 2 - g_a * g_a
    h_ad = -q_hi * x_hi + q_lo * x_lo - g_a * g_d
    h_dd = -q_hi + q_lo - g_d * g_d
    grad = np.stack([np.sum(weights * g_a, axis=(1, 2)), np.sum(weights * g_d, axis=(1, 2))], axis=1)
    hess = np.empty((len(value), 2, 2))
    hess[:, 0, 0] = np.sum(weights * h_aa, axis=(1, 2))
    hess[:, 0, 1] = hess[:, 1, 0] = np.sum(weights * h_ad, axis=(1, 2))
    hess[:, 1, 1] = np.sum(weights * h_dd, axis=(1, 2))
    return value, grad, hess


def _clip(precision: np.ndarray, shift: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, d) clipped into the box PRECISION_BOUNDS x [-SHIFT_LIMIT K, SHIFT_LIMIT K]."""
    return np.clip(precision, *PRECISION_BOUNDS), np.clip(shift, -SHIFT_LIMIT * k, SHIFT_LIMIT * k)


def newton_m_step(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, rtol: float = 1e-12,
                  cuts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Maximise every worker's concave f_w over (a_w, d_w) in the box by projected Newton steps (module docstring).

    A coordinate at a bound whose derivative points out of the box is held there; the step is
    Newton's on the free coordinates (the gradient over the worker's total weight where the
    Hessian is not negative definite), clipped into the box and halved until f_w rises by the
    Armijo share 1e-4 of the predicted gain g . step. A worker stops when that gain is below
    ``rtol`` (1 + |f_w|) or no halving raises f_w (it then keeps its point), so no f_w falls.
    At most NEWTON_STEPS steps. ``cuts``: the cut table (None: equally spaced).
    """
    k = weights.shape[1]
    a, d = _clip(np.asarray(precision, dtype=float), np.asarray(shift, dtype=float), k)  # new arrays
    total = 1.0 + weights.sum(axis=(1, 2))
    limit = SHIFT_LIMIT * k
    low, high = PRECISION_BOUNDS
    # the workers still moving: a worker that stops (no gain, or no halving helps) never moves again,
    # so each step evaluates only these (per worker the same arithmetic as on all of them)
    active = np.arange(len(a))
    for _ in range(NEWTON_STEPS):
        a_w, d_w, total_w = a[active], d[active], total[active]
        value, grad, hess = worker_objective(a_w, d_w, weights[active], cuts=cuts)
        assert grad is not None and hess is not None  # derivatives=True (the default) returns both
        free_a = ~(((a_w <= low) & (grad[:, 0] < 0)) | ((a_w >= high) & (grad[:, 0] > 0)))
        free_d = ~(((d_w <= -limit) & (grad[:, 1] < 0)) | ((d_w >= limit) & (grad[:, 1] > 0)))
        both = free_a & free_d
        det = hess[:, 0, 0] * hess[:, 1, 1] - hess[:, 0, 1] ** 2
        newton_both = both & (hess[:, 0, 0] < 0) & (det > 0)
        safe_det = np.where(newton_both, det, 1.0)
        step_a = np.where(newton_both, -(hess[:, 1, 1] * grad[:, 0] - hess[:, 0, 1] * grad[:, 1]) / safe_det,
                          grad[:, 0] / total_w)
        step_d = np.where(newton_both, -(hess[:, 0, 0] * grad[:, 1] - hess[:, 0, 1] * grad[:, 0]) / safe_det,
                          grad[:, 1] / total_w)
        # one free coordinate: the one-dimensional Newton step on it
        only_a = free_a & ~free_d
        only_d = free_d & ~free_a
        step_a = np.where(only_a & (hess[:, 0, 0] < 0), -grad[:, 0] / np.where(hess[:, 0, 0] < 0, hess[:, 0, 0], -1.0),
                          step_a)
        step_d = np.where(only_d & (hess[:, 1, 1] < 0), -grad[:, 1] / np.where(hess[:, 1, 1] < 0, hess[:, 1, 1], -1.0),
                          step_d)
        step_a = np.where(free_a, step_a, 0.0)
        step_d = np.where(free_d, step_d, 0.0)
        gain = grad[:, 0] * step_a + grad[:, 1] * step_d
        todo = gain > rtol * (1.0 + np.abs(value))
        active, value, gain = active[todo], value[todo], gain[todo]
        step_a, step_d = step_a[todo], step_d[todo]
        if not len(active):
            break
        pending = np.ones(len(active), dtype=bool)
        t = 1.0
        for _ in range(HALVINGS):
            who = active[pending]
            cand_a, cand_d = _clip(a[who] + t * step_a[pending], d[who] + t * step_d[pending], k)
            cand_value, _, _ = worker_objective(cand_a, cand_d, weights[who], derivatives=False, cuts=cuts)
            accept = (np.isfinite(cand_value) & (cand_value >= value[pending] + 1e-4 * t * gain[pending])
                      & (cand_value > value[pending]))
            a[who[accept]] = cand_a[accept]
            d[who[accept]] = cand_d[accept]
            pending[np.flatnonzero(pending)[accept]] = False
            if not pending.any():
                break
            t *= 0.5
        active = active[~pending]  # a worker no halving helped keeps its point and stops
    return a, d
