"""MACE: each judge either knows the answer or spams from its own label distribution (Hovy et al. 2013).

Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. and Hovy, E. (2013). Learning whom to trust with
MACE. Proceedings of NAACL-HLT 2013, 1120-1130.

Model (the paper's section 2; its eq. 1 is the marginal likelihood below). Item i has a true class T_i, uniform over
the K classes. For each label e = (item i, judge w, label a_e) the judge is spamming,
S_e = 1, with probability 1 - theta_w; spamming, it draws a_e from its own strategy xi_w (a
distribution over the classes); otherwise (S_e = 0) a_e = T_i. So

    P(a_e = c | T_i = t) = theta_w [c = t] + (1 - theta_w) xi_w[c]

and the marginal likelihood of the labels is prod_i (1/K) sum_t prod_{e in i} P(a_e | T_i = t)
(eq. 1). An iteration (the paper's EM; the authors' code's E-step and M-step) is:

- E-step (in log space): log P(T_i = t | labels) = -log K + sum_{e in i} log(m_e + theta_w [a_e = t])
  normalised over t, with m_e = (1 - theta_w) xi_w[a_e]; then with p_e = P(T_i = a_e | labels),
  P(S_e = 0 | labels) = p_e theta_w / (m_e + theta_w) and P(S_e = 1 | labels) = 1 - P(S_e = 0 | labels).
  Expected counts: know_w = sum_{e of w} P(S_e = 0), spam_w = sum_{e of w} P(S_e = 1) and
  strategy_w[c] = sum_{e of w, a_e = c} P(S_e = 1).
- M-step, ``method="em"``: (spam_w, know_w) and strategy_w normalised after adding ``smoothing``
  to every count (the authors' default 0.01 / K).
- M-step, ``method="vb"`` (section 2.3, Variational Bayes with a Beta prior on theta_w and a
  symmetric Dirichlet prior on xi_w): the posteriors are q(1 - theta_w, theta_w) =
  Dirichlet(spam_w + alpha, know_w + beta) and q(xi_w) = Dirichlet(strategy_w + strategy_prior),
  and the next E-step uses the weights exp(E_q[log .]) = exp(digamma(count + prior) -
  digamma(total + prior total)) in place of the parameters. The prior's parameters follow the
  authors' code: ``alpha`` is the pseudo-count of spamming, ``beta`` of knowing (so theta_w ~
  Beta(beta, alpha)), 0.5 each by default, and the strategy prior is 10 for every class.

Each restart starts from random parameters (the authors' code: every entry 1 + ``init_noise``
times a uniform draw on [0, 1), then each row normalised), runs ``n_iter`` iterations (a fixed
number, as the authors' code) and ends with an E-step. The restart kept is the one with the
highest objective: for EM the marginal log-likelihood sum_i log sum_t ... above (the
authors' criterion); for VB the evidence lower bound

    ELBO = sum_i log Z_i - sum_w KL(q(theta_w) || Beta(beta, alpha)) - sum_w KL(q(xi_w) || Dir(strategy_prior))

where log Z_i is the E-step's log normaliser computed with the VB weights (this is E_q[log
p(labels, T, S | theta, xi)] + H(q(T, S)) at the E-step's optimal q(T, S)), so the ELBO never
decreases from one iteration to the next. Restarts draw from one numpy Generator made from
``random_state``, so the first restart of a run does not depend on ``n_restarts``.

``skills_`` is theta_w (competence: the probability of knowing; its posterior mean under VB)
and ``confusions_`` the implied P(a = c | T = t) = theta_w [c = t] + (1 - theta_w) xi_w[c]
(posterior means under VB, which is also the posterior predictive there).

Gold items (``fit(labels, gold=...)``: items i with a known class c_i): P(T_i = t | labels) (under VB,
q(T_i)) is one-hot on c_i from the start and after every E-step, so on their labels
P(S_e = 0 | labels) = [a_e = c_i] theta_w / (m_e + theta_w) and the spamming counts, hence theta_w
and xi_w, are learned from them too. Their term of the objective is the joint
log Z_i = -log K + sum_{e in i} log(m_e + theta_w [a_e = c_i]) (the log-likelihood with T_i = c_i
under EM; E_q[log p] + H(q(S)) with q(T_i) fixed under VB), which EM and VB still never decrease
and by which the restarts are compared.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import digamma, gammaln

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Interval, Options
from manyjudges.core.posteriors import posteriors_from_log_joint
from manyjudges.truth.base import TruthEstimator, TruthFit

__all__ = ["MACE"]

METHODS = ("vb", "em")
#: floor of a spamming probability times a strategy weight before its log (log 1e-300 ~ -691)
_TINY = 1e-300


@dataclass(frozen=True)
class _Restart:
    """One restart's end point: the E-step on the last M-step's parameters (or VB weights)."""

    #: (n_items, K) P(T_i = t | labels)
    posteriors: np.ndarray
    #: (n_judges, 2) the (spam, know) counts and (n_judges, K) the strategy counts behind the last M-step
    #: (the Dirichlet parameters under VB, prior included; the smoothed counts under EM)
    knowing: np.ndarray
    strategy: np.ndarray
    #: the marginal log-likelihood (EM) or the ELBO (VB) after each iteration
    history: np.ndarray

    @property
    def objective(self) -> float:
        return float(self.history[-1])


@dataclass(frozen=True)
class _Codes:
    """Flat indexes of the labels, computed once per fit: ``judge * K + label`` and ``label * n_items + item``."""

    judge_label: np.ndarray
    label_item: np.ndarray

    @classmethod
    def of(cls, data: CrowdLabels) -> _Codes:
        return cls(data.judge * data.n_classes + data.label, data.label * data.n_items + data.item)


def _e_step(data: CrowdLabels, spam: np.ndarray, xi: np.ndarray, codes: _Codes | None = None,
            known: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(posteriors, (n_judges, 2) expected (spam, know) counts, (n_judges, K) strategy counts, sum_i log Z_i).

    ``spam[w] = (P(spamming), P(knowing))`` and ``xi[w]`` the strategy (VB: the exp-digamma weights).
    The posteriors come transposed, (K, n_items): the sums over the classes are then K-term
    element-wise operations rather than reductions along short rows. ``known = (items, classes)``:
    gold items, one-hot on their class, log Z_i their joint term at it.
    """
    k, n, n_judges = data.n_classes, data.n_items, data.n_judges
    codes = _Codes.of(data) if codes is None else codes
    m = spam[:, 0][data.judge] * xi.ravel()[codes.judge_label]
    know = spam[:, 1][data.judge]
    log_m = np.log(np.maximum(m, _TINY))
    # every label contributes log m_e to each class, and log(m_e + know) - log m_e more to its own class
    joint = np.bincount(codes.label_item, weights=np.log(m + know) - log_m, minlength=k * n).reshape(k, n)
    joint += np.bincount(data.item, weights=log_m, minlength=n) - np.log(k)
    post, log_z = posteriors_from_log_joint(joint, known)
    p_know = post.ravel()[codes.label_item] * know / (m + know)
    strategy = np.bincount(codes.judge_label, weights=1.0 - p_know, minlength=n_judges * k).reshape(n_judges, k)
    # a judge's expected spamming count is the sum of its strategy counts
    counts = np.column_stack([strategy.sum(axis=1), np.bincount(data.judge, weights=p_know, minlength=n_judges)])
    return post, counts, strategy, float(log_z.sum())


