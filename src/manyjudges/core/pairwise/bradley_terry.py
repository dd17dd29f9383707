"""Bradley-Terry on counted pairs: the objective, its Hessian and its fit, written once.

Bradley, R. A. and Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method of
paired comparisons. Biometrika 39, 324-345. Preferences are summed per unordered pair first
(:func:`pair_counts`, or :func:`bt_pair_weights` from counted cells, a tie half a win each way), so
one objective evaluation costs O(distinct pairs), vectorised with ``np.bincount``. The scores are
fitted by damped Newton with the dense Hessian (convex; about 10 steps) or by L-BFGS-B with the
analytic gradient for many items (:func:`fit_bt_scores`), or with a common-shift term that makes
Newton work for an unpenalised fit (:func:`fit_bt_centred`). Crowd-BT's virtual-item regulariser
(:func:`virtual_item_penalty`) is here because both Crowd-BT and Bradley-Terry-with-the-virtual-item
use it.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from manyjudges.core.pairwise.cells import Cells
from manyjudges.core.solvers import damped_newton, lbfgsb, newton_fit

__all__ = [
    "bt_hessian", "bt_objective", "bt_pair_weights", "check_mle_exists", "fit_bt_centred", "fit_bt_scores",
    "pair_counts", "virtual_item_penalty",
]

#: L-BFGS-B's relative objective-change stop, kept tiny so that ``gtol`` decides
_FTOL = 1e-15


#: the largest topic for which ``solver="auto"`` uses Newton's method (dense n x n Hessian)
_NEWTON_MAX_ITEMS = 2000


def pair_counts(winner: np.ndarray, loser: np.ndarray, n_items: int, weight: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Preferences summed per unordered pair: ``(a, b, w_ab, w_ba)`` with ``a < b``.

    ``w_ab`` = total weight (default 1 each) of "a over b", ``w_ba`` of "b over a".
    Pairs of an item with itself must have been removed.
    """
    winner = np.asarray(winner, dtype=np.int64)
    loser = np.asarray(loser, dtype=np.int64)
    weight = np.ones(len(winner)) if weight is None else np.asarray(weight, dtype=float)
    lo, hi = np.minimum(winner, loser), np.maximum(winner, loser)
    keys, inverse = np.unique(lo * n_items + hi, return_inverse=True)
    w_ab = np.bincount(inverse, weights=weight * (winner == lo), minlength=len(keys))
    w_ba = np.bincount(inverse, weights=weight * (winner == hi), minlength=len(keys))
    return keys // n_items, keys % n_items, w_ab, w_ba


def bt_objective(s: np.ndarray, a: np.ndarray, b: np.ndarray, w_ab: np.ndarray, w_ba: np.ndarray,
                 reg: float) -> tuple[float, np.ndarray]:
    """Negative penalised Bradley-Terry log-likelihood and its gradient.

    f(s) = sum_pairs [w_ab log(1 + e^{-(s_a - s_b)}) + w_ba log(1 + e^{s_a - s_b})] + reg ||s||^2 / 2
    df/ds_a = sum_pairs [w_ba sigma(d) - w_ab sigma(-d)] + reg s_a   (d = s_a - s_b; minus that for s_b)
    """
    d = s[a] - s[b]
    value = float(w_ab @ np.logaddexp(0.0, -d) + w_ba @ np.logaddexp(0.0, d)) + 0.5 * reg * float(s @ s)
    p = expit(d)
    dd = w_ba * p - w_ab * (1.0 - p)
    n = len(s)
    grad = np.bincount(a, weights=dd, minlength=n) - np.bincount(b, weights=dd, minlength=n) + reg * s
    return value, grad


def bt_hessian(s: np.ndarray, a: np.ndarray, b: np.ndarray, w_ab: np.ndarray, w_ba: np.ndarray,
               reg: float) -> np.ndarray:
    """Hessian of :func:`bt_objective`, dense (n, n): a weighted graph Laplacian plus reg I.

        h = (w_ab + w_ba) sigma(d) sigma(-d);  H[a, b] = H[b, a] = -h;  H[a, a] += h;  H[b, b] += h
    (each unordered pair occurs once in ``a, b``, so plain assignment is enough).
    """
    p = expit(s[a] - s[b])
    h = (w_ab + w_ba) * p * (1.0 - p)
    n = len(s)
    hess = np.zeros((n, n))
    hess[a, b] = -h
    hess[b, a] = -h
    hess[np.diag_indices(n)] = np.bincount(a, weights=h, minlength=n) + np.bincount(b, weights=h, minlength=n) + reg
    return hess


def _lbfgs(fun, x0: np.ndarray, max_iter: int, tol: float) -> np.ndarray:
    """L-BFGS-B (:func:`~manyjudges.core.solvers.lbfgsb`) stopping at max |gradient| <= tol."""
    return lbfgsb(fun, x0, None, maxiter=max_iter, gtol=tol, ftol=_FTOL, maxcor=20)[0]


