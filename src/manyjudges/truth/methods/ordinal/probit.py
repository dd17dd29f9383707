"""The ordered-probit confusion of ``OrdinalDawidSkene`` (in this package) and its two Newton steps.

P_w(c | t) = (1 - l_w) [Phi(a_w x_hi + d_w) - Phi(a_w x_lo + d_w)] + l_w / K, with a_w = 1 / s_w,
d_w = -b_w / s_w and x the cut table tau - mu_t (the formulas, their derivatives and the Newton
steps: :mod:`manyjudges.truth.methods.ordinal.estimator`). Both steps raise the same probit log-likelihood, built on
the same bin edges and log-intervals: the judge step each judge's concave f_w over (a_w, d_w)
(:func:`_newton_m_step`); the shared step, with the judges held, sum_w f_w over the class locations
and cut points, on the free coordinates of the cut table (mu_1..mu_{K-2}, tau on its sum-zero plane),
keeping tau and mu increasing (:func:`_newton_cut_step`).
"""
from __future__ import annotations

from typing import cast

import numpy as np
from scipy.linalg import null_space
from scipy.special import log_ndtr

#: the box of the M-step: a = 1 / s in PRECISION_BOUNDS (s in [0.01, 100]), |d| = |b| / s <= SHIFT_LIMIT * K
_PRECISION_BOUNDS = (0.01, 100.0)
_SHIFT_LIMIT = 100.0
#: Newton steps per M-step at most, and step halvings per Newton step
_NEWTON_STEPS = 20
_HALVINGS = 30
#: a Newton step (negative definite Hessian) whose predicted gain is below TRUSTED_GAIN (1 + |f|) is taken whole,
#: unchecked: f cannot show so small a rise (its rounding is ~1e-16 |f|), and Newton's method converges there
#: quadratically. Checking it would stop each solve ~sqrt(1e-16) from its maximiser, and EM at one of many points
#: that differ by 4e-6 in a posterior (measured): the map's fixed point would depend on the path
_TRUSTED_GAIN = 1e-9
#: the Newton steps stop once the predicted gain is below STOP_GAIN (1 + |f|): the maximiser to rounding
_STOP_GAIN = 1e-24
_LOG_SQRT_2PI = 0.5 * float(np.log(2.0 * np.pi))


def _default_cuts(k: int) -> np.ndarray:
    """(K, K - 1) the equally spaced table x[t, j] = tau_{j+1} - mu_t = j + 1/2 - t.

    Here mu_t = t, tau_c = c - 1/2; column j, 0-based, holds the cut point between classes j and j + 1.
    """
    return np.arange(k - 1)[None, :] + 0.5 - np.arange(k)[:, None].astype(float)


def _edges(precision: np.ndarray, shift: np.ndarray, cuts: np.ndarray | int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, K, K) bin edges u_lo, u_hi of class c for true class t, [w, t, c], and their (K, K) slopes in a.

    ``cuts`` is the (K, K - 1) table x[t, j] = tau_{j+1} - mu_t (j = 0..K-2), or K for the equally spaced one.
    """
    cuts = _default_cuts(cast(int, cuts)) if np.ndim(cuts) == 0 else np.asarray(cuts, dtype=float)
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
    """Return (a, d) = (1 / s, -b / s)."""
    scale = np.asarray(scale, dtype=float)
    return 1.0 / scale, -np.asarray(bias, dtype=float) / scale


def _log_probit_confusion(precision: np.ndarray, shift: np.ndarray, cuts: np.ndarray | int) -> np.ndarray:
    """(W, K, K) log P*_w(c | t), [w, t, c], the probit part (no lapses).

    At the judges' (a_w, d_w) = (``precision``, ``shift``) on the cut table ``cuts`` (K for the equally spaced
    one).
    """
    lo, hi, _, _ = _edges(precision, shift, cuts)
    return _log_interval(lo, hi)


def _mix_lapse(log_probit: np.ndarray, lapse: np.ndarray | None) -> np.ndarray:
    """log((1 - l_w) P + l_w / K) from log P, (W, K, K); log P itself when ``lapse`` is None."""
    if lapse is None:
        return log_probit
    lapse = np.clip(np.asarray(lapse, dtype=float), 0.0, 1.0)[:, None, None]  # a rounding past 1 is 1, not NaN
    k = log_probit.shape[2]
    with np.errstate(divide="ignore"):
        return np.logaddexp(np.log1p(-lapse) + log_probit, np.log(lapse / k))


def _ordinal_log_confusion(bias: np.ndarray, scale: np.ndarray, k: int, cuts: np.ndarray | None = None,
                          lapse: np.ndarray | None = None) -> np.ndarray:
    """(W, K, K) log P_w(c | t), [w, t, c] (module docstring).

    ``cuts`` the (K, K - 1) table tau_{j+1} - mu_t (None: equally spaced), ``lapse`` the judges' l_w (None: no
    lapses).
    """
    return _mix_lapse(_log_probit_confusion(*_natural(bias, scale), k if cuts is None else cuts), lapse)


def _ordinal_confusion(bias: np.ndarray, scale: np.ndarray, k: int, cuts: np.ndarray | None = None,
                      lapse: np.ndarray | None = None) -> np.ndarray:
    """(W, K, K) P_w(c | t), the ordered-probit confusions with lapses.

    P_w(c | t) = (1 - l_w) [Phi((tau_{c+1} - mu_t - b_w) / s_w) - Phi((tau_c - mu_t - b_w) / s_w)]
    + l_w / K, end bins open (tau_0 = -inf, tau_K = +inf); by default tau_c - mu_t = c - 1/2 - t and l_w = 0.
    """
    return np.exp(_ordinal_log_confusion(bias, scale, k, cuts, lapse))


def _ratios(u: np.ndarray, log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r(u) = phi(u) / P and q(u) = u r(u), both 0 at an infinite edge."""
    finite = np.isfinite(u)
    uf = np.where(finite, u, 0.0)
    r = np.exp(np.where(finite, -0.5 * uf * uf - _LOG_SQRT_2PI - log_p, -np.inf))
    return r, uf * r


