"""Crowd-BT, with or without a per-judge position term: the objective and its fit, written once.

Chen, X., Bennett, P. N., Collins-Thompson, K. and Horvitz, E. (2013). Pairwise ranking aggregation
in a crowdsourced setting. WSDM, 193-202, eq 3: judge k reports "i over j" with probability
eta_k sigma(s_i - s_j) + (1 - eta_k) sigma(s_j - s_i). :func:`judge_aware_objective` adds a position
term gamma_k to the log-strength of the answer shown first (like a home advantage, Agresti 2002,
sec. 10.6); with gamma = 0 it is Crowd-BT. Both take distinct judgments with (float) multiplicities,
e.g. from counted cells (:mod:`~manyjudges.core.pairwise.cells`).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from manyjudges.core.pairwise.bradley_terry import virtual_item_penalty
from manyjudges.core.solvers import lbfgsb

__all__ = ["crowd_bt_objective", "fit_crowd_bt", "fit_judge_aware", "judge_aware_objective"]

#: L-BFGS-B's relative objective-change stop, kept tiny so that the gradient test decides
_FTOL = 1e-15

def crowd_bt_objective(x: np.ndarray, judge: np.ndarray, win: np.ndarray, lose: np.ndarray,
                       count: np.ndarray, n_items: int, virtual_weight: float, reg: float,
                       prior: tuple[float, float]) -> tuple[float, np.ndarray]:
    """Negative penalised Crowd-BT log-likelihood of ``x = (s, eta)`` and its gradient.

    Per distinct judgment (judge k, winner i, loser j) with multiplicity c, q = sigma(s_i - s_j)
    and P = eta_k q + (1 - eta_k)(1 - q) (eq 3 of Chen et al. 2013):

        f = -sum c log P + R(s) + reg ||s||^2 / 2 - sum_k [(alpha - 1) log eta_k + (beta - 1) log(1 - eta_k)]
        df/d(s_i - s_j) = -c (2 eta_k - 1) q (1 - q) / P
        df/d eta_k      = -sum_{judgments of k} c (2 q - 1) / P - (alpha - 1) / eta_k + (beta - 1) / (1 - eta_k)

    with R the virtual-item penalty (:func:`virtual_item_penalty`) and Beta(alpha, beta) = ``prior``.
    P >= min(eta, 1 - eta), so eta must stay inside (0, 1).
    """
    s, eta = x[:n_items], x[n_items:]
    q = s[win]
    q -= s[lose]
    expit(q, out=q)
    e = eta[judge]
    e2 = 2.0 * e - 1.0
    p = e2 * q  # P = (1 - e) + (2 e - 1) q (the sum taken in the other order: the same float)
    p += 1.0 - e
    virtual, virtual_grad = virtual_item_penalty(s, virtual_weight)
    value = -float(count @ np.log(p)) + virtual + 0.5 * reg * float(s @ s)
    dd = -count * e2  # ((-c (2 e - 1)) q (1 - q)) / P, in place
    dd *= q
    dd *= 1.0 - q
    dd /= p
    grad = np.empty(len(x))
    np.add(np.bincount(win, weights=dd, minlength=n_items) - np.bincount(lose, weights=dd, minlength=n_items)
           + virtual_grad, reg * s, out=grad[:n_items])
    w = 2.0 * q  # (2 q - 1) c / P
    w -= 1.0
    w *= count
    w /= p
    fit_eta = np.bincount(judge, weights=w, minlength=len(eta))
    alpha, beta = prior
    if alpha == 1.0 and beta == 1.0:  # flat prior: its terms are zeros (0.0 - g is -g - 0 / eta + 0 / (1 - eta))
        np.subtract(0.0, fit_eta, out=grad[n_items:])
        return value, grad
    value -= float(np.sum((alpha - 1.0) * np.log(eta) + (beta - 1.0) * np.log1p(-eta)))
    grad[n_items:] = -fit_eta - (alpha - 1.0) / eta + (beta - 1.0) / (1.0 - eta)
    return value, grad


def fit_crowd_bt(judge: np.ndarray, win: np.ndarray, lose: np.ndarray, count: np.ndarray, n_items: int,
                 n_judges: int, x0: np.ndarray, virtual_weight: float, reg: float, eta_prior: tuple[float, float],
                 eta_bounds: tuple[float, float], max_iter: int, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Return Crowd-BT's ``(scores, eta)``: :func:`crowd_bt_objective` minimised by L-BFGS-B.

    The start is ``x0 = (s, eta)``, eta boxed in ``eta_bounds``, until the projected gradient is
    below ``tol``.

    ``(judge, win, lose)`` are distinct judgments with (float) multiplicities ``count``.
    """
    bounds = [(None, None)] * n_items + [eta_bounds] * n_judges
    args = (judge, win, lose, count, n_items, virtual_weight, reg, eta_prior)
    x, _ = lbfgsb(lambda v: crowd_bt_objective(v, *args), x0, bounds, maxiter=max_iter, gtol=tol,
                  ftol=_FTOL, maxcor=20)
    return x[:n_items], x[n_items:]


