"""The MPM objective's exact Hessian and the Newton solver that uses it.

The model is Volkovs and Zemel's (2012), as used by Niu et al.; the objective is
:func:`manyjudges.crowd.mpm_likelihood.mpm_objective`.

The model and its readings are described in :mod:`manyjudges.crowd.mpm`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from manyjudges.core.solvers import cholesky_solve
from manyjudges.crowd.mpm_likelihood import MPMData, centring_mean, mpm_objective, point_terms

#: the Hessian uses a dense dx/du (pairs x 2n) up to this many cells, scatter-adds above
DENSE_CELLS = 100_000

@dataclass(frozen=True)
class _HessianIndex:
    """The theta-independent index arrays of :func:`mpm_hessian` for one MPMData (built once).

    ``pairs`` the pairs whose terms enter the scattered sums (all pairs when dense; else those
    a judge judged or has in its normaliser: elsewhere h and gx are 0, so the terms are zeros);
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


def _hessian_index(data: MPMData, dense: bool, skill: bool) -> _HessianIndex:
    """:class:`_HessianIndex` of ``data``, cached on it per (dense, skill)."""
    cache = data.__dict__.setdefault("_hessian_index", {})
    if (dense, skill) not in cache:
        cache[dense, skill] = _build_hessian_index(data, dense, skill)
    return cache[dense, skill]


def _build_hessian_index(data: MPMData, dense: bool, skill: bool) -> _HessianIndex:
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
        pq, pk = np.concatenate([pq, rq]), np.concatenate([pk, data.seg_judge[seg]])
    if not skill:
        ua_flat = np.zeros(0, dtype=np.int64)
    elif dense:
        ua_flat = pq * m + pk
    else:
        ua_flat = (cols[:, pq] * m + pk[None, :]).ravel()
    return _HessianIndex(pairs=pairs, cols=cols, jac_flat=jac_flat, uu_flat=np.concatenate(uu), proj_flat=proj_flat,
                         ua_flat=ua_flat, ua_k=pq)


