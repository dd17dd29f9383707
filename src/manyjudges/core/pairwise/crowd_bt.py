"""Crowd-BT: the objective, its Hessian and its fit, written once.

Chen, X., Bennett, P. N., Collins-Thompson, K. and Horvitz, E. (2013). Pairwise ranking aggregation
in a crowdsourced setting. WSDM, 193-202, eq 3: judge k reports "i over j" with probability
eta_k sigma(s_i - s_j) + (1 - eta_k) sigma(s_j - s_i). It takes distinct judgments with
(float) multiplicities, e.g. from counted cells (:mod:`~manyjudges.core.pairwise.cells`). The variant
with a per-judge position term is :mod:`~manyjudges.core.pairwise.judge_aware`.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import expit

from manyjudges.core.estimator import Estimator
from manyjudges.core.pairwise.bradley_terry import virtual_item_penalty
from manyjudges.core.parameters import Constraint, Interval, Pair, invalid
from manyjudges.core.solvers import cholesky_solve, lbfgsb

__all__ = ["CrowdBTParams", "crowd_bt_objective", "fit_crowd_bt", "projected_gradient"]

#: L-BFGS-B's relative objective-change stop, kept tiny so that the gradient test decides
_FTOL = 1e-15
#: with ``newton=True``, :func:`fit_crowd_bt` hands over from L-BFGS-B to Newton at this projected gradient
NEWTON_SWITCH = 1.0
#: :func:`_crowd_bt_projected_newton`'s largest number of steps, and of halvings of one step
_NEWTON_STEPS, _HALVINGS = 30, 30
#: a variable this close to its bound, with the gradient pushing it out, is held there by the Newton step
_BOUND_GAP = 1e-10

#: Crowd-BT's parameters and what each may be (:class:`CrowdBTParams` checks them and relates two)
CROWD_BT_CONSTRAINTS: dict[str, list[Constraint]] = {
    "reg": [Interval(Real, 0, None)],
    "virtual_weight": [Interval(Real, 0, None)],
    "eta_init": [Interval(Real, 0, 1, closed="neither")],
    "eta_prior": [Pair(Interval(Real, 1, None))],
    "eta_bounds": [Pair(Interval(Real, 0, 1, closed="neither"))],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None)],
}


class CrowdBTParams(Estimator):
    """Base of the Crowd-BT estimators: checks :data:`CROWD_BT_CONSTRAINTS`, then eta_init within eta_bounds."""

    _parameter_constraints = CROWD_BT_CONSTRAINTS
    eta_init: float
    eta_bounds: tuple[float, float]

    def _check_params(self) -> None:
        """Check the declared constraints, then that ``eta_init`` is within ``eta_bounds``."""
        super()._check_params()
        low, high = self.eta_bounds
        if not low <= self.eta_init <= high:
            raise invalid(type(self).__name__, "eta_init", f"within eta_bounds [{low:g}, {high:g}]", self.eta_init)


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
                 eta_bounds: tuple[float, float], max_iter: int, tol: float, newton: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Return Crowd-BT's ``(scores, eta)``: :func:`crowd_bt_objective` minimised by L-BFGS-B.

    The start is ``x0 = (s, eta)``, eta boxed in ``eta_bounds``, until the projected gradient is
    below ``tol``. ``newton=True`` (a start near the optimum, as a bootstrap replicate's from the
    full-data fit): L-BFGS-B from ``x0`` stops at a projected gradient of :data:`NEWTON_SWITCH`
    (the same path as far as that, so the same local minimum: the objective is not convex), and
    :func:`_crowd_bt_projected_newton` goes on from there to ``min(tol, 1e-9)``; if it stops short,
    L-BFGS-B runs from ``x0`` to ``tol`` as without ``newton``.

    ``(judge, win, lose)`` are distinct judgments with (float) multiplicities ``count``.
    """
    args = (judge, win, lose, count, n_items, virtual_weight, reg, eta_prior)
    bounds = [(None, None)] * n_items + [eta_bounds] * n_judges
    if newton and tol < NEWTON_SWITCH:
        near, _ = lbfgsb(lambda v: crowd_bt_objective(v, *args), x0, bounds, maxiter=max_iter, gtol=NEWTON_SWITCH,
                         ftol=_FTOL, maxcor=20)
        x = _crowd_bt_projected_newton(near, args, n_judges, eta_bounds, min(tol, 1e-9))
        if x is not None:
            return x[:n_items], x[n_items:]
    x, _ = lbfgsb(lambda v: crowd_bt_objective(v, *args), x0, bounds, maxiter=max_iter, gtol=tol,
                  ftol=_FTOL, maxcor=20)
    return x[:n_items], x[n_items:]