def judge_aware_objective(x: np.ndarray, judge: np.ndarray, win: np.ndarray, lose: np.ndarray,
                          win_first: np.ndarray, count: np.ndarray, n_models: int, n_judges: int,
                          virtual_weight: float, reg: float, gamma_reg: float,
                          prior: tuple[float, float]) -> tuple[float, np.ndarray]:
    """Penalised negative log-likelihood of ``x = (s, eta, gamma)`` and its gradient (module docstring).

    ``(judge, win, lose, win_first)``: distinct judgments, ``win_first`` True where the winner was
    shown first, with (float) multiplicities ``count``.
    """
    s, eta, gamma = x[:n_models], x[n_models:n_models + n_judges], x[n_models + n_judges:]
    t = np.where(win_first, 1.0, -1.0)
    q = expit(s[win] - s[lose] + t * gamma[judge])
    e = eta[judge]
    e2 = 2.0 * e - 1.0
    p = (1.0 - e) + e2 * q
    virtual, virtual_grad = virtual_item_penalty(s, virtual_weight)
    value = -float(count @ np.log(p)) + virtual + 0.5 * reg * float(s @ s) + 0.5 * gamma_reg * float(gamma @ gamma)
    dd = -count * e2 * q * (1.0 - q) / p
    grad = np.empty(len(x))
    grad[:n_models] = (np.bincount(win, weights=dd, minlength=n_models)
                       - np.bincount(lose, weights=dd, minlength=n_models) + virtual_grad + reg * s)
    grad[n_models:n_models + n_judges] = -np.bincount(judge, weights=count * (2.0 * q - 1.0) / p, minlength=n_judges)
    grad[n_models + n_judges:] = np.bincount(judge, weights=t * dd, minlength=n_judges) + gamma_reg * gamma
    alpha, beta = prior
    if alpha != 1.0 or beta != 1.0:
        value -= float(np.sum((alpha - 1.0) * np.log(eta) + (beta - 1.0) * np.log1p(-eta)))
        grad[n_models:n_models + n_judges] += -(alpha - 1.0) / eta + (beta - 1.0) / (1.0 - eta)
    return value, grad


def fit_judge_aware(judge: np.ndarray, win: np.ndarray, lose: np.ndarray, win_first: np.ndarray,
                    count: np.ndarray, n_models: int, n_judges: int, x0: np.ndarray, virtual_weight: float,
                    reg: float, gamma_reg: float, eta_prior: tuple[float, float], eta_bounds: tuple[float, float],
                    position: bool, max_iter: int, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(scores, eta, gamma)`` minimising :func:`judge_aware_objective` by L-BFGS-B from ``x0``.

    Eta is in ``eta_bounds``; ``position=False`` fixes gamma at 0 (its bounds are (0, 0)): Crowd-BT.
    """
    gamma_bounds: tuple[float | None, float | None] = (None, None) if position else (0.0, 0.0)
    bounds = [(None, None)] * n_models + [eta_bounds] * n_judges + [gamma_bounds] * n_judges
    args = (judge, win, lose, win_first, count, n_models, n_judges, virtual_weight, reg, gamma_reg, eta_prior)
    x, _ = lbfgsb(lambda v: judge_aware_objective(v, *args), x0, bounds, maxiter=max_iter, gtol=tol,
                  ftol=_FTOL, maxcor=20)
    return x[:n_models], x[n_models:n_models + n_judges], x[n_models + n_judges:]

