"""The previous vectorised implementations of the graded objectives, kept as references for the
faster ones (same quantities, computed the straightforward way):

- weighted votes (M2, M3, M23): every (target, vote) pair listed, sums by ``np.bincount``;
- M5: the instance sums by sparse incidence products over the panel's own entry order.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from manyjudges.graded.panel import prior_without_own
from manyjudges.graded.votes import THETA_RIDGE, item_pairs


def cooccurrence(panel, t, s):
    """C[j, c, c'] counted over the listed pairs (t, s): judge j_s said c, the target judge said c'."""
    k, J = panel.n_classes, panel.n_judges
    key = (panel.judge[s] * k + panel.label[s]) * k + panel.label[t]
    return np.bincount(key, minlength=J * k * k).reshape(J, k, k).astype(float)


def previous_cooc_values(panel, t, s):
    """D^(-i)_{j_s, z_s}(z_t) for every pair, pair counts by np.unique."""
    k, J = panel.n_classes, panel.n_judges
    counts = cooccurrence(panel, t, s)
    rows = counts.sum(2)
    js, jt, zs, zt = panel.judge[s], panel.judge[t], panel.label[s], panel.label[t]
    _, inv, cnt = np.unique(((js * J + jt) * k + zs) * k + zt, return_inverse=True, return_counts=True)
    _, inv_r, cnt_r = np.unique((js * J + jt) * k + zs, return_inverse=True, return_counts=True)
    num = counts[js, zs, zt] - cnt[inv]
    den = rows[js, zs] - cnt_r[inv_r]
    return np.where(den > 0, num / np.maximum(den, 1), prior_without_own(panel)[t, zt])


def previous_votes_objective(theta, panel, tau, label_votes, cooc_votes):
    """Minus the leave-one-judge-out log-probability plus the ridge, and its gradient, over the pair list."""
    t, s = item_pairs(panel)
    J, k = panel.n_judges, panel.n_classes
    n_params = J * (label_votes + cooc_votes * k)
    targets, params, values = [], [], []
    if label_votes:
        targets.append(t)
        params.append(panel.judge[s])
        values.append((panel.label[s] == panel.label[t]).astype(float))
    if cooc_votes:
        targets.append(t)
        params.append(J * label_votes + panel.judge[s] * k + panel.label[s])
        values.append(previous_cooc_values(panel, t, s))
    target, param, value = np.concatenate(targets), np.concatenate(params), np.concatenate(values)
    prior = prior_without_own(panel)[np.arange(panel.n_entries), panel.label]
    has = np.bincount(t, minlength=panel.n_entries) > 0
    w = np.exp(theta)
    u = w[param]
    num = np.bincount(target, u * value, minlength=panel.n_entries)
    den = np.bincount(target, u, minlength=panel.n_entries)
    q = np.where(has, num / np.where(has, den, 1.0), 0.0)
    p = np.where(has, (1 - tau) * q + tau * prior, prior)
    f = -float(np.log(p).sum()) + 0.5 * THETA_RIDGE * float(theta @ theta)
    a = np.where(has, (1 - tau) / (p * np.where(has, den, 1.0)), 0.0)
    grad = -np.bincount(param, u * a[target] * (value - q[target]), minlength=n_params) + THETA_RIDGE * theta
    return f, grad


def previous_maxent_objective(x, panel, lam):
    """M5's penalised mean negative log-likelihood and gradient by sparse incidence products."""
    J, k, n = panel.n_judges, panel.n_classes, panel.n_entries
    b, W = x[:k], x[k:].reshape(J, k, k)
    key = panel.judge * k + panel.label
    ones = np.ones(n)
    by_item = sparse.csr_matrix((ones, (panel.item, np.arange(n))), shape=(panel.n_items, n))
    by_key = sparse.csr_matrix((ones, (key, np.arange(n))), shape=(J * k, n))
    at_entry = W.reshape(J * k, k)[key]
    scores = b[None, :] + (by_item @ at_entry)[panel.item] - at_entry
    shifted = scores - scores.max(axis=1, keepdims=True)
    R = np.exp(shifted)
    norm = R.sum(axis=1, keepdims=True)
    R /= norm
    rows = np.arange(n)
    nll = float((np.log(norm[:, 0]) - shifted[rows, panel.label]).sum()) / n
    R[rows, panel.label] -= 1.0
    R /= n
    G = (by_item @ R)[panel.item] - R
    grad_W = (by_key @ G).reshape(J, k, k) + lam * W
    return nll + 0.5 * lam * float((W * W).sum()), np.concatenate([R.sum(0), grad_W.ravel()])