def _crowd_bt_hessian(x: np.ndarray, judge: np.ndarray, win: np.ndarray, lose: np.ndarray, count: np.ndarray,
                     n_items: int, virtual_weight: float, reg: float, prior: tuple[float, float]) -> np.ndarray:
    """Return the Hessian of :func:`crowd_bt_objective` at ``x = (s, eta)`` (dense, symmetric).

    Per judgment (judge k, winner i, loser j, multiplicity c), with d = s_i - s_j, q = sigma(d),
    b = 2 eta_k - 1 and P = (1 - eta_k) + b q, the terms of f = -c log P have

        d2f/dd2        = c b q (1 - q) [b q (1 - q) / P - (1 - 2 q)] / P
        d2f/dd d eta_k = -c q (1 - q) / P^2        (2 P - b (2 q - 1) = 1)
        d2f/d eta_k2   = c (2 q - 1)^2 / P^2

    and d = s_i - s_j spreads them over (i, j) as +, -; the virtual-item penalty adds
    2 virtual_weight sigma(s_i) sigma(-s_i) on the diagonal, ``reg`` adds reg I on the scores and the
    Beta(alpha, beta) prior (alpha - 1) / eta^2 + (beta - 1) / (1 - eta)^2 on the etas.
    """
    s, eta = x[:n_items], x[n_items:]
    n, m = n_items, len(eta)
    q = expit(s[win] - s[lose])
    e = eta[judge]
    b = 2.0 * e - 1.0
    p = (1.0 - e) + b * q
    v = q * (1.0 - q)
    h_dd = count * b * v * (b * v / p - (1.0 - 2.0 * q)) / p
    h_de = -count * v / (p * p)
    pair = np.bincount(win * n + lose, weights=h_dd, minlength=n * n).reshape(n, n)
    hess = np.zeros((n + m, n + m))
    hess[:n, :n] = -(pair + pair.T)
    diag = np.bincount(win, weights=h_dd, minlength=n) + np.bincount(lose, weights=h_dd, minlength=n)
    sig = expit(s)
    hess[np.arange(n), np.arange(n)] += diag + 2.0 * virtual_weight * sig * (1.0 - sig) + reg
    cross = (np.bincount(win * m + judge, weights=h_de, minlength=n * m)
             - np.bincount(lose * m + judge, weights=h_de, minlength=n * m)).reshape(n, m)
    hess[:n, n:] = cross
    hess[n:, :n] = cross.T
    alpha, beta = prior
    eta_fit = np.bincount(judge, weights=count * (2.0 * q - 1.0) ** 2 / (p * p), minlength=m)
    hess[np.arange(n, n + m), np.arange(n, n + m)] = eta_fit + (alpha - 1.0) / eta**2 + (beta - 1.0) / (1.0 - eta) ** 2
    return hess


