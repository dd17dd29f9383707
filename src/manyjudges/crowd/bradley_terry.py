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

from numbers import Integral, Real
from typing import Literal

import numpy as np

from manyjudges.core.pairwise.bradley_terry import fit_bt_scores, pair_counts
from manyjudges.core.pairwise.crowd_bt import CROWD_BT_CONSTRAINTS, CrowdBTParams, fit_crowd_bt
from manyjudges.core.parameters import BOOLEAN, Interval, Options, invalid
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.judgments import TopicJudgments


def strict_pairs(topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(judge, winner, loser)`` of the strict preferences, pairs of an item with itself dropped."""
    judge, win, lose = topic.strict()
    keep = win != lose
    return judge[keep], win[keep], lose[keep]


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
    _parameter_constraints = {
        "reg": [Interval(Real, 0, None)],
        "ties": [Options(("drop", "half"))],
        "solver": [Options(("auto", "newton", "lbfgs"))],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
    }

    def __init__(self, reg: float = 0.01, ties: Literal["drop", "half"] = "drop",
                 solver: Literal["auto", "newton", "lbfgs"] = "auto", max_iter: int = 1000,
                 tol: float = 1e-8) -> None:
        self.reg, self.ties, self.solver, self.max_iter, self.tol = reg, ties, solver, max_iter, tol

    def _check_params(self) -> None:
        """Check the declared constraints, then that Newton has reg > 0."""
        super()._check_params()
        if self.solver == "newton" and self.reg == 0:
            raise invalid(type(self).__name__, "solver", "'auto' or 'lbfgs' when reg is 0", self.solver)

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


class CrowdBT(CrowdBTParams, CrowdAggregator):
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
    _parameter_constraints = {**CROWD_BT_CONSTRAINTS, "skill": [BOOLEAN]}

    def __init__(self, reg: float = 0.0, virtual_weight: float = 1.0, skill: bool = True,
                 eta_init: float = 0.9, eta_prior: tuple[float, float] = (1.0, 1.0),
                 eta_bounds: tuple[float, float] = (0.01, 0.99), max_iter: int = 5000, tol: float = 1e-6) -> None:
        self.reg, self.virtual_weight, self.skill = reg, virtual_weight, skill
        self.eta_init, self.eta_prior, self.eta_bounds = eta_init, eta_prior, eta_bounds
        self.max_iter, self.tol = max_iter, tol

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


