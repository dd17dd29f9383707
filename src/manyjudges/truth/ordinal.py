"""Ordinal Dawid-Skene: Dawid-Skene EM with each worker's confusion an ordered-probit row family.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. Journal of the Royal Statistical Society, Series C 28(1), 20-28
(the latent-class likelihood and its EM); the confusion rows restricted to McKelvey and
Zavoina's ordered probit (1975, A statistical model for the analysis of ordinal level
dependent variables, Journal of Mathematical Sociology 4(1), 103-120: a category is the bin
of a latent Gaussian between fixed cut points). The combination is ours; no single paper
defines this estimator.

Model. The classes 0..K-1 are ordered and equally spaced. Item i has a true class t_i drawn
from the class priors p; worker w, shown an item of class t, perceives t + b_w + s_w e with
e ~ N(0, 1) (a bias b_w and a noise scale s_w > 0) and reports the class whose bin
(c - 1/2, c + 1/2) holds it, the end bins open (class 0 from -inf, class K-1 to +inf):

    P_w(c | t) = Phi((c + 1/2 - t - b_w) / s_w) - Phi((c - 1/2 - t - b_w) / s_w).

Two parameters per worker instead of Dawid and Skene's K(K - 1), so a worker with few labels
is still estimated; errors land on the neighbouring classes, the farther the rarer.

Estimation: EM for the maximum a posteriori fit, with ``smoothing`` = eps pseudo-counts in
every cell (t, c) of every worker's confusion and every class prior (as
:mod:`manyjudges.graded.dawid_skene`'s smoothing; it keeps a worker who agrees with every
posterior from reaching s_w = 0):

    E-step   log T[i, t] = log p_t + sum_{labels e of i} log P_{w_e}(y_e | t) - logsumexp_t(...)
    M-step   p_t = (sum_i T[i, t] + eps) / (n_items + K eps)
             (b_w, s_w) = argmax f_w = sum_{t, c} (N[w, t, c] + eps) log P_w(c | t),
             N[w, t, c] = sum_{labels e of w saying c} T[item_e, t]

starting from T = each item's label shares (the soft majority vote). The worker step has no
closed form. In a_w = 1 / s_w and d_w = -b_w / s_w the bin edges are affine,
u_hi = a_w (c + 1/2 - t) + d_w and u_lo = a_w (c - 1/2 - t) + d_w, and log(Phi(u_hi) - Phi(u_lo))
is jointly concave in (u_hi, u_lo) (the log-concavity of the normal law; Pratt 1981, JASA
76, 103-106), so f_w is concave in (a_w, d_w): the M-step is Newton's method on each
worker's 2 x 2 problem, all workers at once, warm-started at the previous parameters, each
step halved until f_w rises (Armijo) and refused if it never does, so f_w never falls. With
r(u) = phi(u) / P, q(u) = u r(u) (both 0 at an infinite edge), x = c +- 1/2 - t the edges'
derivatives in a and g = grad log P:

    d log P / d a = r(u_hi) x_hi - r(u_lo) x_lo            d log P / d d = r(u_hi) - r(u_lo)
    d2 log P / d a2  = -q(u_hi) x_hi^2 + q(u_lo) x_lo^2 - g_a^2
    d2 log P / d a dd = -q(u_hi) x_hi + q(u_lo) x_lo - g_a g_d
    d2 log P / d d2  = -q(u_hi) + q(u_lo) - g_d^2

(phi' (u) = -u phi(u)). log P is computed as log Phi(y) + log(-expm1(log Phi(x) - log Phi(y)))
on (x, y) = (u_lo, u_hi), or on the reflected (-u_hi, -u_lo) when u_lo > 0: accurate far in
either tail. Since neither step lowers it, EM never lowers the penalised log-likelihood

    sum_i log sum_t p_t prod_{e of i} P_{w_e}(y_e | t) + eps (sum_{w, t, c} log P_w(c | t) + sum_t log p_t)

(tested). The M-step keeps (a_w, d_w) in the box 0.01 <= a_w <= 100, |d_w| <= 100 K (s_w in
[0.01, 100], |b_w| <= 100 K s_w), holding a coordinate at a bound its derivative points past.

Fitted: ``proba_`` = T; ``confusions_`` = P_w(c | t); ``skills_`` = each worker's expected
accuracy sum_t p_t P_w(t | t); ``bias_`` and ``scale_`` (b_w, s_w); ``priors_``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import log_ndtr

from manyjudges.truth.base import TruthEstimator, TruthFit, check_em_params, posteriors_from_log_joint
from manyjudges.truth.labels import CrowdLabels

__all__ = ["OrdinalDawidSkene", "newton_m_step", "ordinal_confusion", "ordinal_log_confusion", "worker_objective"]

#: the box of the M-step: a = 1 / s in PRECISION_BOUNDS (s in [0.01, 100]), |d| = |b| / s <= SHIFT_LIMIT * K
PRECISION_BOUNDS = (0.01, 100.0)
SHIFT_LIMIT = 100.0
#: Newton steps per M-step at most, and step halvings per Newton step
NEWTON_STEPS = 20
HALVINGS = 30
_LOG_SQRT_2PI = 0.5 * float(np.log(2.0 * np.pi))


def _edges(precision: np.ndarray, shift: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, K, K) bin edges u_lo, u_hi of class c for true class t, [w, t, c], and their (K, K) slopes in a."""
    offset = (np.arange(k)[None, :] - np.arange(k)[:, None]).astype(float)  # c - t
    x_lo, x_hi = offset - 0.5, offset + 0.5
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


