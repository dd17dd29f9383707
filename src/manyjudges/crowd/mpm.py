"""MPM, the Multinomial Preference Model (Volkovs and Zemel, WWW 2012), with annotator adherence.

Volkovs, M. N. and Zemel, R. S. (2012). A flexible generative model for preference
aggregation. WWW '12, 479-488 (Niu et al.'s ref. [26]; the model is also in their JMLR 15 (2014)
1135-1176 paper, "New learning methods for supervised and unsupervised preference aggregation").

Item i has a score mu_i and an uncertainty sigma_i > 0; worker k has an adherence alpha_k (how
closely k follows the consensus; alpha_k < 0 = answers against it). Every strict judgment
"a over b" of worker k is one draw of an ordered pair from a multinomial over the ordered pairs
of the items k judged (V_k; ``support="all"``: all n items):

    P((a, b) | k) = exp(alpha_k f_ab) / Z_k,   f_ab = (mu_a - mu_b) / (sigma_a + sigma_b),
    Z_k = sum_{c != d in V_k} exp(alpha_k f_cd) = sum_{c < d in V_k} 2 cosh(alpha_k f_cd).

The log-likelihood is

    L = sum_k [ alpha_k sum_{(a, b)} y^k_ab f_ab - N_k log Z_k ]

(y^k_ab = number of times k preferred a over b, N_k = sum y^k), and the fit minimises

    J = -L / N + reg / 2 (||mu||^2 + ||log sigma||^2) + reg_alpha / (2 N) ||alpha - 1||^2

(N = all strict judgments; log sigma centred to mean 0). Items are ranked by mu. Duplicate
(worker, pair) judgments are summed first; one evaluation costs O(support cells + pairs),
vectorised with ``np.bincount`` / ``reduceat`` and a per-worker log-sum-exp shift. The solver
is a damped Newton method with the exact Hessian for small problems (<= 1,500 parameters and
<= 150,000 normaliser cells + pairs: all MIREX topics, most TREC ones), else L-BFGS-B with the
analytic gradient; both reach the same optimum (tested).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import expit

from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.judgments import TopicJudgments

#: L-BFGS-B's relative objective-change stop, kept tiny so that ``gtol`` decides
_FTOL = 1e-15
#: solver "auto": the exact-Hessian Newton method up to this many parameters (2 n + m) ...
_NEWTON_DIM = 1500
#: ... and this many normaliser cells + pairs (its Hessian costs about 5 gradients); L-BFGS-B above
_NEWTON_CELLS = 150_000
#: the Hessian uses a dense dx/du (pairs x 2n) up to this many cells, scatter-adds above
_DENSE_CELLS = 100_000


def _pair_index(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Index of the pair (a, b), a < b, in ``np.triu_indices(n, 1)`` order."""
    return a * n - a * (a + 1) // 2 + (b - a - 1)