def _normalise(counts: np.ndarray) -> np.ndarray:
    """Rows divided by their sums (a row summing to 0 stays 0, as the authors' code)."""
    total = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def _exp_digamma(params: np.ndarray) -> np.ndarray:
    """exp(E[log p]) under Dirichlet(params) per row: exp(digamma(a) - digamma(sum a))."""
    return np.exp(digamma(params) - digamma(params.sum(axis=1, keepdims=True)))


def _kl_dirichlet(post: np.ndarray, prior: np.ndarray) -> float:
    """Sum over rows of KL(Dirichlet(post row) || Dirichlet(prior row))."""
    post_total, prior_total = post.sum(axis=1), prior.sum(axis=1)
    kl = (gammaln(post_total) - gammaln(post).sum(axis=1) - gammaln(prior_total) + gammaln(prior).sum(axis=1)
          + ((post - prior) * (digamma(post) - digamma(post_total)[:, None])).sum(axis=1))
    return float(kl.sum())


def _run(data: CrowdLabels, spam: np.ndarray, xi: np.ndarray, n_iter: int, method: str, smoothing: float,
         alpha: float, beta: float, strategy_prior: float, known: tuple[np.ndarray, np.ndarray] | None = None
         ) -> _Restart:
    """Run one restart from ``spam`` (n_judges, 2: P(spamming), P(knowing)) and ``xi`` (n_judges, K).

    Gold items ``known`` (item codes, class codes) are fixed.
    """
    codes = _Codes.of(data)
    _, counts, strategy, log_z = _e_step(data, spam, xi, codes, known)
    spam_prior = np.broadcast_to(np.array([alpha, beta], dtype=float), counts.shape)
    xi_prior = np.full(strategy.shape, float(strategy_prior))
    history = np.empty(n_iter)
    for t in range(n_iter):
        if method == "em":
            knowing, strat = counts + smoothing, strategy + smoothing
            spam, xi = _normalise(knowing), _normalise(strat)
        else:
            knowing, strat = counts + spam_prior, strategy + xi_prior
            spam, xi = _exp_digamma(knowing), _exp_digamma(strat)
        post, counts, strategy, log_z = _e_step(data, spam, xi, codes, known)
        if method == "em":
            history[t] = log_z
        else:
            history[t] = log_z - _kl_dirichlet(knowing, spam_prior) - _kl_dirichlet(strat, xi_prior)
    return _Restart(np.ascontiguousarray(post.T), knowing, strat, history)