def ordinal_log_confusion(bias: np.ndarray, scale: np.ndarray, k: int) -> np.ndarray:
    """(W, K, K) log P_w(c | t), [w, t, c] (module docstring)."""
    lo, hi, _, _ = _edges(*_natural(bias, scale), k)
    return _log_interval(lo, hi)


def ordinal_confusion(bias: np.ndarray, scale: np.ndarray, k: int) -> np.ndarray:
    """(W, K, K) P_w(c | t) = Phi((c + 1/2 - t - b_w) / s_w) - Phi((c - 1/2 - t - b_w) / s_w), end bins open."""
    return np.exp(ordinal_log_confusion(bias, scale, k))


def _ratios(u: np.ndarray, log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r(u) = phi(u) / P and q(u) = u r(u), both 0 at an infinite edge."""
    finite = np.isfinite(u)
    uf = np.where(finite, u, 0.0)
    r = np.exp(np.where(finite, -0.5 * uf * uf - _LOG_SQRT_2PI - log_p, -np.inf))
    return r, uf * r


def worker_objective(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, derivatives: bool = True
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Each worker's f_w = sum_{t, c} weights[w, t, c] log P_w(c | t) at (a_w, d_w), with its gradient and Hessian.

    Returns (f (W,), gradient (W, 2) in (a, d), Hessian (W, 2, 2)); the last two None unless
    ``derivatives``.
    """
    k = weights.shape[1]
    lo, hi, x_lo, x_hi = _edges(precision, shift, k)
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


def newton_m_step(precision: np.ndarray, shift: np.ndarray, weights: np.ndarray, rtol: float = 1e-12
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Maximise every worker's concave f_w over (a_w, d_w) in the box by projected Newton steps (module docstring).

    A coordinate at a bound whose derivative points out of the box is held there; the step is
    Newton's on the free coordinates (the gradient over the worker's total weight where the
    Hessian is not negative definite), clipped into the box and halved until f_w rises by the
    Armijo share 1e-4 of the predicted gain g . step. A worker stops when that gain is below
    ``rtol`` (1 + |f_w|) or no halving raises f_w (it then keeps its point), so no f_w falls.
    At most NEWTON_STEPS steps.
    """
    k = weights.shape[1]
    a, d = _clip(np.asarray(precision, dtype=float), np.asarray(shift, dtype=float), k)
    total = 1.0 + weights.sum(axis=(1, 2))
    stuck = np.zeros(len(a), dtype=bool)
    limit = SHIFT_LIMIT * k
    for _ in range(NEWTON_STEPS):
        value, grad, hess = worker_objective(a, d, weights)
        free_a = ~(((a <= PRECISION_BOUNDS[0]) & (grad[:, 0] < 0)) | ((a >= PRECISION_BOUNDS[1]) & (grad[:, 0] > 0)))
        free_d = ~(((d <= -limit) & (grad[:, 1] < 0)) | ((d >= limit) & (grad[:, 1] > 0)))
        both = free_a & free_d
        det = hess[:, 0, 0] * hess[:, 1, 1] - hess[:, 0, 1] ** 2
        newton_both = both & (hess[:, 0, 0] < 0) & (det > 0)
        safe_det = np.where(newton_both, det, 1.0)
        step_a = np.where(newton_both, -(hess[:, 1, 1] * grad[:, 0] - hess[:, 0, 1] * grad[:, 1]) / safe_det,
                          grad[:, 0] / total)
        step_d = np.where(newton_both, -(hess[:, 0, 0] * grad[:, 1] - hess[:, 0, 1] * grad[:, 0]) / safe_det,
                          grad[:, 1] / total)
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
        todo = ~stuck & (gain > rtol * (1.0 + np.abs(value)))
        if not todo.any():
            break
        t = 1.0
        for _ in range(HALVINGS):
            cand_a, cand_d = _clip(a + t * step_a, d + t * step_d, k)
            cand_value, _, _ = worker_objective(cand_a, cand_d, weights, derivatives=False)
            accept = todo & np.isfinite(cand_value) & (cand_value >= value + 1e-4 * t * gain) & (cand_value > value)
            a = np.where(accept, cand_a, a)
            d = np.where(accept, cand_d, d)
            todo &= ~accept
            if not todo.any():
                break
            t *= 0.5
        stuck |= todo
    return a, d


class OrdinalDawidSkene(TruthEstimator):
    """Dawid-Skene EM with ordered-probit confusions: a bias and a noise scale per worker.

    Parameters
    ----------
    max_iter : EM iterations at most.
    tol : stop after the first iteration that changes no posterior by ``tol`` or more.
    smoothing : eps, the pseudo-count in every confusion cell and class prior (MAP EM; 0 is
        maximum likelihood).

    For ordered classes (lowest first: pass ``classes`` to ``fit`` when the labels are not
    integers 0..K-1), treated as equally spaced. After ``fit``: ``proba_``, ``labels_``,
    ``confusions_``; ``skills_`` the expected accuracy sum_t p_t P_w(t | t); ``bias_``,
    ``scale_`` (per worker), ``priors_`` (per class), ``objective_`` (the penalised
    log-likelihood) and ``objective_trace_`` (after each iteration), ``converged_``.
    """

    def __init__(self, max_iter: int = 500, tol: float = 1e-6, smoothing: float = 0.01):
        self.max_iter = max_iter
        self.tol = tol
        self.smoothing = smoothing

    def _check_params(self) -> None:
        check_em_params(self.max_iter, self.tol, self.smoothing)

    def _fit(self, data: CrowdLabels) -> TruthFit:
        k, n, w = data.n_classes, data.n_items, data.n_workers
        eps = float(self.smoothing)
        by_label = sparse.csr_matrix((np.ones(data.n_labels), (data.worker * k + data.label, data.item)),
                                     shape=(w * k, n))
        counts = data.class_counts.astype(float)
        post = np.ascontiguousarray((counts / counts.sum(axis=1, keepdims=True)).T)  # T transposed: post[t, i]
        precision, shift = np.ones(w), np.zeros(w)
        trace = []
        converged = False
        it = 0
        for it in range(1, int(self.max_iter) + 1):  # noqa: B007 (the count is read after the loop)
            # M-step: weights[w, t, c] = sum over w's labels equal to c of T[item, t], plus eps
            weights = (by_label @ post.T).reshape(w, k, k).transpose(0, 2, 1) + eps
            priors = (post.sum(axis=1) + eps) / (n + k * eps)
            precision, shift = newton_m_step(precision, shift, weights)
            lo, hi, _, _ = _edges(precision, shift, k)
            log_conf = _log_interval(lo, hi)
            # E-step: score[t, i] = log p_t + sum over i's labels of log P_w(y | t)
            with np.errstate(divide="ignore"):
                log_priors = np.log(priors)
            score = log_conf.transpose(1, 0, 2).reshape(k, w * k) @ by_label
            score += log_priors[:, None]
            new_post, log_z = posteriors_from_log_joint(score)
            penalty = eps * (float(log_conf.sum()) + float(log_priors.sum())) if eps > 0 else 0.0
            trace.append(float(log_z.sum()) + penalty)
            delta = float(np.max(np.abs(new_post - post)))
            post = new_post
            if delta < self.tol:
                converged = True
                break
        bias, scale = -shift / precision, 1.0 / precision
        conf = np.exp(log_conf)
        skills = conf[:, np.arange(k), np.arange(k)] @ priors
        workers = pd.Index(data.workers, name="worker")
        self.bias_ = pd.Series(bias, index=workers, name="bias")
        self.scale_ = pd.Series(scale, index=workers, name="scale")
        self.priors_ = pd.Series(priors, index=pd.Index(data.classes, name="label"), name="prior")
        self.objective_ = trace[-1]
        self.objective_trace_ = np.asarray(trace)
        self.converged_ = converged
        return TruthFit(proba=np.ascontiguousarray(post.T), skills=skills, confusions=conf, n_iter=it)
