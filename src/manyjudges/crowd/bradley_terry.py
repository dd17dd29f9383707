"""Bradley-Terry and Crowd-BT by penalised maximum likelihood (Niu et al.'s Table 2 baselines).

Both model a strict preference "a over b" as ``sigma(s_a - s_b)`` (logistic ``sigma``) of
item scores s; Crowd-BT mixes in a per-judge probability of answering the other way.
Duplicate judgments are summed into counts first (per unordered pair for Bradley-Terry, per
judge and ordered pair for Crowd-BT), so one objective evaluation costs O(distinct pairs),
vectorised with ``np.bincount``. Bradley-Terry scores (also Crowd-BT-eq, and Crowd-BT's
starting point) are fitted by damped Newton with the dense Hessian (convex; ~10 steps), or
by L-BFGS-B with the analytic gradient for large topics; Crowd-BT's scores and skills
jointly by L-BFGS-B with box bounds on the skills.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.special import expit

from manyjudges.core.solvers import damped_newton, lbfgsb
from manyjudges.crowd.base import CrowdAggregator, check_flag
from manyjudges.crowd.judgments import TopicJudgments

#: L-BFGS-B's relative objective-change stop, kept tiny so that ``gtol`` decides
_FTOL = 1e-15
#: the largest topic for which ``solver="auto"`` uses Newton's method (dense n x n Hessian)
NEWTON_MAX_ITEMS = 2000


def strict_pairs(topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(judge, winner, loser)`` of the strict preferences, pairs of an item with itself dropped."""
    judge, win, lose = topic.strict()
    keep = win != lose
    return judge[keep], win[keep], lose[keep]


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
    if solver == "newton" or (solver == "auto" and convex and n_items <= NEWTON_MAX_ITEMS):
        scores = damped_newton(fun, hess, start, max_iter, tol)
    return _lbfgs(fun, start, max_iter, tol) if scores is None else scores


class BradleyTerry(CrowdAggregator):
    """Bradley-Terry scores by maximum likelihood with a small ridge.

    Bradley, R. A. and Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The
    method of paired comparisons. Biometrika 39, 324-345 (Niu et al.'s refs. [22], [23]). Minimises

        f(s) = -sum_{judgments a over b} log sigma(s_a - s_b) + reg ||s||^2 / 2,

    i.e. the MAP estimate under independent N(0, 1 / reg) priors on the scores. The ridge is
    needed: an item that wins all its contests has no finite maximum-likelihood score. At
    the optimum sum(s) = 0. choix's ``opt_pairwise(alpha)`` penalises ``alpha ||s||^2``
    (no 1/2), so it gives the same scores with ``alpha = reg / 2``.

    ``ties="drop"`` (default) ignores tie judgments, as eq (5) of Niu et al. makes equal grades
    "no preference"; ``ties="half"`` counts a tie as half a win each way (adds
    ``-(log sigma(d) + log sigma(-d)) / 2`` per tie, which pulls the two scores together).
    The paper fits by gradient ascent with a learning rate. Here, from s = 0 until
    max |gradient| <= ``tol``: ``solver="newton"``, damped Newton with the dense Hessian
    (:func:`bt_hessian`; ~10 steps of O(distinct pairs + n^3), needs reg > 0), or
    ``solver="lbfgs"``, L-BFGS-B with the analytic gradient (:func:`bt_objective`; O(distinct
    pairs + n) per step, but hundreds of steps when a few items win or lose everything).
    ``"auto"``: Newton when reg > 0 and n <= 2000, else L-BFGS-B (also the fallback if Newton
    fails numerically).
    """

    name = "bradley_terry"

    def __init__(self, reg: float = 0.01, ties: Literal["drop", "half"] = "drop",
                 solver: Literal["auto", "newton", "lbfgs"] = "auto", max_iter: int = 1000,
                 tol: float = 1e-8) -> None:
        self.reg, self.ties, self.solver, self.max_iter, self.tol = reg, ties, solver, max_iter, tol

    def _check_params(self) -> None:
        """Validate the parameters (called by ``fit``; the constructor only stores them)."""
        if self.reg < 0:
            raise ValueError(f"reg must be >= 0, got {self.reg}")
        if self.ties not in ("drop", "half"):
            raise ValueError(f"ties must be 'drop' or 'half', got {self.ties!r}")
        if self.solver not in ("auto", "newton", "lbfgs") or (self.solver == "newton" and self.reg <= 0):
            raise ValueError(f"solver must be 'auto', 'lbfgs' or 'newton' (with reg > 0), got {self.solver!r}")

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, None]:
        _, win, lose = strict_pairs(topic)
        weight = np.ones(len(win))
        if self.ties == "half":
            tie = (topic.outcome == 0) & (topic.left != topic.right)
            left, right = topic.left[tie], topic.right[tie]
            win = np.concatenate([win, left, right])
            lose = np.concatenate([lose, right, left])
            weight = np.concatenate([weight, np.full(2 * len(left), 0.5)])
        n = topic.n_items
        if len(win) == 0:
            return np.zeros(n), None
        a, b, w_ab, w_ba = pair_counts(win, lose, n, weight)
        return fit_bt_scores(a, b, w_ab, w_ba, n, self.reg, solver=self.solver, max_iter=self.max_iter,
                             tol=self.tol), None