def mpm_hessian(theta: np.ndarray, data: MPMData, reg: float, skill: bool = True,
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
        terms = point_terms(theta, data, skill, cosh=True)
    jv = _jacobian_values(terms, data)
    segments = _segment_curvature(terms, data) if len(data.seg_starts) else None
    h = segments.h if segments is not None else np.zeros(len(data.ia))
    # J dense for small topics, else scattered
    dense = len(data.ia) * n2 <= DENSE_CELLS
    index = _hessian_index(data, dense, skill)
    jac = None
    if dense:
        jac = np.zeros((len(data.ia), n2))
        jac.ravel()[index.jac_flat] = jv.T.ravel()
    huu = _hessian_uu(terms, data, jv, h, segments, index, jac)
    huu.ravel()[:: n2 + 1] += reg
    dim = n2 + (m if skill else 0)
    hess = np.zeros((dim, dim))
    hess[:n2, :n2] = huu
    if skill:
        hua = _hessian_ua(data, jv, segments, index, jac)
        hess[:n2, n2:] = hua
        hess[n2:, :n2] = hua.T
        hess.ravel()[n2 * (dim + 1):: dim + 1] = _hessian_aa(data, segments, reg_alpha)
    # s = centred theta_s: H_theta = P H P with P = blockdiag(I, I - 11'/n, I)
    hess[n:n2, :] -= centring_mean(hess[n:n2, :], axis=0)
    hess[:, n:n2] -= centring_mean(hess[:, n:n2], axis=1, keepdims=True)
    return hess


class _Segments(NamedTuple):
    """Per normaliser segment s and per cell r of its support (pair rq[r] of segment seg[r])."""

    seg: np.ndarray
    rq: np.ndarray
    #: alpha of each cell's segment, x at each cell, D and C at each cell
    a_r: np.ndarray
    xr: np.ndarray
    dz: np.ndarray
    cz: np.ndarray
    #: (n_seg,) w_s = n_s / N and w_s alpha_s^2
    w_seg: np.ndarray
    curvature: np.ndarray
    #: (pairs,) h_q = sum over cells of q of w_s alpha_s^2 C_q (the diagonal of Phi_xx)
    h: np.ndarray
    #: (n_seg,) m1 = sum_q x_q D_q and m2 = sum_q x_q^2 C_q
    m1: np.ndarray
    m2: np.ndarray


def _jacobian_values(terms: dict[str, Any], data: MPMData) -> np.ndarray:
    """Return the (4, pairs) entries of J = dx/du of each pair q = (a, b).

    With x_q = (mu_a - mu_b) / t_q and t_q = sigma_a + sigma_b: dx/dmu_a = 1 / t, dx/dmu_b = -1 / t,
    dx/dlog sigma_a = -x sigma_a / t, and dx/dlog sigma_b = -x sigma_b / t.
    """
    sigma, t, x = terms["sigma"], terms["t"], terms["x"]
    jv = np.empty((4, len(data.ia)))
    np.divide(1.0, t, out=jv[0])
    np.divide(-1.0, t, out=jv[1])
    jv[2] = -x * sigma[data.ia] / t
    jv[3] = -x * sigma[data.ib] / t
    return jv


def _segment_curvature(terms: dict[str, Any], data: MPMData) -> _Segments:
    """Return the normaliser segments' terms: h, m1 (kept by ``terms`` when there), m2, and what the blocks read."""
    total = max(data.total, 1.0)
    alpha_seg, x = terms["alpha_seg"], terms["x"]
    seg, rq = data.seg_of_r, data.rq
    xr = x[rq]
    dz, cz = terms["dz"], terms["cz"]
    w_seg = data.seg_n / total
    h: np.ndarray = np.bincount(rq, weights=(w_seg * alpha_seg ** 2)[seg] * cz, minlength=len(data.ia))
    m1 = terms["m1"] if "m1" in terms else np.add.reduceat(xr * dz, data.seg_starts)
    m2 = np.add.reduceat(xr * xr * cz, data.seg_starts)
    return _Segments(seg, rq, alpha_seg[seg], xr, dz, cz, w_seg, w_seg * alpha_seg ** 2, h, m1, m2)


def _hessian_uu(terms: dict[str, Any], data: MPMData, jv: np.ndarray, h: np.ndarray, segments: _Segments | None,
                index: _HessianIndex, jac: np.ndarray | None) -> np.ndarray:
    """Return the (2n, 2n) H_uu without the ridge.

    H_uu = J' diag(h) J + sum_q gx_q d2 x_q / du2 (scatter-adds; J' diag(h) J as a product when J is
    dense), minus sum_s w_s alpha_s^2 (J' D_s)(J' D_s)'.
    """
    n2 = 2 * data.n
    weights = _uu_weights(terms, data, jv, h, index, dense=jac is not None)
    huu: np.ndarray = np.bincount(index.uu_flat, weights=weights, minlength=n2 * n2).reshape(n2, n2)
    if jac is not None:
        huu += (jac * h[:, None]).T @ jac
    if segments is not None:
        n_seg = len(data.seg_starts)
        if jac is not None:
            proj: np.ndarray = np.zeros((n_seg, len(data.ia)))
            proj.ravel()[index.proj_flat] = segments.dz
            proj = proj @ jac
        else:
            proj = np.bincount(index.proj_flat, weights=(jv[:, segments.rq] * segments.dz).ravel(),
                               minlength=n_seg * n2).reshape(n_seg, n2)
        huu -= (proj * segments.curvature[:, None]).T @ proj
    return huu


def _uu_weights(terms: dict[str, Any], data: MPMData, jv: np.ndarray, h: np.ndarray, index: _HessianIndex,
                dense: bool) -> np.ndarray:
    """Return the weights of H_uu's scatter-add, in the order of ``index.uu_flat``.

    (Scattered J only) h_q J_qi J_qj, then gx_q d2 x_q / du_i du_j of each pair's mixed (mu, log sigma)
    and (log sigma, log sigma) entries. A pair with neither curvature (h) nor gradient (gx) adds only
    zeros: scattered, only ``index.pairs`` enter.
    """
    sigma, t, x, gx = terms["sigma"], terms["t"], terms["x"], terms["gx"]
    ia, ib = data.ia, data.ib
    if dense:
        weights = []
        pa, pb, px, pt, pg = ia, ib, x, t, gx
    else:
        # a large topic's judges judge a small share of its n (n - 1) / 2 pairs
        pairs = index.pairs
        pa, pb, px, pt, pg = ia[pairs], ib[pairs], x[pairs], t[pairs], gx[pairs]
        jp = jv[:, pairs]
        weights = [((h[pairs] * jp)[:, None, :] * jp[None, :, :]).ravel()]
    sa, sb, t2 = sigma[pa], sigma[pb], pt * pt
    for v in (-sa / t2, -sb / t2, sa / t2, sb / t2):
        weights += [pg * v, pg * v]
    weights += [pg * px * (2 * sa * sa / t2 - sa / pt), pg * px * (2 * sb * sb / t2 - sb / pt),
                pg * 2 * px * sa * sb / t2, pg * 2 * px * sa * sb / t2]
    return np.concatenate(weights)


def _hessian_ua(data: MPMData, jv: np.ndarray, segments: _Segments | None, index: _HessianIndex,
                jac: np.ndarray | None) -> np.ndarray:
    """Return the (2n, m) H_ua = J' Phi_xa.

    Phi_xa has -net / N at (q, k) and, at (q in segment s's support, its judge),
    w_s (D_q + alpha x_q C_q - alpha D_q m1_s).
    """
    m, n2 = data.m, 2 * data.n
    pv = -data.net / max(data.total, 1.0)
    if segments is not None:
        sg = segments
        pv = np.concatenate([pv, sg.w_seg[sg.seg] * (sg.dz + sg.a_r * sg.xr * sg.cz - sg.a_r * sg.dz * sg.m1[sg.seg])])
    if jac is not None:
        return jac.T @ np.bincount(index.ua_flat, weights=pv, minlength=len(data.ia) * m).reshape(len(data.ia), m)
    return np.bincount(index.ua_flat, weights=(jv[:, index.ua_k] * pv).ravel(), minlength=n2 * m).reshape(n2, m)


def _hessian_aa(data: MPMData, segments: _Segments | None, reg_alpha: float) -> np.ndarray:
    """(m,) the diagonal H_aa: reg_alpha / N, plus w_s (m2_s - m1_s^2) for the judge of each segment."""
    haa = np.full(data.m, reg_alpha / max(data.total, 1.0))
    if segments is not None:
        haa[data.seg_judge] += segments.w_seg * (segments.m2 - segments.m1 * segments.m1)
    return haa


def newton(data: MPMData, theta: np.ndarray, args: tuple[float, bool, float], max_iter: int, tol: float
           ) -> tuple[np.ndarray, int]:
    """Levenberg-Marquardt damped Newton steps on :func:`mpm_objective` with the exact Hessian.

    Each step solves (H + E + lam I) p = -g by Cholesky (:func:`~manyjudges.core.solvers.cholesky_solve`;
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