class MACE(TruthEstimator):
    """MACE (Hovy et al. 2013): judges know the answer with probability theta, else spam; EM or VB, restarts.

    Parameters
    ----------
    n_restarts : int
        Random restarts (>= 1); the best by marginal log-likelihood (EM) or ELBO (VB) is kept.
    n_iter : int
        Iterations per restart (>= 1).
    method : {"vb", "em"}
        ``"vb"`` (Variational Bayes with the priors below, the authors' default) or ``"em"``.
    alpha, beta : float
        Beta prior pseudo-counts of spamming and of knowing (VB only; > 0).
    strategy_prior : float
        Symmetric Dirichlet prior on each judge's spamming strategy (VB only; > 0).
    smoothing : float or None
        Pseudo-count added to every expected count before normalising (EM only; >= 0);
        None: 0.01 / K (the authors' default).
    init_noise : float
        Restarts start at 1 + init_noise * uniform[0, 1) per entry, rows normalised (>= 0).
    random_state : int
        The integer (>= 0) the restarts' numpy Generator is made from.

    Attributes
    ----------
    skills_ : pandas.Series
        theta by judge.
    strategies_ : pandas.DataFrame
        xi, judges by class.
    confusions_ : pandas.DataFrame
        The judges' confusions.
    objective_ : float
        The objective of the kept restart.
    objectives_ : ndarray, shape (n_restarts,)
        Every restart's objective.
    best_restart_ : int
        The kept restart (0-based).
    n_iter_ : int
        Iterations per restart; the other base attributes as in :class:`~manyjudges.truth.base.TruthEstimator`.

    Notes
    -----
    Gold items keep their known class in every restart (module docstring).
    """

    gold_use = "fit"
    _parameter_constraints = {
        **TruthEstimator._parameter_constraints,
        "n_restarts": [Interval(Integral, 1, None)],
        "n_iter": [Interval(Integral, 1, None)],
        "method": [Options(METHODS)],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "strategy_prior": [Interval(Real, 0, None, closed="neither")],
        "smoothing": [Interval(Real, 0, None), None],
        "init_noise": [Interval(Real, 0, None)],
        "random_state": [Interval(Integral, 0, None)],
    }

    def __init__(self, n_restarts: int = 10, n_iter: int = 50, method: str = "vb", alpha: float = 0.5,
                 beta: float = 0.5, strategy_prior: float = 10.0, smoothing: float | None = None,
                 init_noise: float = 0.5, random_state: int = 0, calibrate: str | None = None):
        self.n_restarts, self.n_iter, self.method, self.alpha, self.beta = n_restarts, n_iter, method, alpha, beta
        self.strategy_prior, self.smoothing, self.init_noise = strategy_prior, smoothing, init_noise
        self.random_state, self.calibrate = random_state, calibrate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        k, n_judges = data.n_classes, data.n_judges
        smoothing = 0.01 / k if self.smoothing is None else float(self.smoothing)
        rng = np.random.default_rng(int(self.random_state))
        noise = float(self.init_noise)
        best: _Restart | None = None
        objectives = []
        for restart in range(int(self.n_restarts)):
            spam = _normalise(1.0 + noise * rng.random((n_judges, 2)))
            xi = _normalise(1.0 + noise * rng.random((n_judges, k)))
            result = _run(data, spam, xi, int(self.n_iter), self.method, smoothing, float(self.alpha),
                          float(self.beta), float(self.strategy_prior), gold)
            objectives.append(result.objective)
            if best is None or result.objective > best.objective:
                best, self.best_restart_ = result, restart
        assert best is not None
        # EM: the smoothed counts normalised are the parameters; VB: the posterior means
        theta = _normalise(best.knowing)[:, 1]
        xi = _normalise(best.strategy)
        confusions = (1.0 - theta)[:, None, None] * xi[:, None, :] + theta[:, None, None] * np.eye(k)[None]
        self.strategies_ = pd.DataFrame(xi, index=pd.Index(data.judges, name="judge"),
                                        columns=pd.Index(data.classes, name="label"))
        self.objective_ = best.objective
        self.objectives_ = np.asarray(objectives)
        return TruthFit(proba=best.posteriors, skills=theta, confusions=confusions,
                        n_iter=int(self.n_iter))
