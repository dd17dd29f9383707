"""EMeloRating (Bashir, Anderton, Wu, Golbus, Pavlu, Aslam, SIGIR 2013): EM-cleaned preferences, Elo ratings.

Bashir, M., Anderton, J., Wu, J., Golbus, P. B., Pavlu, V. and Aslam, J. A. (2013). A document
rating system for preference judgements. SIGIR '13, 909-912 (Niu et al.'s ref. [2]); the EM step is
J. Wu's thesis "Applying EM to compute document relevance from crowdsourced pair preferences"
(Northeastern University, 2013; Niu et al.'s ref. [27]). Niu et al. (WSDM 2015) describe it as: estimate
pairwise probabilities and annotator skills by EM, then rate documents from the preferences
with the Elo rating system; "EMeloRating-eq" feeds all preferences to Elo without the skill step.

1. EM (Dawid and Skene 1979, on pair labels). Each judged pair {a, b} (a < b) has a hidden
   label c in {a preferred, b preferred, tie} (tie only when the topic has ties) with prior
   rho_c; judge k reports label l with probability pi_k[c, l] (a confusion matrix). E-step:
   T_p(c) proportional to rho_c prod_{judgments j of p} pi_{k_j}[c, l_j]. M-step:
   pi_k[c, l] proportional to 0.01 + [c = l] + sum_j T_{p_j}(c) [l_j = l] and rho_c to
   sum_p T_p(c), both made symmetric in the pair's two items. Started from the per-pair label
   shares (soft majority vote); stops when the log-likelihood per judgment changes by < ``tol``.
2. Elo (Elo 1978, "The rating of chessplayers, past and present"). Every judged pair is one game
   with score S_p (for a): the EM posterior expectation T_p(a) + T_p(tie) / 2 (EMeloRating), or
   the share of the pair's raw judgments, (#a + #tie / 2) / #judgments (EMeloRating-eq). With
   expected score E = 1 / (1 + 10^((R_b - R_a) / scale)): R_a += K (S - E), R_b -= K (S - E).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from manyjudges.core.dawid_skene_em import dawid_skene
from manyjudges.core.pairwise.elo import ELO_CONSTRAINTS, elo_ratings
from manyjudges.core.parameters import BOOLEAN, Interval
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.judgments import TopicJudgments

#: pair labels 0 (pair_a preferred), 1 (pair_b), 2 (tie) with the pair's two items swapped
PAIR_MIRROR = (1, 0, 2)


class PairLabels:
    """One topic's judgments as pair labels.

    ``pair_a < pair_b`` the judged pairs; per distinct (judge, pair, label) ``k, p, label, count``;
    label 0 = pair_a preferred, 1 = pair_b, 2 = tie (``n_classes`` = 3 when the topic has a tie, else
    2).
    """

    def __init__(self, topic: TopicJudgments):
        n, m = topic.n_items, topic.n_judges
        left, right, outcome = topic.left, topic.right, topic.outcome.astype(np.int64)
        keep = left != right
        judge, left, right, outcome = topic.judge[keep], left[keep], right[keep], outcome[keep]
        a, b = np.minimum(left, right), np.maximum(left, right)
        oriented = np.where(left == a, outcome, -outcome)  # +1: a preferred, -1: b preferred, 0 tie
        label = np.where(oriented > 0, 0, np.where(oriented < 0, 1, 2))
        pair_key, p = np.unique(a * n + b, return_inverse=True)
        self.n_classes = 3 if (label == 2).any() else 2
        c = self.n_classes
        key, count = np.unique((judge * len(pair_key) + p) * c + label, return_counts=True)
        self.n, self.m = n, m
        self.pair_a, self.pair_b = pair_key // n, pair_key % n
        self.label = key % c
        self.p = (key // c) % len(pair_key)
        self.k = key // c // len(pair_key)
        self.count = count.astype(float)

    @property
    def n_pairs(self) -> int:
        """Number of judged pairs."""
        return len(self.pair_a)

    def shares(self) -> np.ndarray:
        """(pairs, classes) share of each label among the pair's judgments."""
        c = self.n_classes
        t = np.bincount(self.p * c + self.label, weights=self.count, minlength=self.n_pairs * c)
        t = t.reshape(self.n_pairs, c)
        return t / t.sum(axis=1, keepdims=True)


