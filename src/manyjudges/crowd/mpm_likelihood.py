"""The MPM likelihood (Volkovs and Zemel 2012, as used by Niu et al.): the data of one topic,
the penalised negative log-likelihood with its gradient and Hessian, and the Newton solver.

The model and its readings are described in :mod:`manyjudges.crowd.mpm`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.solvers import cholesky_solve

#: L-BFGS-B's relative objective-change stop, kept tiny so that ``gtol`` decides
FTOL = 1e-15
#: solver "auto": the exact-Hessian Newton method up to this many parameters (2 n + m) ...
NEWTON_DIM = 1500
#: ... and this many normaliser cells + pairs (its Hessian costs about 5 gradients); L-BFGS-B above
NEWTON_CELLS = 150_000
#: the Hessian uses a dense dx/du (pairs x 2n) up to this many cells, scatter-adds above
DENSE_CELLS = 100_000


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

    def __init__(self, topic: TopicJudgments, support: str = "worker", quality: bool = True):
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
        self.collapsed = support == "all" and not quality  # one shared normaliser: MPM-eq only
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


def mpm_objective(theta: np.ndarray, data: MPMData, reg: float, quality: bool = True,
                  reg_alpha: float = 1.0, terms: dict[str, Any] | None = None) -> tuple[float, np.ndarray]:
    """:func:`_mpm_objective`, with overflow at far-out trial points (a line search's long step)
    reported as value +inf (the solvers then shorten the step) instead of NaN and warnings.

    ``terms``: a dict that receives the point's shared terms (:func:`_point_terms`), which
    :func:`mpm_hessian` at the same ``theta`` then reuses.
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        value, grad = _mpm_objective(theta, data, reg, quality, reg_alpha, terms)
    if not np.isfinite(value) or not np.isfinite(grad).all():
        return np.inf, np.zeros_like(grad)
    return value, grad


def _mean(a: np.ndarray, axis: int = 0, keepdims: bool = False) -> np.ndarray:
    """``a.mean(axis, keepdims=keepdims)``: numpy's own sum (``np.add.reduce``) over the count, without its wrapper."""
    return np.add.reduce(a, axis=axis, keepdims=keepdims) / a.shape[axis]


def _point_terms(theta: np.ndarray, data: MPMData, quality: bool, cosh: bool) -> dict[str, Any]:
    """The terms of theta that the objective and the Hessian share: ``s`` (centred), ``sigma``,
    per pair ``t = sigma_a + sigma_b``, ``x = (mu_a - mu_b) / t`` and ``gx = dJ/dx``; per
    normaliser segment ``alpha_seg`` and ``log_z``, per support cell ``dz`` (and ``cz`` when
    ``cosh``) of :func:`_normaliser`."""
    n = data.n
    mu = theta[:n]
    s = theta[n:2 * n] - _mean(theta[n:2 * n])
    sigma = np.exp(s)
    ia, ib = data.ia, data.ib
    t = sigma[ia] + sigma[ib]
    x = (mu[ia] - mu[ib]) / t
    if not quality:
        alpha_seg = np.ones(len(data.seg_starts))
        gx = data.net_q.copy()
    else:
        alpha_seg = theta[2 * n:][data.seg_worker]
        gx = np.bincount(data.q, weights=theta[2 * n:][data.k] * data.net, minlength=len(x))
    log_z = dz = cz = None
    if len(data.seg_starts):
        log_z, dz, *rest = _normaliser(x, alpha_seg, data, cosh)
        cz = rest[0] if cosh else None
        gx -= np.bincount(data.rq, weights=(data.seg_n * alpha_seg)[data.seg_of_r] * dz, minlength=len(x))
    gx /= -max(data.total, 1.0)
    return {"s": s, "sigma": sigma, "t": t, "x": x, "gx": gx, "alpha_seg": alpha_seg, "log_z": log_z, "dz": dz,
            "cz": cz}


def _mpm_objective(theta: np.ndarray, data: MPMData, reg: float, quality: bool = True,
                   reg_alpha: float = 1.0, terms: dict[str, Any] | None = None) -> tuple[float, np.ndarray]:
    """Penalised negative mean log-likelihood of MPM and its gradient.

    ``theta = [mu (n), s (n), alpha (m)]`` (no alpha when ``quality`` is false: alpha = 1), with
    log sigma = s - mean(s) (the centring removes the invariance mu -> c mu, sigma -> c sigma):

        J = -L / N + reg / 2 (||mu||^2 + ||log sigma||^2) + reg_alpha / (2 N) ||alpha - 1||^2

    with N = sum_k N_k: a ridge on the per-judgment log-likelihood for the item parameters and a
    N(1, 1 / reg_alpha) prior on each adherence (a MAP term on the summed log-likelihood).
    ``terms`` (a dict) receives :func:`_point_terms` (with ``cz``) and ``m1`` for the Hessian.
    """
    if quality and data.collapsed:
        raise ValueError("this MPMData was prepared for quality=False")
    n, m = data.n, data.m
    mu = theta[:n]
    point = _point_terms(theta, data, quality, cosh=terms is not None)
    s, sigma, t, x, gx = point["s"], point["sigma"], point["t"], point["x"], point["gx"]
    ia, ib = data.ia, data.ib
    total = max(data.total, 1.0)
    if not quality:
        alpha = None
        loglik = float(data.net_q @ x)
    else:
        alpha = theta[2 * n:]
        xq = x[data.q]
        loglik = float(alpha[data.k] @ (data.net * xq))
    if len(data.seg_starts):
        loglik -= float(data.seg_n @ point["log_z"])
    value = -loglik / total
    # chain rule x_q = (mu_a - mu_b) / (sigma_a + sigma_b)
    gt = gx / t
    gmu = np.bincount(ia, weights=gt, minlength=n) - np.bincount(ib, weights=gt, minlength=n)
    gt *= -x
    gs = np.bincount(ia, weights=gt * sigma[ia], minlength=n) + np.bincount(ib, weights=gt * sigma[ib], minlength=n)
    value += 0.5 * reg * (float(mu @ mu) + float(s @ s))
    gmu += reg * mu
    gs += reg * s
    gs -= _mean(gs)
    if terms is not None:
        terms.update(point)
    if alpha is None:
        return value, np.concatenate([gmu, gs])
    g_alpha = np.bincount(data.k, weights=data.net * xq, minlength=m)
    if len(data.seg_starts):
        m1 = np.add.reduceat(x[data.rq] * point["dz"], data.seg_starts)
        g_alpha[data.seg_worker] -= data.seg_n * m1
        if terms is not None:
            terms["m1"] = m1
    d_alpha = alpha - 1.0
    lam = reg_alpha / total
    value += 0.5 * lam * float(d_alpha @ d_alpha)
    return value, np.concatenate([gmu, gs, -g_alpha / total + lam * d_alpha])


@dataclass(frozen=True)
class _HessianIndex:
    """The theta-independent index arrays of :func:`mpm_hessian` for one MPMData (built once).

    ``pairs`` the pairs whose terms enter the scattered sums (all pairs when dense; else those
    a worker judged or has in its normaliser: elsewhere h and gx are 0, so the terms are zeros);
    ``cols`` (4, pairs) the columns of J = dx/du; ``jac_flat`` their flat places in the dense
    (pairs x 2n) J; ``uu_flat`` the flat (2n x 2n) places of every scattered H_uu term, in the
    order of their weights; ``proj_flat`` of the per-segment J' D_s terms; ``ua_flat`` / ``ua_k``
    of the H_ua terms (data pairs, then normaliser cells).
    """

    pairs: np.ndarray
    cols: np.ndarray
    jac_flat: np.ndarray | None
    uu_flat: np.ndarray
    proj_flat: np.ndarray
    ua_flat: np.ndarray
    ua_k: np.ndarray


def _hessian_index(data: MPMData, dense: bool, quality: bool) -> _HessianIndex:
    """:class:`_HessianIndex` of ``data``, cached on it per (dense, quality)."""
    cache = data.__dict__.setdefault("_hessian_index", {})
    if (dense, quality) not in cache:
        cache[dense, quality] = _build_hessian_index(data, dense, quality)
    return cache[dense, quality]


def _build_hessian_index(data: MPMData, dense: bool, quality: bool) -> _HessianIndex:
    n, m = data.n, data.m
    n2, ia, ib = 2 * n, data.ia, data.ib
    n_pairs = len(ia)
    cols = np.stack([ia, ib, n + ia, n + ib])
    seg, rq = data.seg_of_r, data.rq
    if dense:
        pairs = np.arange(n_pairs)
        jac_flat = (cols + (np.arange(n_pairs) * n2)[None, :]).T.ravel()
        uu = []
        proj_flat = seg * n_pairs + rq
    else:
        pairs = np.union1d(data.q, rq)
        jac_flat = None
        uu = [cols[i, pairs] * n2 + cols[j, pairs] for i in range(4) for j in range(4)]
        proj_flat = ((seg * n2)[None, :] + cols[:, rq]).ravel()
    pa, pb = ia[pairs], ib[pairs]
    for r_i, r_j in [(pa, n + pa), (pa, n + pb), (pb, n + pa), (pb, n + pb)]:
        uu += [r_i * n2 + r_j, r_j * n2 + r_i]
    uu += [(n + pa) * (n2 + 1), (n + pb) * (n2 + 1), (n + pa) * n2 + n + pb, (n + pb) * n2 + n + pa]
    pq, pk = data.q, data.k
    if len(data.seg_starts):
        pq, pk = np.concatenate([pq, rq]), np.concatenate([pk, data.seg_worker[seg]])
    if not quality:
        ua_flat = np.zeros(0, dtype=np.int64)
    elif dense:
        ua_flat = pq * m + pk
    else:
        ua_flat = (cols[:, pq] * m + pk[None, :]).ravel()
    return _HessianIndex(pairs=pairs, cols=cols, jac_flat=jac_flat, uu_flat=np.concatenate(uu), proj_flat=proj_flat,
                         ua_flat=ua_flat, ua_k=pq)


def mpm_hessian(theta: np.ndarray, data: MPMData, reg: float, quality: bool = True,
                reg_alpha: float = 1.0, terms: dict[str, Any] | None = None) -> np.ndarray:
    """Dense Hessian of :func:`mpm_objective`, assembled in O(support cells + pairs) by scatter-adds.

    With u = (mu, log sigma) and the objective Phi(x(u), alpha):
    H_uu = J' Phi_xx J + sum_q Phi_x,q d2x_q/du2 + ridge, H_ua = J' Phi_xa, H_aa = Phi_aa, where
    J = dx/du (4 entries per pair), and per normaliser segment (log Z = log sum_q 2 cosh(alpha x_q)):
    d2 log Z / dx2 = alpha^2 (diag(C) - D D'), d2 log Z / dx_q dalpha = D_q + alpha x_q C_q
    - alpha D_q m1, d2 log Z / dalpha2 = sum_q x_q^2 C_q - m1^2 (C = 2 cosh / Z, D = 2 sinh / Z,
    m1 = sum_q x_q D_q). The s block is then projected on the centred subspace. The index arrays
    of the scatter-adds are built once per ``data`` (:class:`_HessianIndex`); ``terms``: those
    :func:`mpm_objective` kept at this ``theta`` (the same numbers, not computed again).
    """
    n, m = data.n, data.m
    n2 = 2 * n
    if terms is None:
        terms = _point_terms(theta, data, quality, cosh=True)
    sigma, t, x, gx, alpha_seg = terms["sigma"], terms["t"], terms["x"], terms["gx"], terms["alpha_seg"]
    ia, ib = data.ia, data.ib
    n_pairs = len(ia)
    total = max(data.total, 1.0)
    n_seg = len(data.seg_starts)
    alpha = None if not quality else theta[n2:]
    # J = dx/du: values (4, pairs) at columns index.cols
    jv = np.empty((4, n_pairs))
    np.divide(1.0, t, out=jv[0])
    np.divide(-1.0, t, out=jv[1])
    jv[2] = -x * sigma[ia] / t
    jv[3] = -x * sigma[ib] / t
    h = np.zeros(n_pairs)
    if n_seg:
        seg, rq = data.seg_of_r, data.rq
        a_r = alpha_seg[seg]
        xr = x[rq]
        dz, cz = terms["dz"], terms["cz"]
        w_seg = data.seg_n / total
        h = np.bincount(rq, weights=(w_seg * alpha_seg ** 2)[seg] * cz, minlength=n_pairs)
        m1 = terms["m1"] if "m1" in terms else np.add.reduceat(xr * dz, data.seg_starts)
        m2 = np.add.reduceat(xr * xr * cz, data.seg_starts)
    # J' diag(h) J + sum_q gx_q d2 x_q / du2; J dense for small topics, else scattered
    dense = n_pairs * n2 <= DENSE_CELLS
    index = _hessian_index(data, dense, quality)
    pairs = index.pairs
    if dense:
        jac = np.zeros((n_pairs, n2))
        jac.ravel()[index.jac_flat] = jv.T.ravel()
        weights = []
        pa, pb, px, pt, pg = ia, ib, x, t, gx
    else:
        # a pair with neither curvature (h) nor gradient (gx) adds only zeros: leave it out (same sums;
        # a large topic's workers judge a small share of its n (n - 1) / 2 pairs)
        pa, pb, px, pt, pg = ia[pairs], ib[pairs], x[pairs], t[pairs], gx[pairs]
        jp = jv[:, pairs]
        weights = [((h[pairs] * jp)[:, None, :] * jp[None, :, :]).ravel()]
    sa, sb, t2 = sigma[pa], sigma[pb], pt * pt
    for v in (-sa / t2, -sb / t2, sa / t2, sb / t2):
        weights += [pg * v, pg * v]
    weights += [pg * px * (2 * sa * sa / t2 - sa / pt), pg * px * (2 * sb * sb / t2 - sb / pt),
                pg * 2 * px * sa * sb / t2, pg * 2 * px * sa * sb / t2]
    huu = np.bincount(index.uu_flat, weights=np.concatenate(weights), minlength=n2 * n2).reshape(n2, n2)
    if dense:
        huu += (jac * h[:, None]).T @ jac
    if n_seg:
        # - sum_s w_s alpha_s^2 (J' D_s)(J' D_s)'
        if dense:
            proj = np.zeros((n_seg, n_pairs))
            proj.ravel()[index.proj_flat] = dz
            proj = proj @ jac
        else:
            proj = np.bincount(index.proj_flat, weights=(jv[:, rq] * dz).ravel(),
                               minlength=n_seg * n2).reshape(n_seg, n2)
        huu -= (proj * (w_seg * alpha_seg ** 2)[:, None]).T @ proj
    huu.ravel()[:: n2 + 1] += reg
    dim = n2 + (0 if alpha is None else m)
    hess = np.zeros((dim, dim))
    hess[:n2, :n2] = huu
    if alpha is not None:
        # H_ua = J' Phi_xa: Phi_xa has -net / N at (q, k) and the normaliser terms at (q in support, k)
        pv = -data.net / total
        if n_seg:
            pv = np.concatenate([pv, w_seg[seg] * (dz + a_r * xr * cz - a_r * dz * m1[seg])])
        if dense:
            hua = jac.T @ np.bincount(index.ua_flat, weights=pv, minlength=n_pairs * m).reshape(n_pairs, m)
        else:
            hua = np.bincount(index.ua_flat, weights=(jv[:, index.ua_k] * pv).ravel(),
                              minlength=n2 * m).reshape(n2, m)
        hess[:n2, n2:] = hua
        hess[n2:, :n2] = hua.T
        haa = np.full(m, reg_alpha / total)
        if n_seg:
            haa[data.seg_worker] += w_seg * (m2 - m1 * m1)
        hess.ravel()[n2 * (dim + 1):: dim + 1] = haa
    # s = centred theta_s: H_theta = P H P with P = blockdiag(I, I - 11'/n, I)
    hess[n:n2, :] -= _mean(hess[n:n2, :], axis=0)
    hess[:, n:n2] -= _mean(hess[:, n:n2], axis=1, keepdims=True)
    return hess


def newton(data: MPMData, theta: np.ndarray, args: tuple, max_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """Levenberg-Marquardt damped Newton steps on :func:`mpm_objective` with the exact Hessian.

    Each step solves (H + E + lam I) p = -g by Cholesky (:func:`~manyjudges.solvers.cholesky_solve`;
    E = u u' with u the centred s block's null direction, 1 / sqrt(n) on the s entries, which
    the gradient never has); lam shrinks after a decrease and grows otherwise. Stops at max |g| <= tol.
    """
    n = data.n
    terms: dict[str, Any] = {}
    value, grad = mpm_objective(theta, data, *args, terms=terms)
    null = 1.0 / np.sqrt(n)
    lam, it = 1e-3, 0
    for it in range(1, max_iter + 1):
        if np.abs(grad).max() <= tol:
            return theta, it - 1
        hess = mpm_hessian(theta, data, *args, terms=terms)
        hess += 0.0  # the zeros of E = u u' outside its s block (a -0.0 entry becomes +0.0, as when adding E)
        hess[n:2 * n, n:2 * n] += null * null
        diag = hess.ravel()[:: len(theta) + 1]
        while True:
            diag += lam
            delta = cholesky_solve(hess, grad)
            diag -= lam
            if delta is not None:
                trial = theta - delta
                t_terms: dict[str, Any] = {}
                t_value, t_grad = mpm_objective(trial, data, *args, terms=t_terms)
                if t_value <= value:
                    lam = max(lam / 4.0, 1e-12)
                    break
            lam *= 8.0
            if lam > 1e12:
                return theta, it
        step = np.abs(trial - theta).max()
        theta, value, grad, terms = trial, t_value, t_grad, t_terms
        if step < 1e-12:
            break
    return theta, it