def virtual_item_penalty(s: np.ndarray, virtual_weight: float) -> tuple[float, np.ndarray]:
    """Crowd-BT's regulariser: every item beats a virtual item of score 0 once and loses to it once.

        R(s) = virtual_weight sum_i [log(1 + e^{-s_i}) + log(1 + e^{s_i})],  dR/ds_i = virtual_weight tanh(s_i / 2)

    (Chen et al. 2013, the virtual-object term of their objective; minus its log-likelihood.)
    """
    value = virtual_weight * float(np.add.reduce(np.logaddexp(0.0, s) + np.logaddexp(0.0, -s)))
    return value, virtual_weight * np.tanh(0.5 * s)


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


class CrowdBT(CrowdAggregator):
    """Crowd-BT: Bradley-Terry with a per-judge skill, fitted offline by maximum likelihood.

    Chen, X., Bennett, P. N., Collins-Thompson, K. and Horvitz, E. (2013). Pairwise ranking
    aggregation in a crowdsourced setting. WSDM, 193-202 (Niu et al.'s ref. [4]). Judge k reports
    "i over j" with probability (their eq 3)

        P(i >_k j) = eta_k sigma(s_i - s_j) + (1 - eta_k) sigma(s_j - s_i),

    eta_k = the probability that k answers by the model rather than against it. Their
    regulariser adds a virtual item of score s_0 = 0 that every item beats once and loses to
    once, weight ``virtual_weight`` (their lambda); optional extras: a ridge reg ||s||^2 / 2
    and a Beta(``eta_prior``) prior per eta_k (default (1, 1): plain maximum likelihood).
    Ties are dropped (they are not preferences), as are pairs of an item with itself.

    The paper's offline problem (maximum likelihood over s and eta; it also gives an online
    moment-matching version, not used here) is solved jointly: L-BFGS-B over (s, eta) with
    the analytic gradient (:func:`crowd_bt_objective`), eta boxed in ``eta_bounds``, until the
    projected gradient is below ``tol``. The likelihood is unchanged by (s, eta) -> (-s, 1 - eta),
    also on any group of items judged by one judge only, so the start matters: s = the
    Crowd-BT-eq scores (convex, solved first, Newton as in :class:`BradleyTerry`) and eta_k =
    ``eta_init`` (0.9: most judges good). On trec_rf10 topic 20202 this start reaches a higher
    likelihood than s = 0. (At the optimum each eta_k is the fixed point of the EM update
    eta_k = mean over k's judgments of the posterior eta q / P that k answered honestly; one
    joint solve needs fewer objective evaluations than alternating s- and eta-steps.)

    ``skill=False`` fixes eta_k = 1 (the paper's "Crowd-BT-eq": Bradley-Terry with
    the virtual-item regulariser) and ``skills_`` is None; otherwise ``skills_`` = eta_k,
    NaN for a judge without a strict preference. Maximum likelihood puts judges with a few
    judgments at the bounds; ``eta_prior`` (e.g. (2, 2)) shrinks them.
    """

    name = "crowd_bt"

    def __init__(self, reg: float = 0.0, virtual_weight: float = 1.0, skill: bool = True,
                 eta_init: float = 0.9, eta_prior: tuple[float, float] = (1.0, 1.0),
                 eta_bounds: tuple[float, float] = (0.01, 0.99), max_iter: int = 5000, tol: float = 1e-6) -> None:
        self.reg, self.virtual_weight, self.skill = reg, virtual_weight, skill
        self.eta_init, self.eta_prior, self.eta_bounds = eta_init, eta_prior, eta_bounds
        self.max_iter, self.tol = max_iter, tol

    def _check_params(self) -> None:
        """Validate the parameters (called by ``fit``; the constructor only stores them)."""
        if self.reg < 0 or self.virtual_weight < 0:
            raise ValueError(f"reg and virtual_weight must be >= 0, got {self.reg}, {self.virtual_weight}")
        check_flag("skill", self.skill)
        if min(self.eta_prior) < 1:
            raise ValueError(f"eta_prior parameters must be >= 1, got {self.eta_prior}")
        if not 0 < self.eta_bounds[0] <= self.eta_init <= self.eta_bounds[1] < 1:
            raise ValueError("need 0 < eta_bounds[0] <= eta_init <= eta_bounds[1] < 1, "
                             f"got {self.eta_bounds}, {self.eta_init}")

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:
        n, m = topic.n_items, topic.n_judges
        judge, win, lose = strict_pairs(topic)
        judged = np.bincount(judge, minlength=m) > 0
        if len(win) == 0:
            return np.zeros(n), None if not self.skill else np.full(m, np.nan)
        s_eq = fit_bt_scores(*pair_counts(win, lose, n), n, self.reg, self.virtual_weight,
                             max_iter=self.max_iter, tol=min(self.tol, 1e-8))
        if not self.skill:
            return s_eq, None
        keys, count = np.unique((judge * n + win) * n + lose, return_counts=True)
        judge, win, lose = keys // (n * n), keys // n % n, keys % n
        x0 = np.concatenate([s_eq, np.full(m, float(self.eta_init))])
        scores, eta = fit_crowd_bt(judge, win, lose, count.astype(float), n, m, x0, self.virtual_weight, self.reg,
                                   self.eta_prior, self.eta_bounds, self.max_iter, self.tol)
        return scores, np.where(judged, eta, np.nan)


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