def dawid_skene_pairs(data: PairLabels, max_iter: int = 100, tol: float = 1e-6, smoothing: float = 0.01,
                      diagonal: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """EM over pair labels: ``(posterior (pairs, C), confusion (m, C, C), prior (C,), iterations)``.

    The one Dawid-Skene EM (:func:`~manyjudges.core.dawid_skene_em.dawid_skene`) on the pair labels (each
    distinct (judge, pair, label) repeated ``count`` times), started from the per-pair label shares, with:
    pseudo-counts ``smoothing`` on every cell of a confusion matrix and ``diagonal`` more on its diagonal
    (a Dirichlet prior leaning to "the judge answers what is true", which breaks the label-swap symmetry
    of a judge whose pairs nobody else judged); confusion matrices and prior kept symmetric under swapping
    the two items (``mirror`` = :data:`PAIR_MIRROR`: the M-step counts are added to their mirror image), so
    the result does not depend on which item of a pair has the lower index; and a stop when the mean
    log-likelihood per judgment changes by less than ``tol`` (``stop="mean_log_likelihood"``).
    """
    times = data.count.astype(np.int64)
    fit = dawid_skene(np.repeat(data.p, times), np.repeat(data.k, times), np.repeat(data.label, times),
                      n_items=data.n_pairs, n_judges=data.m, n_classes=data.n_classes, max_iter=max_iter, tol=tol,
                      smoothing=smoothing, init="majority", model="full", stop="mean_log_likelihood",
                      diagonal=diagonal, mirror=PAIR_MIRROR[:data.n_classes])
    return fit.posteriors, fit.confusion, fit.priors, fit.n_iter


def judge_agreement(data: PairLabels, posterior: np.ndarray) -> np.ndarray:
    """Per judge: expected share of its judgments that equal the pair's hidden label (NaN: none)."""
    agree = np.bincount(data.k, weights=data.count * posterior[data.p, data.label], minlength=data.m)
    total = np.bincount(data.k, weights=data.count, minlength=data.m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, agree / np.where(total > 0, total, 1.0), np.nan)


class EMEloRating(CrowdAggregator):
    """EMeloRating: Dawid-Skene EM on pair labels, then Elo ratings of the items (module docstring).

    ``scores_`` = Elo ratings. ``skills_`` = per judge, the expected share of its judgments
    that agree with the EM posterior label of the pair (its confusion matrix's accuracy on the
    pairs it judged); None for EMeloRating-eq (``skill=False``), which skips EM and plays
    each pair with the raw share of its judgments; ``confusion_`` = the confusion matrices.
    Parameters: ``k_factor``, ``n_passes``, ``initial_rating``, ``scale`` (Elo); ``max_iter``,
    ``tol``, ``smoothing``, ``diagonal`` (EM pseudo-counts); ``random_state`` (seed of the fixed game order).

    Reading: (1) Bashir et al.'s K factor, initial rating and number of games are not available
    to us (Niu et al.: "the parameter setting in EMeloRating is the same as in [2]"); we use Elo's
    chess conventions, K = 32, initial 1500, logistic base 10 with scale 400. (2) One game per
    judged pair whose score is soft: the EM posterior expected score (EMeloRating) or the raw
    judgment share (EMeloRating-eq); "filtered/weighted by skill" is read as the EM posterior,
    which weights each judgment by its judge's confusion matrix (no hard threshold), and ties
    score 1/2. (3) Elo depends on game order; we make it deterministic: the games of a pass are
    grouped into rounds (each item at most once per round, built greedily from a fixed seeded
    order) and the same schedule is replayed ``n_passes`` = 10 times with a constant K.
    (4) The EM's labels are left / right / tie, its confusion matrices are symmetric in the
    pair's two items (no position bias is modelled), and its M-step adds pseudo-counts 0.01
    per cell plus 1 on the diagonal (without them, a judge whose pairs nobody else judged can
    flip to "always wrong" as easily as "always right"). (5) EMeloRating-eq is read as
    all judgments entering Elo unweighted (no EM), so it is a true no-skill ablation; Niu et al.
    remark that their EMeloRating-eq still contained EM, which we cannot reproduce exactly.
    """

    name = "em_elo_rating"
    _parameter_constraints = {
        **ELO_CONSTRAINTS,
        "skill": [BOOLEAN],
        "initial_rating": [Interval(Real)],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "smoothing": [Interval(Real, 0, None)],
        "diagonal": [Interval(Real, 0, None)],
    }

    def __init__(self, k_factor: float = 32.0, n_passes: int = 10, skill: bool = True,
                 initial_rating: float = 1500.0, scale: float = 400.0, max_iter: int = 100,
                 tol: float = 1e-6, smoothing: float = 0.01, diagonal: float = 1.0, random_state: int = 0):
        self.k_factor, self.n_passes, self.skill = k_factor, n_passes, skill
        self.initial_rating, self.scale, self.max_iter, self.tol = initial_rating, scale, max_iter, tol
        self.smoothing, self.diagonal, self.random_state = smoothing, diagonal, random_state

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:
        data = PairLabels(topic)
        if data.n_pairs == 0:
            skill = None if not self.skill else np.full(topic.n_judges, np.nan)
            return np.full(topic.n_items, self.initial_rating), skill
        if not self.skill:
            post, skill = data.shares(), None
        else:
            post, confusion, _, self.n_iter_ = dawid_skene_pairs(data, self.max_iter, self.tol, self.smoothing,
                                                                 self.diagonal)
            self.confusion_ = confusion
            skill = judge_agreement(data, post)
        score = post[:, 0] + (0.5 * post[:, 2] if data.n_classes == 3 else 0.0)
        ratings = elo_ratings(data.pair_a, data.pair_b, score, topic.n_items, self.k_factor, self.n_passes,
                              self.initial_rating, self.scale, self.random_state)
        return ratings, skill
