"""The MPM likelihood (Volkovs and Zemel 2012, as used by Niu et al.).

The data of one topic and the penalised negative log-likelihood with its gradient (its Hessian and the
Newton solver are in :mod:`manyjudges.crowd.mpm_newton`, which builds on the terms of a point,
:func:`point_terms`, and the centring of the s block, :func:`centring_mean`, defined here).

The model and its readings are described in :mod:`manyjudges.crowd.mpm`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from manyjudges.crowd.judgments import TopicJudgments

#: L-BFGS-B's relative objective-change stop, kept tiny so that ``gtol`` decides
FTOL = 1e-15
#: solver "auto": the exact-Hessian Newton method up to this many parameters (2 n + m) ...
NEWTON_DIM = 1500
#: ... and this many normaliser cells + pairs (its Hessian costs about 5 gradients); L-BFGS-B above
NEWTON_CELLS = 150_000


def _pair_index(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Index of the pair (a, b), a < b, in ``np.triu_indices(n, 1)`` order."""
    return a * n - a * (a + 1) // 2 + (b - a - 1)


def _support_pairs(topic: TopicJudgments, judges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(judge, pair)`` of every pair of items that a judge in ``judges`` judged.

    Any judgment, ties included; sorted by judge; vectorised per group of equal item counts.
    """
    n = topic.n_items
    keep = topic.left != topic.right
    w = np.concatenate([topic.judge[keep], topic.judge[keep]])
    items = np.concatenate([topic.left[keep], topic.right[keep]])
    key = np.unique(w * n + items)
    w, items = key // n, key % n
    sel = np.isin(w, judges)
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

    Data term: ``k, q, net`` per (judge, pair) the net count #a over b - #b over a (pair
    q = (a, b), a < b, in ``np.triu_indices`` order ``ia, ib``); ``n_k`` (m,) strict judgments
    per judge (also those whose net is 0); ``net_q`` the net count per pair over all judges;
    ``total`` = sum n_k. Normaliser: segments ``seg_judge, seg_n`` (a judge with strict
    judgments and its N_k; one segment of all judges, judge -1, N = total, for ``support="all"``
    with equal skill), each listing its support pairs ``rq[seg_starts[s]:...]``.
    """

    def __init__(self, topic: TopicJudgments, support: str = "judge", skill: bool = True):
        if support not in ("judge", "all"):
            raise ValueError(f"support must be 'judge' or 'all', got {support!r}")
        n, m = topic.n_items, topic.n_judges
        judge, win, lose = topic.strict()
        keep = win != lose
        judge, win, lose = judge[keep], win[keep], lose[keep]
        a, b = np.minimum(win, lose), np.maximum(win, lose)
        sign = np.where(win == a, 1.0, -1.0)
        n_pairs = n * (n - 1) // 2
        key, inverse = np.unique(judge * n_pairs + _pair_index(a, b, n), return_inverse=True)
        net = np.bincount(inverse, weights=sign, minlength=len(key))
        nz = net != 0
        self.n, self.m, self.n_pairs = n, m, n_pairs
        self.ia, self.ib = np.triu_indices(n, 1)
        self.k = (key // n_pairs)[nz].astype(np.int64)
        self.q = (key % n_pairs)[nz].astype(np.int64)
        self.net = net[nz]
        self.n_k = np.bincount(judge, minlength=m).astype(float)
        self.net_q: np.ndarray = np.bincount(self.q, weights=self.net, minlength=n_pairs)  # float sums
        self.total = float(self.n_k.sum())
        self.win, self.lose = win, lose
        active = np.flatnonzero(self.n_k > 0)
        self.collapsed = support == "all" and not skill  # one shared normaliser: MPM-eq only
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
        self.seg_judge = rk[starts]
        self.seg_n = np.where(self.seg_judge < 0, self.total, self.n_k[np.maximum(self.seg_judge, 0)])
        self.seg_of_r = np.repeat(np.arange(len(starts)), self.seg_len)


def _normaliser(x: np.ndarray, alpha_seg: np.ndarray, data: MPMData, cosh: bool = False) -> tuple[np.ndarray, ...]:
    """Return per segment ``log Z_s`` and per support cell ``D_r = 2 sinh(alpha_s x_q) / Z_s``.

    Also ``C_r = 2 cosh(alpha_s x_q) / Z_s`` when ``cosh``.

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


def mpm_objective(theta: np.ndarray, data: MPMData, reg: float, skill: bool = True,
                  reg_alpha: float = 1.0, terms: dict[str, Any] | None = None) -> tuple[float, np.ndarray]:
    """Compute :func:`_mpm_objective`, reporting overflow as value +inf.

    Overflow at far-out trial points (a line search's long step) is reported as value +inf (the
    solvers then shorten the step) instead of NaN and warnings.

    ``terms``: a dict that receives the point's shared terms (:func:`point_terms`), which
    :func:`mpm_hessian` at the same ``theta`` then reuses.
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        value, grad = _mpm_objective(theta, data, reg, skill, reg_alpha, terms)
    if not np.isfinite(value) or not np.isfinite(grad).all():
        return np.inf, np.zeros_like(grad)
    return value, grad


def centring_mean(a: np.ndarray, axis: int = 0, keepdims: bool = False) -> np.ndarray:
    """``a.mean(axis, keepdims=keepdims)``: numpy's own sum (``np.add.reduce``) over the count, without its wrapper.

    The mean that centres the s block (log sigma = s - mean(s)) in the objective and its gradient here and
    projects the Hessian onto the centred subspace in :mod:`manyjudges.crowd.mpm_newton`.
    """
    total = np.add.reduce(a, axis=axis, keepdims=keepdims)  # type: ignore[call-overload]  # stubs: literal keepdims
    return total / a.shape[axis]


def point_terms(theta: np.ndarray, data: MPMData, skill: bool, cosh: bool) -> dict[str, Any]:
    """Return the terms of theta that the objective and the Hessian share.

    The Hessian is :func:`manyjudges.crowd.mpm_newton.mpm_hessian`; the terms: ``s`` (centred),
    ``sigma``, per pair ``t = sigma_a + sigma_b``, ``x = (mu_a - mu_b) / t`` and ``gx = dJ/dx``; per
    normaliser segment ``alpha_seg`` and ``log_z``, per support cell ``dz`` (and ``cz`` when ``cosh``)
    of :func:`_normaliser`.
    """
    n = data.n
    mu = theta[:n]
    s = theta[n:2 * n] - centring_mean(theta[n:2 * n])
    sigma = np.exp(s)
    ia, ib = data.ia, data.ib
    t = sigma[ia] + sigma[ib]
    x = (mu[ia] - mu[ib]) / t
    if not skill:
        alpha_seg = np.ones(len(data.seg_starts))
        gx = data.net_q.copy()
    else:
        alpha_seg = theta[2 * n:][data.seg_judge]
        gx = np.bincount(data.q, weights=theta[2 * n:][data.k] * data.net, minlength=len(x))
    log_z = dz = cz = None
    if len(data.seg_starts):
        log_z, dz, *rest = _normaliser(x, alpha_seg, data, cosh)
        cz = rest[0] if cosh else None
        gx -= np.bincount(data.rq, weights=(data.seg_n * alpha_seg)[data.seg_of_r] * dz, minlength=len(x))
    gx /= -max(data.total, 1.0)
    return {"s": s, "sigma": sigma, "t": t, "x": x, "gx": gx, "alpha_seg": alpha_seg, "log_z": log_z, "dz": dz,
            "cz": cz}


def _mpm_objective(theta: np.ndarray, data: MPMData, reg: float, skill: bool = True,
                   reg_alpha: float = 1.0, terms: dict[str, Any] | None = None) -> tuple[float, np.ndarray]:
    """Penalised negative mean log-likelihood of MPM and its gradient.

    ``theta = [mu (n), s (n), alpha (m)]`` (no alpha when ``skill`` is false: alpha = 1), with
    log sigma = s - mean(s) (the centring removes the invariance mu -> c mu, sigma -> c sigma):

        J = -L / N + reg / 2 (||mu||^2 + ||log sigma||^2) + reg_alpha / (2 N) ||alpha - 1||^2

    with N = sum_k N_k: a ridge on the per-judgment log-likelihood for the item parameters and a
    N(1, 1 / reg_alpha) prior on each adherence (a MAP term on the summed log-likelihood).
    ``terms`` (a dict) receives :func:`point_terms` (with ``cz``) and ``m1`` for the Hessian.
    """
    if skill and data.collapsed:
        raise ValueError("this MPMData was prepared for skill=False")
    n, m = data.n, data.m
    mu = theta[:n]
    point = point_terms(theta, data, skill, cosh=terms is not None)
    s, sigma, t, x, gx = point["s"], point["sigma"], point["t"], point["x"], point["gx"]
    ia, ib = data.ia, data.ib
    total = max(data.total, 1.0)
    if not skill:
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
    gmu: np.ndarray = np.bincount(ia, weights=gt, minlength=n) - np.bincount(ib, weights=gt, minlength=n)
    gt *= -x
    gs = np.bincount(ia, weights=gt * sigma[ia], minlength=n) + np.bincount(ib, weights=gt * sigma[ib], minlength=n)
    value += 0.5 * reg * (float(mu @ mu) + float(s @ s))
    gmu += reg * mu
    gs += reg * s
    gs -= centring_mean(gs)
    if terms is not None:
        terms.update(point)
    if alpha is None:
        return value, np.concatenate([gmu, gs])
    g_alpha = np.bincount(data.k, weights=data.net * xq, minlength=m)
    if len(data.seg_starts):
        m1 = np.add.reduceat(x[data.rq] * point["dz"], data.seg_starts)
        g_alpha[data.seg_judge] -= data.seg_n * m1
        if terms is not None:
            terms["m1"] = m1
    d_alpha = alpha - 1.0
    lam = reg_alpha / total
    value += 0.5 * lam * float(d_alpha @ d_alpha)
    return value, np.concatenate([gmu, gs, -g_alpha / total + lam * d_alpha])