def projected_gradient(x: np.ndarray, grad: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    """Return L-BFGS-B's stopping measure, max |clip(x - grad, lo, hi) - x| (0 without variables)."""
    return float(np.max(np.abs(np.clip(x - grad, lo, hi) - x))) if len(x) else 0.0


def _crowd_bt_projected_newton(x0: np.ndarray, args: tuple, n_judges: int, eta_bounds: tuple[float, float],
                              tol: float) -> np.ndarray | None:
    """Minimise :func:`crowd_bt_objective` by projected Newton steps from ``x0``; None if it stops short.

    Bertsekas, D. P. (1982). Projected Newton methods for optimization problems with simple
    constraints. SIAM J. Control Optim. 20, 221-246. Each step holds the etas that sit on a bound
    (within :data:`_BOUND_GAP`) with the gradient pushing outwards, solves H_FF p = -g_F on the
    others (:func:`_crowd_bt_hessian`; Cholesky, H_FF shifted by a multiple of I where it is not
    positive definite: :func:`_newton_step`), and halves t until x(t) = clip(x + t p) meets
    Armijo's test f(x(t)) <= f(x) + 1e-4 g . (x(t) - x) (plus 1e-13 |f(x)|, the rounding of f).
    It stops when the projected gradient (:func:`_projected_gradient`) is at most ``tol``; None when
    a step finds no decrease, or :data:`_NEWTON_STEPS` steps do not reach ``tol``: the caller then
    runs L-BFGS-B.
    ``args`` are :func:`crowd_bt_objective`'s after ``x``.
    """
    n_items = args[4]
    lo = np.concatenate([np.full(n_items, -np.inf), np.full(n_judges, eta_bounds[0])])
    hi = np.concatenate([np.full(n_items, np.inf), np.full(n_judges, eta_bounds[1])])
    x = np.clip(np.asarray(x0, dtype=np.float64), lo, hi)
    f, g = crowd_bt_objective(x, *args)
    for _ in range(_NEWTON_STEPS):
        if projected_gradient(x, g, lo, hi) <= tol:
            return x
        step = _newton_step(x, g, args, lo, hi)
        if step is None:
            return None
        moved = _armijo(x, f, g, step, args, lo, hi)
        if moved is None:
            return None
        x, f, g = moved
    return x if projected_gradient(x, g, lo, hi) <= tol else None


def _newton_step(x: np.ndarray, g: np.ndarray, args: tuple, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """Return the projected Newton direction (zero on the held variables), None if no shift makes H_FF definite.

    Held: a variable on a bound with the gradient pushing outwards, and one the objective does not
    involve (zero gradient and curvature: the eta of a judge without judgments). Where H_FF is not
    positive definite, the direction solves (H_FF + tau I) p = -g_F with the smallest tau of
    1e-3 max |diag H_FF| times 1, 10, 100, ... whose Cholesky factor exists (Nocedal and Wright
    2006, Algorithm 3.3): still a descent direction.
    """
    hess = _crowd_bt_hessian(x, *args)
    diag = np.diag(hess)
    held = ((x <= lo + _BOUND_GAP) & (g > 0)) | ((x >= hi - _BOUND_GAP) & (g < 0)) | ((diag == 0) & (g == 0))
    free = np.flatnonzero(~held)
    step = np.zeros(len(x))
    sub = hess[np.ix_(free, free)]
    tau, base = 0.0, 1e-3 * float(np.abs(diag[free]).max(initial=1.0))
    for _ in range(_HALVINGS):
        solved = cholesky_solve(sub + tau * np.eye(len(free)), g[free], check_finite=True)
        if solved is not None:
            step[free] = -solved
            return step
        tau = base if tau == 0.0 else 10.0 * tau
    return None


def _armijo(x: np.ndarray, f: float, g: np.ndarray, step: np.ndarray, args: tuple, lo: np.ndarray,
            hi: np.ndarray) -> tuple[np.ndarray, float, np.ndarray] | None:
    """``(x(t), f, g)`` at the first t = 1, 1/2, ... meeting Armijo's test along the projected arc, or None."""
    t = 1.0
    for _ in range(_HALVINGS):
        new_x = np.clip(x + t * step, lo, hi)
        new_f, new_g = crowd_bt_objective(new_x, *args)
        if new_f - f <= 1e-4 * float(g @ (new_x - x)) + 1e-13 * abs(f):  # allowance: f's rounding
            return new_x, new_f, new_g
        t *= 0.5
    return None