def fit_bt_scores(a: np.ndarray, b: np.ndarray, w_ab: np.ndarray, w_ba: np.ndarray, n_items: int, reg: float,
                  virtual_weight: float = 0.0, solver: str = "auto", max_iter: int = 1000, tol: float = 1e-8,
                  x0: np.ndarray | None = None) -> np.ndarray:
    """Minimise :func:`bt_objective` (+ :func:`virtual_item_penalty` when ``virtual_weight`` > 0).

    The start is s = ``x0`` (default 0; a bootstrap replicate starts from the full-data scores).

    ``solver``: "newton" (:func:`~manyjudges.core.solvers.damped_newton`, Hessian :func:`bt_hessian` plus the
    virtual term's diagonal virtual_weight (1 - tanh^2(s / 2)) / 2), "lbfgs" (L-BFGS-B), or "auto": Newton when
    the objective is strictly convex (reg > 0 or virtual_weight > 0) and n <= NEWTON_MAX_ITEMS.
    L-BFGS-B is also the fallback when Newton fails numerically.
    """
    def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = bt_objective(s, a, b, w_ab, w_ba, reg)
        if virtual_weight > 0:
            virtual, virtual_grad = virtual_item_penalty(s, virtual_weight)
            value, grad = value + virtual, grad + virtual_grad
        return value, grad

    def hess(s: np.ndarray) -> np.ndarray:
        h = bt_hessian(s, a, b, w_ab, w_ba, reg)
        if virtual_weight > 0:
            h[np.diag_indices(n_items)] += 0.5 * virtual_weight * (1.0 - np.tanh(0.5 * s) ** 2)
        return h

    start = np.zeros(n_items) if x0 is None else np.asarray(x0, dtype=float)
    convex = reg > 0 or virtual_weight > 0
    scores = None
    if solver == "newton" or (solver == "auto" and convex and n_items <= _NEWTON_MAX_ITEMS):
        scores = damped_newton(fun, hess, start, max_iter, tol)
    return _lbfgs(fun, start, max_iter, tol) if scores is None else scores


def virtual_item_penalty(s: np.ndarray, virtual_weight: float) -> tuple[float, np.ndarray]:
    """Crowd-BT's regulariser: every item beats a virtual item of score 0 once and loses to it once.

        R(s) = virtual_weight sum_i [log(1 + e^{-s_i}) + log(1 + e^{s_i})],  dR/ds_i = virtual_weight tanh(s_i / 2)

    (Chen et al. 2013, the virtual-object term of their objective; minus its log-likelihood.)
    """
    value = virtual_weight * float(np.add.reduce(np.logaddexp(0.0, s) + np.logaddexp(0.0, -s)))
    return value, virtual_weight * np.tanh(0.5 * s)


def check_mle_exists(a: np.ndarray, b: np.ndarray, w_ab: np.ndarray, w_ba: np.ndarray, n_models: int,
                     models: np.ndarray | None = None) -> None:
    """Raise a ValueError unless the directed graph "i beat j at least partly" (``w_ij > 0``) is strongly connected.

    Without that, some group of models never loses to the rest and the Bradley-Terry likelihood
    has no finite maximum (Ford 1957; Hunter 2004, Ann. Statist. 32, 384-406, Assumption 1). A tie
    counted half each way gives an edge in both directions.
    """
    rows = np.concatenate([a[w_ab > 0], b[w_ba > 0]])
    cols = np.concatenate([b[w_ab > 0], a[w_ba > 0]])
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_models, n_models))
    n_groups, group = connected_components(graph, directed=True, connection="strong")
    if n_groups <= 1:
        return
    # a group with no edge from outside: nobody outside it ever beat it
    beaten = np.zeros(n_groups, dtype=bool)
    beaten[group[cols][group[rows] != group[cols]]] = True
    top = int(np.flatnonzero(~beaten)[0])
    names = np.flatnonzero(group == top) if models is None else models[group == top]
    shown = ", ".join(str(m) for m in names[:5]) + (", ..." if len(names) > 5 else "")
    raise ValueError(f"no finite maximum-likelihood scores: models {shown} never lose to the others (the "
                     "comparison graph is not strongly connected); use reg > 0")


def bt_pair_weights(cells: Cells, counts: np.ndarray, ties: str
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(a, b, w_ab, w_ba)`` per judged pair: wins, plus half of each tie both ways when ``ties="half"``."""
    a, b, lo_wins, hi_wins, tie = cells.pair_totals(counts)
    half = 0.5 * tie if ties == "half" else 0.0
    return a, b, lo_wins + half, hi_wins + half



def fit_bt_centred(a: np.ndarray, b: np.ndarray, w_ab: np.ndarray, w_ba: np.ndarray, n_items: int, reg: float,
                   x0: np.ndarray | None = None, max_iter: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """Minimise :func:`bt_objective` + (sum s)^2 / 2 by Newton's method, also for ``reg = 0``.

    The likelihood's gradient sums to 0, so the optimum has sum s = 0 and the added term is 0 there: it
    fixes the common shift without moving the optimum. Up to :data:`_NEWTON_MAX_ITEMS` items: from a
    given ``x0`` (a bootstrap replicate's full-data fit) :func:`~manyjudges.core.solvers.newton_warm`
    first, else damped Newton then :func:`~manyjudges.core.solvers.newton_polish`; L-BFGS-B
    (:func:`fit_bt_scores`) above that size or when Newton fails.
    """
    start = np.zeros(n_items) if x0 is None else x0
    scores = None
    if n_items <= _NEWTON_MAX_ITEMS:
        def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
            value, grad = bt_objective(s, a, b, w_ab, w_ba, reg)
            total = float(s.sum())
            return value + 0.5 * total * total, grad + total

        def hess(s: np.ndarray) -> np.ndarray:
            return bt_hessian(s, a, b, w_ab, w_ba, reg) + 1.0

        scores = newton_fit(fun, hess, start, x0 is not None, max_iter, tol)
    if scores is None:
        scores = fit_bt_scores(a, b, w_ab, w_ba, n_items, reg, max_iter=max_iter, tol=tol, x0=start)
    return scores