def _judge_objective(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, derivatives: bool = True,
                     cuts: np.ndarray | None = None, ridge: float = 0.0
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Each judge's f_w at (a_w, d_w), with its gradient and Hessian.

    f_w = sum_{t, c} weights[w, t, c] log P_w(c | t) - rho/2 ((a_w - 1)^2 + d_w^2).

    P_w is the probit part (no lapses) on the cut table ``cuts`` (None: equally spaced); rho = ``ridge``,
    the Gaussian prior's precision (0: the likelihood alone; f_w stays concave either way). Returns
    (f (W,), gradient (W, 2) in (a, d), Hessian (W, 2, 2)); the last two None unless ``derivatives``.
    """
    k = weights.shape[1]
    lo, hi, x_lo, x_hi = _edges(precision, shift, k if cuts is None else cuts)
    log_p = _log_interval(lo, hi)
    a_dev = np.asarray(precision, dtype=float) - 1.0
    d_dev = np.asarray(shift, dtype=float)
    value = np.sum(weights * log_p, axis=(1, 2)) - 0.5 * ridge * (a_dev * a_dev + d_dev * d_dev)
    if not derivatives:
        return value, None, None
    r_hi, q_hi = _ratios(hi, log_p)
    r_lo, q_lo = _ratios(lo, log_p)
    g_a = r_hi * x_hi - r_lo * x_lo
    g_d = r_hi - r_lo
    h_aa = -q_hi * x_hi ** 2 + q_lo * x_lo ** 2 - g_a * g_a
    h_ad = -q_hi * x_hi + q_lo * x_lo - g_a * g_d
    h_dd = -q_hi + q_lo - g_d * g_d
    grad = np.stack([np.sum(weights * g_a, axis=(1, 2)) - ridge * a_dev,
                     np.sum(weights * g_d, axis=(1, 2)) - ridge * d_dev], axis=1)
    hess = np.empty((len(value), 2, 2))
    hess[:, 0, 0] = np.sum(weights * h_aa, axis=(1, 2)) - ridge
    hess[:, 0, 1] = hess[:, 1, 0] = np.sum(weights * h_ad, axis=(1, 2))
    hess[:, 1, 1] = np.sum(weights * h_dd, axis=(1, 2)) - ridge
    return value, grad, hess


def _clip_to_box(precision: np.ndarray, shift: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Clip (a, d) into the box PRECISION_BOUNDS x [-SHIFT_LIMIT K, SHIFT_LIMIT K]."""
    return np.clip(precision, *_PRECISION_BOUNDS), np.clip(shift, -_SHIFT_LIMIT * k, _SHIFT_LIMIT * k)


def _newton_m_step(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, rtol: float = _STOP_GAIN,
                  cuts: np.ndarray | None = None, ridge: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Maximise every judge's concave f_w over (a_w, d_w) in the box by projected Newton steps (module docstring).

    A coordinate at a bound whose derivative points out of the box is held there; the step is
    Newton's on the free coordinates (the gradient over the judge's total weight where the
    Hessian is not negative definite), clipped into the box and halved until f_w rises by the
    Armijo share 1e-4 of the predicted gain g . step, except a Newton step predicting less than
    TRUSTED_GAIN (1 + |f_w|), taken whole. A judge stops when that gain is below ``rtol`` (1 +
    |f_w|) or no halving raises f_w (it then keeps its point), so no f_w falls by more than rounding.
    At most NEWTON_STEPS steps. ``cuts``: the cut table (None: equally spaced); ``ridge``: the prior's
    precision rho in f_w (:func:`_judge_objective`).
    """
    k = weights.shape[1]
    a, d = _clip_to_box(np.asarray(precision, dtype=float), np.asarray(shift, dtype=float), k)  # new arrays
    total = 1.0 + weights.sum(axis=(1, 2))
    limit = _SHIFT_LIMIT * k
    low, high = _PRECISION_BOUNDS
    # the judges still moving: a judge that stops (no gain, or no halving helps) never moves again,
    # so each step evaluates only these (per judge the same arithmetic as on all of them)
    active = np.arange(len(a))
    for _ in range(_NEWTON_STEPS):
        a_w, d_w, total_w = a[active], d[active], total[active]
        value, grad, hess = _judge_objective(a_w, d_w, weights[active], cuts=cuts, ridge=ridge)
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
        newton = newton_both | (only_a & (hess[:, 0, 0] < 0)) | (only_d & (hess[:, 1, 1] < 0))
        gain = grad[:, 0] * step_a + grad[:, 1] * step_d
        todo = gain > rtol * (1.0 + np.abs(value))
        trusted = (newton & (gain < _TRUSTED_GAIN * (1.0 + np.abs(value))))[todo]
        active, value, gain = active[todo], value[todo], gain[todo]
        step_a, step_d = step_a[todo], step_d[todo]
        if not len(active):
            break
        pending = np.ones(len(active), dtype=bool)
        t = 1.0
        for _ in range(_HALVINGS):
            who = active[pending]
            cand_a, cand_d = _clip_to_box(a[who] + t * step_a[pending], d[who] + t * step_d[pending], k)
            cand_value, _, _ = _judge_objective(cand_a, cand_d, weights[who], derivatives=False, cuts=cuts,
                                                 ridge=ridge)
            accept = np.isfinite(cand_value) & (((cand_value >= value[pending] + 1e-4 * t * gain[pending])
                                                 & (cand_value > value[pending])) | trusted[pending])
            a[who[accept]] = cand_a[accept]
            d[who[accept]] = cand_d[accept]
            pending[np.flatnonzero(pending)[accept]] = False
            if not pending.any():
                break
            t *= 0.5
        active = active[~pending]  # a judge no halving helped keeps its point and stops
    return a, d


# --------------------------------------------------------------------------
# the shared step: class locations and cut points


def _cut_basis(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the learned cut table's parametrisation: x = x0 + J z, flattened [t, j], z = (mu_1..mu_{K-2}, v).

    mu_0 = 0 and mu_{K-1} = K - 1 stay (they fix the scale), the inner mu_t are free, and
    tau = (j + 1/2)_j + N v with N an orthonormal basis of the sum-zero vectors (the cut points'
    mean stays (K - 1) / 2: it fixes the location, which the biases would otherwise share).
    Returns (x0 (K, K - 1), J_mu (K - 2 free mu -> mu, (K, K - 2)), J_tau (K - 2 free v -> tau, (K - 1, K - 2))).
    """
    m = k - 1
    j_mu = np.zeros((k, max(k - 2, 0)))
    j_mu[1:k - 1, :] = np.eye(k - 2)
    j_tau = null_space(np.ones((1, m))) if m > 1 else np.zeros((m, 0))
    return _default_cuts(k), j_mu, j_tau


def _cut_objective(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, cuts: np.ndarray,
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


def _spacing_prior(cuts: np.ndarray, spacing: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Return the class locations' log-prior kappa sum_t log(mu_{t+1} - mu_t), its gradient and Hessian.

    The gradient (K,) and Hessian (K, K) are in mu = (mu_0..mu_{K-1}), mu_t = x[0, 0] - x[t, 0] of the cut
    table ``cuts``; kappa = ``spacing``.

    The gaps sum to K - 1, so this is a symmetric Dirichlet(kappa + 1) on the gaps over K - 1: concave, and -inf
    where two classes meet. Without it two classes can share one location, their confusion rows become
    equal and the split of their items is left to the class priors alone, a flat direction EM crawls along
    (measured: 0.498 or 0.64 accuracy on one panel, depending on where it stopped).
    """
    k = cuts.shape[0]
    mu = cuts[0, 0] - cuts[:, 0]
    diff = np.diff(np.eye(k), axis=0)  # (K - 1, K): gap_t = mu_{t+1} - mu_t
    gaps = diff @ mu
    with np.errstate(divide="ignore"):
        value = float(spacing * np.sum(np.log(gaps))) if spacing > 0 else 0.0
    grad = spacing * diff.T @ (1.0 / gaps)
    hess = -spacing * diff.T @ (diff / (gaps * gaps)[:, None])
    return value, grad, hess


def _newton_cut_step(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, cuts: np.ndarray,
                    rtol: float = _STOP_GAIN, spacing: float = 0.0) -> np.ndarray:
    """Raise F over the free coordinates z of the cut table (:func:`_cut_basis`) with the judges held.

    F is concave in x (u is affine in x), so in z: Newton steps on z (the gradient over the total
    weight when the Newton system is singular or its step does not point uphill), halved until F
    rises by the Armijo share 1e-4 of the predicted gain with the cut points and the class
    locations both increasing (tau_1 < ... < tau_{K-1}, mu_0 < ... < mu_{K-1}); a step that never
    does is refused, so F never falls by more than rounding: a Newton step predicting less than
    TRUSTED_GAIN (1 + |F|) is taken whole if it keeps the order. At most NEWTON_STEPS steps, until
    the predicted gain is below ``rtol`` (1 + |F|). ``spacing``: kappa of the locations' prior, added
    to F (:func:`_spacing_prior`). Returns the new table.
    """
    k = cuts.shape[0]
    _, j_mu, j_tau = _cut_basis(k)
    # dx[t, j] / dz: -J_mu[t] for the mu block, J_tau[j] for the tau block; (K, K - 1, p)
    jac = np.concatenate([np.broadcast_to(-j_mu[:, None, :], (k, k - 1, j_mu.shape[1])),
                          np.broadcast_to(j_tau[None, :, :], (k, k - 1, j_tau.shape[1]))], axis=2)
    if jac.shape[2] == 0:
        return cuts
    total = 1.0 + float(weights.sum())
    # d mu / dz: J_mu on the mu block, 0 on the tau block; (K, p)
    jac_mu = np.concatenate([j_mu, np.zeros((k, j_tau.shape[1]))], axis=1)

    def objective(table: np.ndarray) -> float:
        value = _cut_objective(precision, shift, weights, table, derivatives=False)[0]
        return value + _spacing_prior(table, spacing)[0]

    for _ in range(_NEWTON_STEPS):
        value, grad, hess = _cut_objective(precision, shift, weights, cuts)
        assert grad is not None and hess is not None  # derivatives=True (the default) returns both
        prior_value, prior_grad, prior_hess = _spacing_prior(cuts, spacing)
        value += prior_value
        g = np.einsum("tjp,tj->p", jac, grad) + jac_mu.T @ prior_grad
        h = np.einsum("tjp,tjl,tlq->pq", jac, hess, jac) + jac_mu.T @ prior_hess @ jac_mu
        try:
            step = -np.linalg.solve(h, g)
        except np.linalg.LinAlgError:
            step = g / total
        newton = bool(np.all(np.isfinite(step)) and g @ step > 0)
        if not newton:
            step = g / total
        gain = float(g @ step)
        trusted = newton and gain < _TRUSTED_GAIN * (1.0 + abs(value))
        if not gain > rtol * (1.0 + abs(value)):
            break
        t = 1.0
        for _ in range(_HALVINGS):
            cand = cuts + t * np.einsum("tjp,p->tj", jac, step)
            # the cut points increasing along j, the class locations mu_t = x[0, 0] - x[t, 0] along t
            if np.all(np.diff(cand, axis=1) > 0) and np.all(np.diff(cand[:, 0]) < 0):
                cand_value = objective(cand)
                if np.isfinite(cand_value) and ((cand_value >= value + 1e-4 * t * gain and cand_value > value)
                                                or trusted):
                    cuts = cand
                    break
            t *= 0.5
        else:
            break
    return cuts
