"""Ordinal Dawid-Skene: Dawid-Skene EM with each worker's confusion an ordered-probit row family.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. Journal of the Royal Statistical Society, Series C 28(1), 20-28
(the latent-class likelihood and its EM); the confusion rows restricted to McKelvey and
Zavoina's ordered probit (1975, A statistical model for the analysis of ordinal level
dependent variables, Journal of Mathematical Sociology 4(1), 103-120: a category is the bin
of a latent Gaussian between cut points). The combination is ours; no single paper
defines this estimator.

Model. The classes 0..K-1 are ordered. Item i has a true class t_i drawn from the class
priors p; worker w, shown an item of class t, perceives mu_t + b_w + s_w e with e ~ N(0, 1)
(a bias b_w and a noise scale s_w > 0) and reports the class c whose bin (tau_c, tau_{c+1})
holds it (tau_0 = -inf, tau_K = +inf), except that with probability l_w (its lapse rate) it
labels at random, uniformly over the K classes:

    P_w(c | t) = (1 - l_w) [Phi((tau_{c+1} - mu_t - b_w) / s_w) - Phi((tau_c - mu_t - b_w) / s_w)] + l_w / K.

The class locations mu_t and the cut points tau_1 < ... < tau_{K-1} are shared by all workers
and learned (``learn_cuts``), with mu_0 = 0, mu_{K-1} = K - 1 (the scale) and the cut points'
mean (K - 1) / 2 (the location; a common shift of the cut points and the biases is not
identified); ``learn_cuts=False`` keeps mu_t = t, tau_c = c - 1/2 (equally spaced classes,
each true class in the middle of its bin). The lapse is the uniform guessing of a spammer (as
MACE's spamming, Hovy et al. 2013, NAACL, with a uniform spam distribution); ``lapse=False``
keeps l_w = 0. Three parameters per worker instead of Dawid and Skene's K(K - 1), so a worker
with few labels is still estimated; its errors land on the neighbouring classes, the farther the
rarer, plus a floor l_w / K.

The learned locations let classes sit closer than one bin when workers confuse them; the lapse
takes random labels, which a Gaussian's tails explain only with a large s_w (why both, measured:
docs/methods.md, the ordinal Dawid-Skene).

Estimation: EM for the maximum a posteriori fit, with ``smoothing`` = eps pseudo-counts in
every cell (t, c) of every worker's confusion and every class prior (as
:mod:`manyjudges.graded.dawid_skene`'s smoothing; it keeps a worker who agrees with every
posterior from reaching s_w = 0), the lapses a second latent variable, one per label:

    E-step   log T[i, t] = log p_t + sum_{labels e of i} log P_{w_e}(y_e | t) - logsumexp_t(...)
    M-step   p_t = (sum_i T[i, t] + eps) / (n_items + K eps)
             z[w, t, c] = (l_w / K) / P_w(c | t)                     (a cell's lapse share, current parameters)
             l_w = sum_{t, c} N[w, t, c] z[w, t, c] / sum_{t, c} N[w, t, c]
             (b_w, s_w) = argmax f_w = sum_{t, c} N[w, t, c] (1 - z[w, t, c]) log P*_w(c | t)
             (mu, tau) raised on sum_w f_w with the workers held,
             N[w, t, c] = eps + sum_{labels e of w saying c} T[item_e, t]

(P*_w the probit part, in brackets above), starting from T = each item's label shares (the soft
majority vote), l_w = 0.1 and the equally spaced classes. The worker step has no closed form.
In a_w = 1 / s_w and d_w = -b_w / s_w the bin edges are affine, u_hi = a_w x_hi + d_w and u_lo
= a_w x_lo + d_w with x = tau - mu_t (x_hi = c + 1/2 - t, x_lo = c - 1/2 - t when equally
spaced), and log(Phi(u_hi) - Phi(u_lo))
is jointly concave in (u_hi, u_lo) (the log-concavity of the normal law; Pratt 1981, JASA
76, 103-106), so f_w is concave in (a_w, d_w): the M-step is Newton's method on each
worker's 2 x 2 problem, all workers at once, warm-started at the previous parameters, each
step halved until f_w rises (Armijo) and refused if it never does, so f_w never falls. With
r(u) = phi(u) / P, q(u) = u r(u) (both 0 at an infinite edge), x the edges' derivatives in a
and g = grad log P:

    d log P / d a = r(u_hi) x_hi - r(u_lo) x_lo            d log P / d d = r(u_hi) - r(u_lo)
    d2 log P / d a2  = -q(u_hi) x_hi^2 + q(u_lo) x_lo^2 - g_a^2
    d2 log P / d a dd = -q(u_hi) x_hi + q(u_lo) x_lo - g_a g_d
    d2 log P / d d2  = -q(u_hi) + q(u_lo) - g_d^2

(phi' (u) = -u phi(u)). The shared step: with the workers held, u is affine in the table x[t,
j] = tau_{j+1} - mu_t too (j = 0..K-2), so sum_w f_w is concave in x, and in the free coordinates
(mu_1..mu_{K-2}, tau on its sum-zero plane; :func:`cut_basis`): Newton's method with the same
Armijo halving, a step also refused unless tau and mu stay increasing. With d log P / d u_hi =
r(u_hi), d log P / d u_lo = -r(u_lo): d2 / du_hi2 = -q(u_hi) - r(u_hi)^2, d2 / du_lo2 = q(u_lo)
- r(u_lo)^2, d2 / du_hi du_lo = r(u_hi) r(u_lo), times a_w^2 (:func:`cut_objective`). log P is
computed as log Phi(y) + log(-expm1(log Phi(x) - log Phi(y))) on (x, y) = (u_lo, u_hi), or on
the reflected (-u_hi, -u_lo) when u_lo > 0: accurate far in either tail. The lapse split is
EM's E-step for the lapse indicators, so with neither Newton step lowering its objective, EM
never lowers the penalised log-likelihood

    sum_i log sum_t p_t prod_{e of i} P_{w_e}(y_e | t) + eps (sum_{w, t, c} log P_w(c | t) + sum_t log p_t)

(tested). The M-step keeps (a_w, d_w) in the box 0.01 <= a_w <= 100, |d_w| <= 100 K (s_w in
[0.01, 100], |b_w| <= 100 K s_w), holding a coordinate at a bound its derivative points past.
EM stops after the first iteration whose objective gains less than ``tol`` per label (as
:mod:`manyjudges.truth.dawid_skene`), or after ``max_iter`` iterations.

Fitted: ``proba_`` = T; ``confusions_`` = P_w(c | t); ``skills_`` = each worker's expected
accuracy sum_t p_t P_w(t | t); ``bias_``, ``scale_`` and ``lapse_`` (b_w, s_w, l_w); ``priors_``,
``locations_`` (mu_t), ``cuts_`` (tau_1..tau_{K-1}).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.linalg import null_space
from scipy.special import log_ndtr

from manyjudges.truth.base import TruthEstimator, TruthFit, check_em_params, posteriors_from_log_joint
from manyjudges.truth.labels import CrowdLabels

__all__ = ["OrdinalDawidSkene", "cut_basis", "cut_objective", "default_cuts", "newton_cut_step", "newton_m_step",
           "ordinal_confusion", "ordinal_log_confusion", "worker_objective"]

#: the box of the M-step: a = 1 / s in PRECISION_BOUNDS (s in [0.01, 100]), |d| = |b| / s <= SHIFT_LIMIT * K
PRECISION_BOUNDS = (0.01, 100.0)
SHIFT_LIMIT = 100.0
#: Newton steps per M-step at most, and step halvings per Newton step
NEWTON_STEPS = 20
HALVINGS = 30
#: every worker's lapse rate l_w before the first M-step
LAPSE_START = 0.1
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
    cuts = default_cuts(cuts) if np.ndim(cuts) == 0 else np.asarray(cuts, dtype=float)
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


class OrdinalDawidSkene(TruthEstimator):
    """Dawid-Skene EM with ordered-probit confusions: a bias, a noise scale and a lapse rate per worker.

    Parameters
    ----------
    max_iter : EM iterations at most.
    tol : stop after the first iteration whose penalised log-likelihood gains less than ``tol`` per
        label (Dawid-Skene's rule, :mod:`manyjudges.truth.dawid_skene`).
    smoothing : eps, the pseudo-count in every confusion cell and class prior (MAP EM; 0 is
        maximum likelihood).
    learn_cuts : learn the class locations mu_1..mu_{K-2} and the cut points tau_1..tau_{K-1},
        shared by all workers (False: mu_t = t, tau_c = c - 1/2, equally spaced).
    lapse : give each worker a lapse rate l_w, the share of its labels drawn uniformly from the
        K classes whatever the truth (False: l_w = 0).

    For ordered classes (lowest first: pass ``classes`` to ``fit`` when the labels are not
    integers 0..K-1). After ``fit``: ``proba_``, ``labels_``, ``confusions_``; ``skills_`` the
    expected accuracy sum_t p_t P_w(t | t); ``bias_``, ``scale_``, ``lapse_`` (per worker),
    ``priors_`` and ``locations_`` (mu_t, per class), ``cuts_`` (tau_c, c = 1..K-1),
    ``objective_`` (the penalised log-likelihood) and ``objective_trace_`` (after each
    iteration), ``converged_``.
    """

    def __init__(self, max_iter: int = 500, tol: float = 1e-5, smoothing: float = 0.01, learn_cuts: bool = True,
                 lapse: bool = True):
        self.max_iter = max_iter
        self.tol = tol
        self.smoothing = smoothing
        self.learn_cuts = learn_cuts
        self.lapse = lapse

    def _check_params(self) -> None:
        check_em_params(self.max_iter, self.tol, self.smoothing)
        for name in ("learn_cuts", "lapse"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    def _fit(self, data: CrowdLabels) -> TruthFit:
        k, n, w = data.n_classes, data.n_items, data.n_workers
        eps = float(self.smoothing)
        by_label = sparse.csr_matrix((np.ones(data.n_labels), (data.worker * k + data.label, data.item)),
                                     shape=(w * k, n))
        counts = data.class_counts.astype(float)
        post = np.ascontiguousarray((counts / counts.sum(axis=1, keepdims=True)).T)  # T transposed: post[t, i]
        precision, shift = np.ones(w), np.zeros(w)
        cuts = default_cuts(k)
        lapse = np.full(w, LAPSE_START) if self.lapse else None
        trace = []
        converged = False
        it = 0
        for it in range(1, int(self.max_iter) + 1):  # noqa: B007 (the count is read after the loop)
            # M-step: weights[w, t, c] = sum over w's labels equal to c of T[item, t], plus eps
            weights = (by_label @ post.T).reshape(w, k, k).transpose(0, 2, 1) + eps
            priors = (post.sum(axis=1) + eps) / (n + k * eps)
            if lapse is not None:  # each cell's lapse share z at the current parameters, then l_w, the probit's weights
                lo, hi, _, _ = _edges(precision, shift, cuts)
                log_probit = _log_interval(lo, hi)
                with np.errstate(divide="ignore"):
                    share = np.exp(np.log(lapse / k)[:, None, None] - _mix_lapse(log_probit, lapse))
                lapse = np.sum(weights * share, axis=(1, 2)) / weights.sum(axis=(1, 2))
                weights = weights * (1.0 - share)
            precision, shift = newton_m_step(precision, shift, weights, cuts=cuts)
            if self.learn_cuts:
                cuts = newton_cut_step(precision, shift, weights, cuts)
            lo, hi, _, _ = _edges(precision, shift, cuts)
            log_conf = _mix_lapse(_log_interval(lo, hi), lapse)
            # E-step: score[t, i] = log p_t + sum over i's labels of log P_w(y | t)
            with np.errstate(divide="ignore"):
                log_priors = np.log(priors)
            score = log_conf.transpose(1, 0, 2).reshape(k, w * k) @ by_label
            score += log_priors[:, None]
            new_post, log_z = posteriors_from_log_joint(score)
            penalty = eps * (float(log_conf.sum()) + float(log_priors.sum())) if eps > 0 else 0.0
            trace.append(float(log_z.sum()) + penalty)
            post = new_post
            if len(trace) > 1 and trace[-1] - trace[-2] < self.tol * data.n_labels:
                converged = True
                break
        bias, scale = -shift / precision, 1.0 / precision
        conf = np.exp(log_conf)
        skills = conf[:, np.arange(k), np.arange(k)] @ priors
        workers = pd.Index(data.workers, name="worker")
        classes = pd.Index(data.classes, name="label")
        self.bias_ = pd.Series(bias, index=workers, name="bias")
        self.scale_ = pd.Series(scale, index=workers, name="scale")
        self.lapse_ = pd.Series(np.zeros(w) if lapse is None else lapse, index=workers, name="lapse")
        self.priors_ = pd.Series(priors, index=classes, name="prior")
        self.locations_ = pd.Series(cuts[0, 0] - cuts[:, 0], index=classes, name="location")  # mu_0 = 0
        self.cuts_ = pd.Series(cuts[0], index=pd.RangeIndex(1, k, name="cut"), name="cut")
        self.objective_ = trace[-1]
        self.objective_trace_ = np.asarray(trace)
        self.converged_ = converged
        return TruthFit(proba=np.ascontiguousarray(post.T), skills=skills, confusions=conf, n_iter=it)