def _support_pairs(topic: TopicJudgments, workers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(worker, pair)`` of every pair of items that a worker in ``workers`` judged (any
    judgment, ties included), sorted by worker; vectorised per group of equal item counts."""
    n = topic.n_items
    keep = topic.left != topic.right
    w = np.concatenate([topic.worker[keep], topic.worker[keep]])
    items = np.concatenate([topic.left[keep], topic.right[keep]])
    key = np.unique(w * n + items)
    w, items = key // n, key % n
    sel = np.isin(w, workers)
    w, items = w[sel], items[sel]
    starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]]) if len(w) else np.zeros(0, dtype=np.int64)
    counts = np.diff(np.r_[starts, len(w)])
    out_k, out_q = [], []
    for c in np.unique(counts):
        if c < 2:
            continue
        group = starts[counts == c]
        grid = items[group[:, None] + np.arange(c)[None, :]]  # each row ascending
        ia, ib = np.triu_indices(c, 1)
        out_k.append(np.repeat(w[group], len(ia)))
        out_q.append(_pair_index(grid[:, ia], grid[:, ib], n).ravel())
    if not out_k:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    k, q = np.concatenate(out_k), np.concatenate(out_q)
    order = np.argsort(k, kind="stable")
    return k[order], q[order]


class MPMData:
    """One topic's judgments prepared for :func:`mpm_objective`.

    Data term: ``k, q, net`` per (worker, pair) the net count #a over b - #b over a (pair
    q = (a, b), a < b, in ``np.triu_indices`` order ``ia, ib``); ``n_k`` (m,) strict judgments
    per worker (also those whose net is 0); ``net_q`` the net count per pair over all workers;
    ``total`` = sum n_k. Normaliser: segments ``seg_worker, seg_n`` (a worker with strict
    judgments and its N_k; one segment of all workers, worker -1, N = total, for ``support="all"``
    with equal quality), each listing its support pairs ``rq[seg_starts[s]:...]``.
    """

    def __init__(self, topic: TopicJudgments, support: str = "worker", equal_quality: bool = False):
        if support not in ("worker", "all"):
            raise ValueError(f"support must be 'worker' or 'all', got {support!r}")
        n, m = topic.n_items, topic.n_workers
        worker, win, lose = topic.strict()
        keep = win != lose
        worker, win, lose = worker[keep], win[keep], lose[keep]
        a, b = np.minimum(win, lose), np.maximum(win, lose)
        sign = np.where(win == a, 1.0, -1.0)
        n_pairs = n * (n - 1) // 2
        key, inverse = np.unique(worker * n_pairs + _pair_index(a, b, n), return_inverse=True)
        net = np.bincount(inverse, weights=sign, minlength=len(key))
        nz = net != 0
        self.n, self.m, self.n_pairs = n, m, n_pairs
        self.ia, self.ib = np.triu_indices(n, 1)
        self.k = (key // n_pairs)[nz].astype(np.int64)
        self.q = (key % n_pairs)[nz].astype(np.int64)
        self.net = net[nz]
        self.n_k = np.bincount(worker, minlength=m).astype(float)
        self.net_q = np.bincount(self.q, weights=self.net, minlength=n_pairs)
        self.total = float(self.n_k.sum())
        self.win, self.lose = win, lose
        active = np.flatnonzero(self.n_k > 0)
        self.collapsed = support == "all" and equal_quality  # one shared normaliser: MPM-eq only
        if self.collapsed:
            rk, rq = np.full(n_pairs, -1, dtype=np.int64), np.arange(n_pairs, dtype=np.int64)
        elif support == "all":
            rk, rq = np.repeat(active, n_pairs), np.tile(np.arange(n_pairs, dtype=np.int64), len(active))
        else:
            rk, rq = _support_pairs(topic, active)
        self.rq = rq
        starts = np.flatnonzero(np.r_[True, rk[1:] != rk[:-1]]) if len(rk) else np.zeros(0, dtype=np.int64)
        self.seg_starts = starts
        self.seg_len = np.diff(np.r_[starts, len(rk)])
        self.seg_worker = rk[starts]
        self.seg_n = np.where(self.seg_worker < 0, self.total, self.n_k[np.maximum(self.seg_worker, 0)])
        self.seg_of_r = np.repeat(np.arange(len(starts)), self.seg_len)


def _normaliser(x: np.ndarray, alpha_seg: np.ndarray, data: MPMData, cosh: bool = False) -> tuple[np.ndarray, ...]:
    """Per segment ``log Z_s`` and per support cell ``D_r = 2 sinh(alpha_s x_q) / Z_s`` (and
    ``C_r = 2 cosh(alpha_s x_q) / Z_s`` when ``cosh``).

    ``Z_s = sum_{q in support} 2 cosh(alpha_s x_q)``: the ordered pairs (a, b) and (b, a) have
    f = +-x_q. Each segment is shifted by its max |alpha_s x_q| (log-sum-exp).
    """
    starts, seg = data.seg_starts, data.seg_of_r
    ax = alpha_seg[seg] * x[data.rq]
    shift = np.maximum.reduceat(np.abs(ax), starts)
    sh = shift[seg]
    em = np.negative(ax)
    em -= sh
    ax -= sh
    np.exp(ax, out=ax)
    np.exp(em, out=em)
    zs = np.add.reduceat(ax, starts)
    zs += np.add.reduceat(em, starts)
    z_r = zs[seg]
    if cosh:
        cz = ax + em
        cz /= z_r
    ax -= em
    ax /= z_r
    if cosh:
        return shift + np.log(zs), ax, cz
    return shift + np.log(zs), ax


def mpm_objective(theta: np.ndarray, data: MPMData, reg: float, equal_quality: bool = False,
                  reg_alpha: float = 1.0) -> tuple[float, np.ndarray]:
    """:func:`_mpm_objective`, with overflow at far-out trial points (a line search's long step)
    reported as value +inf (the solvers then shorten the step) instead of NaN and warnings."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        value, grad = _mpm_objective(theta, data, reg, equal_quality, reg_alpha)
    if not np.isfinite(value) or not np.isfinite(grad).all():
        return np.inf, np.zeros_like(grad)
    return value, grad


def _mpm_objective(theta: np.ndarray, data: MPMData, reg: float, equal_quality: bool = False,
                   reg_alpha: float = 1.0) -> tuple[float, np.ndarray]:
    """Penalised negative mean log-likelihood of MPM and its gradient.

    ``theta = [mu (n), s (n), alpha (m)]`` (no alpha when ``equal_quality``: alpha = 1), with
    log sigma = s - mean(s) (the centring removes the invariance mu -> c mu, sigma -> c sigma):

        J = -L / N + reg / 2 (||mu||^2 + ||log sigma||^2) + reg_alpha / (2 N) ||alpha - 1||^2

    with N = sum_k N_k: a ridge on the per-judgment log-likelihood for the item parameters and a
    N(1, 1 / reg_alpha) prior on each adherence (a MAP term on the summed log-likelihood).
    """
    n, m = data.n, data.m
    mu = theta[:n]
    s = theta[n:2 * n] - theta[n:2 * n].mean()
    sigma = np.exp(s)
    ia, ib = data.ia, data.ib
    t = sigma[ia] + sigma[ib]
    x = (mu[ia] - mu[ib]) / t
    total = max(data.total, 1.0)
    if equal_quality:
        alpha = None
        alpha_seg = np.ones(len(data.seg_starts))
        loglik = float(data.net_q @ x)
        gx = data.net_q.copy()
    else:
        if data.collapsed:
            raise ValueError("this MPMData was prepared for equal_quality=True")
        alpha = theta[2 * n:]
        alpha_seg = alpha[data.seg_worker]
        xq = x[data.q]
        loglik = float(alpha[data.k] @ (data.net * xq))
        gx = np.bincount(data.q, weights=alpha[data.k] * data.net, minlength=len(x))
    if len(data.seg_starts):
        log_z, dz = _normaliser(x, alpha_seg, data)
        loglik -= float(data.seg_n @ log_z)
        w = data.seg_n * alpha_seg
        gx -= np.bincount(data.rq, weights=w[data.seg_of_r] * dz, minlength=len(x))
    value = -loglik / total
    gx /= -total
    # chain rule x_q = (mu_a - mu_b) / (sigma_a + sigma_b)
    gt = gx / t
    gmu = np.bincount(ia, weights=gt, minlength=n) - np.bincount(ib, weights=gt, minlength=n)
    gt *= -x
    gs = np.bincount(ia, weights=gt * sigma[ia], minlength=n) + np.bincount(ib, weights=gt * sigma[ib], minlength=n)
    value += 0.5 * reg * (float(mu @ mu) + float(s @ s))
    gmu += reg * mu
    gs += reg * s
    gs -= gs.mean()
    if alpha is None:
        return value, np.concatenate([gmu, gs])
    g_alpha = np.bincount(data.k, weights=data.net * xq, minlength=m)
    if len(data.seg_starts):
        g_alpha[data.seg_worker] -= data.seg_n * np.add.reduceat(x[data.rq] * dz, data.seg_starts)
    d_alpha = alpha - 1.0
    lam = reg_alpha / total
    value += 0.5 * lam * float(d_alpha @ d_alpha)
    return value, np.concatenate([gmu, gs, -g_alpha / total + lam * d_alpha])


def mpm_hessian(theta: np.ndarray, data: MPMData, reg: float, equal_quality: bool = False,
                reg_alpha: float = 1.0) -> np.ndarray:
    """Dense Hessian of :func:`mpm_objective`, assembled in O(support cells + pairs) by scatter-adds.

    With u = (mu, log sigma) and the objective Phi(x(u), alpha):
    H_uu = J' Phi_xx J + sum_q Phi_x,q d2x_q/du2 + ridge, H_ua = J' Phi_xa, H_aa = Phi_aa, where
    J = dx/du (4 entries per pair), and per normaliser segment (log Z = log sum_q 2 cosh(alpha x_q)):
    d2 log Z / dx2 = alpha^2 (diag(C) - D D'), d2 log Z / dx_q dalpha = D_q + alpha x_q C_q
    - alpha D_q m1, d2 log Z / dalpha2 = sum_q x_q^2 C_q - m1^2 (C = 2 cosh / Z, D = 2 sinh / Z,
    m1 = sum_q x_q D_q). The s block is then projected on the centred subspace.
    """
    n, m = data.n, data.m
    n2 = 2 * n
    mu = theta[:n]
    s = theta[n:n2] - theta[n:n2].mean()
    sigma = np.exp(s)
    ia, ib = data.ia, data.ib
    n_pairs = len(ia)
    t = sigma[ia] + sigma[ib]
    x = (mu[ia] - mu[ib]) / t
    total = max(data.total, 1.0)
    n_seg = len(data.seg_starts)
    alpha = None if equal_quality else theta[n2:]
    alpha_seg = np.ones(n_seg) if alpha is None else alpha[data.seg_worker]
    gx = data.net_q.copy() if alpha is None else np.bincount(data.q, weights=alpha[data.k] * data.net,
                                                              minlength=n_pairs)
    # J = dx/du: columns (4, pairs) and values (4, pairs)
    cols = np.stack([ia, ib, n + ia, n + ib])
    jv = np.stack([1.0 / t, -1.0 / t, -x * sigma[ia] / t, -x * sigma[ib] / t])
    h = np.zeros(n_pairs)
    if n_seg:
        seg, rq = data.seg_of_r, data.rq
        a_r = alpha_seg[seg]
        xr = x[rq]
        _, dz, cz = _normaliser(x, alpha_seg, data, cosh=True)
        w_seg = data.seg_n / total
        gx -= np.bincount(rq, weights=(data.seg_n * alpha_seg)[seg] * dz, minlength=n_pairs)
        h = np.bincount(rq, weights=(w_seg * alpha_seg ** 2)[seg] * cz, minlength=n_pairs)
        m1 = np.add.reduceat(xr * dz, data.seg_starts)
        m2 = np.add.reduceat(xr * xr * cz, data.seg_starts)
    gx /= -total
    # J' diag(h) J + sum_q gx_q d2 x_q / du2; J dense for small topics, else scattered
    dense = n_pairs * n2 <= _DENSE_CELLS
    if dense:
        jac = np.zeros((n_pairs, n2))
        np.put_along_axis(jac, cols.T, jv.T, axis=1)
        idx = []
    else:
        idx = [(cols[i] * n2 + cols[j], h * jv[i] * jv[j]) for i in range(4) for j in range(4)]
    sa, sb, t2 = sigma[ia], sigma[ib], t * t
    second = [(ia, n + ia, -sa / t2), (ia, n + ib, -sb / t2), (ib, n + ia, sa / t2), (ib, n + ib, sb / t2)]
    for r_i, r_j, v in second:
        idx += [(r_i * n2 + r_j, gx * v), (r_j * n2 + r_i, gx * v)]
    idx += [((n + ia) * (n2 + 1), gx * x * (2 * sa * sa / t2 - sa / t)),
            ((n + ib) * (n2 + 1), gx * x * (2 * sb * sb / t2 - sb / t)),
            ((n + ia) * n2 + n + ib, gx * 2 * x * sa * sb / t2), ((n + ib) * n2 + n + ia, gx * 2 * x * sa * sb / t2)]
    huu = np.bincount(np.concatenate([i for i, _ in idx]), weights=np.concatenate([v for _, v in idx]),
                      minlength=n2 * n2).reshape(n2, n2)
    if dense:
        huu += (jac * h[:, None]).T @ jac
    if n_seg:
        # - sum_s w_s alpha_s^2 (J' D_s)(J' D_s)'
        if dense:
            proj = np.zeros((n_seg, n_pairs))
            proj[seg, rq] = dz
            proj = proj @ jac
        else:
            proj = np.bincount(((seg * n2)[None, :] + cols[:, rq]).ravel(), weights=(jv[:, rq] * dz).ravel(),
                               minlength=n_seg * n2).reshape(n_seg, n2)
        huu -= (proj * (w_seg * alpha_seg ** 2)[:, None]).T @ proj
    huu[np.arange(n2), np.arange(n2)] += reg
    dim = n2 + (0 if alpha is None else m)
    hess = np.zeros((dim, dim))
    hess[:n2, :n2] = huu
    if alpha is not None:
        # H_ua = J' Phi_xa: Phi_xa has -net / N at (q, k) and the normaliser terms at (q in support, k)
        pq, pk, pv = data.q, data.k, -data.net / total
        if n_seg:
            pq = np.concatenate([pq, rq])
            pk = np.concatenate([pk, data.seg_worker[seg]])
            pv = np.concatenate([pv, w_seg[seg] * (dz + a_r * xr * cz - a_r * dz * m1[seg])])
        if dense:
            hua = jac.T @ np.bincount(pq * m + pk, weights=pv, minlength=n_pairs * m).reshape(n_pairs, m)
        else:
            hua = np.bincount((cols[:, pq] * m + pk[None, :]).ravel(), weights=(jv[:, pq] * pv).ravel(),
                              minlength=n2 * m).reshape(n2, m)
        hess[:n2, n2:] = hua
        hess[n2:, :n2] = hua.T
        haa = np.full(m, reg_alpha / total)
        if n_seg:
            haa[data.seg_worker] += w_seg * (m2 - m1 * m1)
        hess[n2 + np.arange(m), n2 + np.arange(m)] = haa
    # s = centred theta_s: H_theta = P H P with P = blockdiag(I, I - 11'/n, I)
    hess[n:n2, :] -= hess[n:n2, :].mean(axis=0)
    hess[:, n:n2] -= hess[:, n:n2].mean(axis=1, keepdims=True)
    return hess


def _newton(data: MPMData, theta: np.ndarray, args: tuple, max_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """Levenberg-Marquardt damped Newton steps on :func:`mpm_objective` with the exact Hessian.

    Each step solves (H + E + lam I) p = -g by Cholesky (E = the centred s block's null direction,
    which the gradient never has); lam shrinks after a decrease and grows otherwise. Stops at
    max |g| <= tol.
    """
    n = data.n
    value, grad = mpm_objective(theta, data, *args)
    null = np.zeros(len(theta))
    null[n:2 * n] = 1.0 / np.sqrt(n)
    lam, it = 1e-3, 0
    for it in range(1, max_iter + 1):
        if np.abs(grad).max() <= tol:
            return theta, it - 1
        hess = mpm_hessian(theta, data, *args)
        hess += np.outer(null, null)
        diag = np.arange(len(theta))
        while True:
            hess[diag, diag] += lam
            try:
                factor = cho_factor(hess, check_finite=False)
            except np.linalg.LinAlgError:
                factor = None
            hess[diag, diag] -= lam
            if factor is not None:
                trial = theta - cho_solve(factor, grad, check_finite=False)
                t_value, t_grad = mpm_objective(trial, data, *args)
                if t_value <= value:
                    lam = max(lam / 4.0, 1e-12)
                    break
            lam *= 8.0
            if lam > 1e12:
                return theta, it
        step = np.abs(trial - theta).max()
        theta, value, grad = trial, t_value, t_grad
        if step < 1e-12:
            break
    return theta, it


def implied_accuracy(mu: np.ndarray, sigma: np.ndarray, adherence: np.ndarray, data: MPMData) -> np.ndarray:
    """Each worker's adherence on the pairwise-accuracy scale of eq (18), for Figure 2.

    Under MPM, worker k states "a over b" rather than "b over a" with probability
    sigma(2 alpha_k f_ab) (the two outcomes' ratio exp(alpha_k f_ab) / exp(-alpha_k f_ab)), so
    the model-implied probability that k agrees with the fitted order on a pair is
    sigma(2 alpha_k |f_ab|). quality_k = its mean over k's judged pairs (weighted by the number
    of strict judgments): 1/2 for alpha = 0, below 1/2 for a worker answering against the
    consensus; NaN for a worker with no strict judgment. (alpha itself is ``adherence_``.)
    """
    f = (mu[data.ia] - mu[data.ib]) / (sigma[data.ia] + sigma[data.ib])
    weight = np.abs(data.net)
    agree = expit(2.0 * adherence[data.k] * np.abs(f[data.q]))
    total = np.bincount(data.k, weights=weight, minlength=data.m)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.bincount(data.k, weights=weight * agree, minlength=data.m) / total
    out[~(total > 0)] = np.nan
    return out


def _initial_mu(data: MPMData) -> np.ndarray:
    """Start: net win share per item, (wins - losses) / games, in [-1, 1]."""
    n = data.n
    wins = np.bincount(data.win, minlength=n).astype(float)
    losses = np.bincount(data.lose, minlength=n).astype(float)
    return (wins - losses) / np.maximum(wins + losses, 1.0)


class MPM(CrowdAggregator):
    """Multinomial Preference Model with per-worker adherence, by penalised maximum likelihood.

    Model and objective: module docstring. ``scores_`` = mu; ``adherence_`` = alpha_k and
    ``quality_`` = the accuracy it implies (:func:`implied_accuracy`, on eq 18's [0, 1] scale so
    Figure 2 compares like with like; NaN for a worker without a strict judgment; None for
    MPM-eq); ``sigma_`` = sigma.
    Parameters: ``reg`` ridge on (mu, log sigma) per judgment; ``reg_alpha`` precision of the
    N(1, 1 / reg_alpha) prior on each alpha_k; ``quality=False`` fixes all alpha_k = 1 ("MPM-eq",
    Niu et al. set the quality parameters to 1); ``support`` "worker" (default) or "all" (the
    normaliser's pairs); ``solver`` "auto", "newton" or "lbfgs"; ``max_iter``; ``tol`` (max
    |gradient| of J at the stop).

    Reading: (1) Preferences are binary, so each strict judgment is one draw (y = 1; the paper's
    y may carry a strength such as a rank difference). (2) Ties carry no preference and are
    dropped, like eq 5 of Niu et al. for equal grades. (3) Worker k's multinomial runs over the
    ordered pairs of the items k judged (in any judgment, ties included): Z_k sums over those
    pairs, so a worker who judged one pair has P = 1 / (1 + exp(-2 alpha_k f_ab)), a
    Bradley-Terry-like term. ``support="all"`` instead normalises every worker over all
    n (n - 1) ordered pairs of the topic (the reading of the agRank R package's sgdMPM); it costs
    O(m n^2) per evaluation, seconds to tens of seconds on a 300-item topic. (4) alpha_k is
    unconstrained (a reversing worker gets alpha_k < 0). (5) The paper fits by gradient ascent
    with a hand-set learning rate (Niu et al.: 0.1 MIREX, 0.0001 TREC), i.e. early stopping; we
    optimise to convergence instead and regularise: reg = 1e-3 per judgment on mu and centred
    log sigma (without it the likelihood keeps growing as the inner items' sigma -> 0, and
    log sigma's mean is not identified since f is invariant to mu -> c mu, sigma -> c sigma), and
    a N(1, 1) prior (reg_alpha = 1) on each alpha_k, which keeps workers with one or two
    judgments from getting extreme adherences. Start: mu = net win share (wins - losses) /
    games, sigma = 1, alpha = 1.
    """

    name = "mpm"

    def __init__(self, reg: float = 1e-3, reg_alpha: float = 1.0, quality: bool = True,
                 support: str = "worker", solver: str = "auto", max_iter: int = 500, tol: float = 1e-5):
        self.reg = float(reg)
        self.reg_alpha = float(reg_alpha)
        self.quality = quality
        self.support = support
        self.solver = solver
        self.max_iter = int(max_iter)
        self.tol = float(tol)

    def _check_params(self) -> None:
        """Validate the parameters (called by ``fit``; the constructor only stores them)."""
        if self.solver not in ("auto", "newton", "lbfgs"):
            raise ValueError(f"solver must be 'auto', 'newton' or 'lbfgs', got {self.solver!r}")
        if self.support not in ("worker", "all"):
            raise ValueError(f"support must be 'worker' or 'all', got {self.support!r}")
        if self.reg <= 0:
            raise ValueError("reg must be > 0 (it fixes MPM's scale invariance)")

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:
        n, m = topic.n_items, topic.n_workers
        equal_quality = not self.quality
        data = MPMData(topic, self.support, equal_quality)
        quality = None if equal_quality else np.full(m, np.nan)
        if n < 2 or data.total == 0:
            return np.zeros(n), quality
        theta0 = [_initial_mu(data), np.zeros(n)]
        if not equal_quality:
            theta0.append(np.ones(m))
        args = (self.reg, equal_quality, self.reg_alpha)
        theta0 = np.concatenate(theta0)
        small = len(theta0) <= _NEWTON_DIM and len(data.rq) + data.n_pairs <= _NEWTON_CELLS
        if self.solver == "newton" or (self.solver == "auto" and small):
            theta, self.n_iter_ = _newton(data, theta0, args, self.max_iter, self.tol)
        else:
            res = minimize(mpm_objective, theta0, args=(data, *args), jac=True, method="L-BFGS-B",
                           options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": _FTOL, "maxcor": 20})
            theta, self.n_iter_ = np.asarray(res.x, dtype=float), int(res.nit)
        self.sigma_ = np.exp(theta[n:2 * n] - theta[n:2 * n].mean())
        if not equal_quality:
            self.adherence_ = theta[2 * n:].copy()
            self.adherence_[data.n_k == 0] = np.nan
            quality = implied_accuracy(theta[:n], self.sigma_, self.adherence_, data)
        return theta[:n].copy(), quality
