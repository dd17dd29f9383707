"""MPM, the Multinomial Preference Model (Volkovs and Zemel, WWW 2012), with annotator adherence.

Volkovs, M. N. and Zemel, R. S. (2012). A flexible generative model for preference
aggregation. WWW '12, 479-488 (Niu et al.'s ref. [26]; the model is also in their JMLR 15 (2014)
1135-1176 paper, "New learning methods for supervised and unsupervised preference aggregation").

Item i has a score mu_i and an uncertainty sigma_i > 0; judge k has an adherence alpha_k (how
closely k follows the consensus; alpha_k < 0 = answers against it). Every strict judgment
"a over b" of judge k is one draw of an ordered pair from a multinomial over the ordered pairs
of the items k judged (V_k; ``support="all"``: all n items):

    P((a, b) | k) = exp(alpha_k f_ab) / Z_k,   f_ab = (mu_a - mu_b) / (sigma_a + sigma_b),
    Z_k = sum_{c != d in V_k} exp(alpha_k f_cd) = sum_{c < d in V_k} 2 cosh(alpha_k f_cd).

The log-likelihood is

    L = sum_k [ alpha_k sum_{(a, b)} y^k_ab f_ab - N_k log Z_k ]

(y^k_ab = number of times k preferred a over b, N_k = sum y^k), and the fit minimises

    J = -L / N + reg / 2 (||mu||^2 + ||log sigma||^2) + reg_alpha / (2 N) ||alpha - 1||^2

(N = all strict judgments; log sigma centred to mean 0). Items are ranked by mu. Duplicate
(judge, pair) judgments are summed first; one evaluation costs O(support cells + pairs),
vectorised with ``np.bincount`` / ``reduceat`` and a per-judge log-sum-exp shift. The solver
is a damped Newton method with the exact Hessian for small problems (<= 1,500 parameters and
<= 150,000 normaliser cells + pairs: all MIREX topics, most TREC ones), else L-BFGS-B with the
analytic gradient; both reach the same optimum (tested).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import expit

from manyjudges.core.parameters import BOOLEAN, Interval, Options
from manyjudges.core.solvers import lbfgsb
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.crowd.mpm_likelihood import FTOL, NEWTON_CELLS, NEWTON_DIM, MPMData, mpm_objective
from manyjudges.crowd.mpm_newton import mpm_hessian, newton

__all__ = ["MPM", "MPMData", "mpm_hessian", "mpm_objective"]


def _implied_accuracy(mu: np.ndarray, sigma: np.ndarray, adherence: np.ndarray, data: MPMData) -> np.ndarray:
    """Each judge's adherence on the pairwise-accuracy scale of eq (18), for Figure 2.

    Under MPM, judge k states "a over b" rather than "b over a" with probability
    sigma(2 alpha_k f_ab) (the two outcomes' ratio exp(alpha_k f_ab) / exp(-alpha_k f_ab)), so
    the model-implied probability that k agrees with the fitted order on a pair is
    sigma(2 alpha_k |f_ab|). skill_k = its mean over k's judged pairs (weighted by the number
    of strict judgments): 1/2 for alpha = 0, below 1/2 for a judge answering against the
    consensus; NaN for a judge with no strict judgment. (alpha itself is ``adherence_``.)
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
    """Multinomial Preference Model with per-judge adherence, by penalised maximum likelihood.

    Model and objective: module docstring. ``scores_`` = mu; ``adherence_`` = alpha_k and
    ``skills_`` = the accuracy it implies (:func:`_implied_accuracy`, on eq 18's [0, 1] scale so
    Figure 2 compares like with like; NaN for a judge without a strict judgment; None for
    MPM-eq); ``sigma_`` = sigma.
    Parameters: ``reg`` ridge on (mu, log sigma) per judgment; ``reg_alpha`` precision of the
    N(1, 1 / reg_alpha) prior on each alpha_k; ``skill=False`` fixes all alpha_k = 1 ("MPM-eq",
    Niu et al. set the skill parameters to 1); ``support`` "judge" (default) or "all" (the
    normaliser's pairs); ``solver`` "auto", "newton" or "lbfgs"; ``max_iter``; ``tol`` (max
    |gradient| of J at the stop).

    Reading: (1) Preferences are binary, so each strict judgment is one draw (y = 1; the paper's
    y may carry a strength such as a rank difference). (2) Ties carry no preference and are
    dropped, like eq 5 of Niu et al. for equal grades. (3) Judge k's multinomial runs over the
    ordered pairs of the items k judged (in any judgment, ties included): Z_k sums over those
    pairs, so a judge who judged one pair has P = 1 / (1 + exp(-2 alpha_k f_ab)), a
    Bradley-Terry-like term. ``support="all"`` instead normalises every judge over all
    n (n - 1) ordered pairs of the topic (the reading of the agRank R package's sgdMPM); it costs
    O(m n^2) per evaluation, seconds to tens of seconds on a 300-item topic. (4) alpha_k is
    unconstrained (a reversing judge gets alpha_k < 0). (5) The paper fits by gradient ascent
    with a hand-set learning rate (Niu et al.: 0.1 MIREX, 0.0001 TREC), i.e. early stopping; we
    optimise to convergence instead and regularise: reg = 1e-3 per judgment on mu and centred
    log sigma (without it the likelihood keeps growing as the inner items' sigma -> 0, and
    log sigma's mean is not identified since f is invariant to mu -> c mu, sigma -> c sigma), and
    a N(1, 1) prior (reg_alpha = 1) on each alpha_k, which keeps judges with one or two
    judgments from getting extreme adherences. Start: mu = net win share (wins - losses) /
    games, sigma = 1, alpha = 1.
    """

    name = "mpm"
    _parameter_constraints = {
        "reg": [Interval(Real, 0, None, closed="neither")],  # it fixes MPM's scale invariance
        "reg_alpha": [Interval(Real, 0, None)],
        "skill": [BOOLEAN],
        "support": [Options(("judge", "all"))],
        "solver": [Options(("auto", "newton", "lbfgs"))],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
    }

    def __init__(self, reg: float = 1e-3, reg_alpha: float = 1.0, skill: bool = True,
                 support: str = "judge", solver: str = "auto", max_iter: int = 500, tol: float = 1e-5):
        self.reg, self.reg_alpha, self.skill = reg, reg_alpha, skill
        self.support, self.solver, self.max_iter, self.tol = support, solver, max_iter, tol

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:
        n, m = topic.n_items, topic.n_judges
        data = MPMData(topic, self.support, self.skill)
        skill = np.full(m, np.nan) if self.skill else None
        if n < 2 or data.total == 0:
            return np.zeros(n), skill
        blocks = [_initial_mu(data), np.zeros(n)]
        if self.skill:
            blocks.append(np.ones(m))
        args = (self.reg, self.skill, self.reg_alpha)
        theta0 = np.concatenate(blocks)
        small = len(theta0) <= NEWTON_DIM and len(data.rq) + data.n_pairs <= NEWTON_CELLS
        if self.solver == "newton" or (self.solver == "auto" and small):
            theta, self.n_iter_ = newton(data, theta0, args, self.max_iter, self.tol)
        else:
            theta, self.n_iter_ = lbfgsb(lambda v: mpm_objective(v, data, *args), theta0, maxiter=self.max_iter,
                                         gtol=self.tol, ftol=FTOL, maxcor=20)
        self.sigma_ = np.exp(theta[n:2 * n] - theta[n:2 * n].mean())
        if self.skill:
            self.adherence_ = theta[2 * n:].copy()
            self.adherence_[data.n_k == 0] = np.nan
            skill = _implied_accuracy(theta[:n], self.sigma_, self.adherence_, data)
        return theta[:n].copy(), skill
