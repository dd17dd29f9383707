"""The consensus measure of Lin, Li and Guo as an ordered-list scorer (the ``consensus`` row of the ED tables).

Each term of the score is the consensus measure of a PAIR {candidate, gold ordering}, so every
term is computed once per distinct (candidate, gold) pair of orderings, batched:

- the common-precedence DAG of two weak orders c and g has an edge a -> b iff a is strictly
  before b in both; sorting the items by their rank in c (any order among c's ties) is a
  topological order of every such DAG, so the weighted number of its paths is one forward
  substitution z_j = 1 + sum_{i < j, a_i -> a_j} G_ij z_i (Lin, Li, Guo; docs/methods.md, section 4.4,
  "Computation"), vectorised over all pairs at once;
- gold orderings are reduced to their distinct rows with multiplicities, and leave one judge
  out subtracts the held-out judge's own term from the multiplicity-weighted sum.
"""
from __future__ import annotations

import math
from numbers import Real

import numpy as np

from manyjudges.core.counting import FLOAT_EXACT_MAX_ITEMS
from manyjudges.core.parameters import Interval
from manyjudges.core.ranks import as_rank_matrix, distinct_rows, reverse_ranks
from manyjudges.orderings.base import OrderingScorer

__all__ = ["ConsensusScorer"]

#: pairs x items^2 cells per batch of the forward substitution (bounds the memory of a batch)
_BATCH_CELLS = 2_000_000


class ConsensusScorer(OrderingScorer):
    """Ordered-list scorer from the consensus measure (extra row ``consensus``; Lin, Li, Guo).

    s(O; O_1..O_n) = mean_i log2(1 + kappa({O, O_i})) / log2(1 + kappa({O}))

    kappa({O}) counts every subsequence of O (2^k - 1 with lambda = gamma = 1), so each
    term is the "effective length" of what O shares with judge i relative to O itself:
    1 when they agree, log2(k + 1) / k for the reverse. **Choice** (a better-founded
    normalisation; docs/methods.md, consensus section): the raw ratio kappa({O, O_i}) / kappa({O})
    is dominated by the longest subsequences and is ~0 for any real disagreement; the
    log ratio keeps a usable scale. With lambda or gamma < 1 a shared subsequence may
    weigh more than in O alone, so the mean is clipped to [0, 1].

    The positions of an ordering are its ranks (tied items share a position). Terms are
    computed once per distinct (candidate, gold) pair (:func:`_pair_log2_kappa`): exact
    integer counts when lambda = gamma = 1, log-space weighted sums otherwise.
    """

    _parameter_constraints = {"lam": [Interval(Real, 0, None, closed="neither")],
                              "gamma": [Interval(Real, 0, None, closed="neither")]}

    def __init__(self, lam: float = 1.0, gamma: float = 1.0) -> None:
        self.lam, self.gamma = lam, gamma

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """ED terms on the distinct gold orderings.

        For a held-out judge with distinct ordering U_a and a candidate c (U_a or its reverse),
        sum_{j != i} T(c, O_j) = sum_v m_v T(c, U_v) - T(c, U_a), T = log2(1 + kappa({c, .})).
        """
        humans = as_rank_matrix(humans)
        n, k = humans.shape
        allg = humans if noise is None or len(noise) == 0 else np.vstack([humans, as_rank_matrix(noise)])
        unique, inverse, counts = distinct_rows(allg)
        held, judge_row = np.unique(inverse[:n], return_inverse=True)
        h = len(held)
        cands = np.vstack([unique[held], reverse_ranks(unique[held])])  # (2h, k): orderings, then reverses
        terms = _pair_log2_kappa(cands, unique, self.lam, self.gamma)  # (2h, u)
        own_term = terms[np.arange(2 * h), np.tile(held, 2)]
        base = _own_log2_kappa(cands, self.lam, self.gamma)
        scores = np.clip((terms @ counts - own_term) / (len(allg) - 1) / base, 0.0, 1.0)
        return (scores[:h] - scores[h:])[judge_row.reshape(-1)]

    def score(self, candidates: np.ndarray) -> np.ndarray:
        """Return s(O; gold) of each candidate O: mean_i log2(1 + kappa({O, O_i})) / log2(1 + kappa({O})), in [0, 1]."""
        gold = self._fitted_gold()
        self._check_params()
        candidates = as_rank_matrix(candidates)
        unique, _, counts = distinct_rows(gold)
        terms = _pair_log2_kappa(candidates, unique, self.lam, self.gamma)
        base = _own_log2_kappa(candidates, self.lam, self.gamma)
        return np.clip(terms @ counts / len(gold) / base, 0.0, 1.0)


def _pair_log2_kappa(candidates: np.ndarray, golds: np.ndarray, lam: float = 1.0, gamma: float = 1.0
                    ) -> np.ndarray:
    """(c, g) matrix of log2(1 + kappa({candidate, gold})), the consensus measure of each pair.

    Rows are rank rows over the same items (ties share a rank; the ranks are the positions).
    Equal to :func:`manyjudges.consensus.measure.consensus_measure` on ``positions=[c, g]``
    with :func:`~manyjudges.consensus.measure.log2_kappa_plus_one`.
    """
    cands, golds = as_rank_matrix(candidates), as_rank_matrix(golds)
    c, k = cands.shape
    out = np.empty((c, len(golds)))
    step = max(1, _BATCH_CELLS // max(1, len(golds) * k * k))
    for start in range(0, c, step):
        block = cands[start:start + step]
        left = np.repeat(block, len(golds), axis=0)
        right = np.tile(golds, (len(block), 1))
        out[start:start + step] = _log2_kappa_rows(left, right, lam, gamma).reshape(len(block), len(golds))
    return out


def _own_log2_kappa(candidates: np.ndarray, lam: float = 1.0, gamma: float = 1.0) -> np.ndarray:
    """log2(1 + kappa({O})) of each ordering alone (the consensus of one ranking = that of {O, O})."""
    cands = as_rank_matrix(candidates)
    return _log2_kappa_rows(cands, cands, lam, gamma)


def _log2_kappa_rows(left: np.ndarray, right: np.ndarray, lam: float, gamma: float) -> np.ndarray:
    """log2(1 + kappa({left[p], right[p]})) for each row p (same shapes)."""
    if len(left) == 0:
        return np.zeros(0)
    order = np.argsort(left, axis=1, kind="stable")  # a topological order of every pair's DAG
    lp = np.take_along_axis(left, order, axis=1)
    rp = np.take_along_axis(right, order, axis=1)
    edges = (lp[:, :, None] < lp[:, None, :]) & (rp[:, :, None] < rp[:, None, :])  # (B, k, k), upper
    if lam == 1 and gamma == 1:
        return _log2_count_plus_one(edges)
    return _log2_weighted_plus_one(edges, lp, rp, float(lam), float(gamma))


def _log2_count_plus_one(edges: np.ndarray) -> np.ndarray:
    """log2(1 + number of paths) of each DAG (vertices in a topological order), counts exact.

    float64 holds every count exactly up to FLOAT_EXACT_MAX_ITEMS items (at most 2^k - 1
    paths); beyond, the substitution runs on Python integers.
    """
    batch, k, _ = edges.shape
    exact_float = k <= FLOAT_EXACT_MAX_ITEMS
    z = np.zeros((batch, k), dtype=float if exact_float else object)
    for j in range(k):
        z[:, j] = 1 + np.where(edges[:, :j, j], z[:, :j], 0).sum(axis=1)
    total = z.sum(axis=1)
    if exact_float:
        return np.log2(1.0 + total)
    return np.array([math.log2(1 + int(t)) for t in total])


def _log2_weighted_plus_one(edges: np.ndarray, lp: np.ndarray, rp: np.ndarray, lam: float, gamma: float
                            ) -> np.ndarray:
    """log2(1 + kappa) of each pair with weights: f(i) = gamma ** sigma_i, g(i, j) = lam ** mean gap.

    kappa = sum_i f(i) + (sum of path weights over paths of >= 2 vertices) = sum f + (total - k),
    total = sum_j z_j from the forward substitution, run in log space as
    :func:`manyjudges.core.counting.weighted_paths_total` does.
    """
    batch, k, _ = edges.shape
    pos = np.stack([lp, rp])  # (2, B, k) positions of the two rankings
    mean = 0.5 * pos[0] + 0.5 * pos[1]
    sigma = np.sqrt(0.5 * (pos[0] - mean) ** 2 + 0.5 * (pos[1] - mean) ** 2)
    kappa_1 = (gamma ** sigma).sum(axis=1)
    with np.errstate(divide="ignore"):
        log_g = np.where(edges, (mean[:, None, :] - mean[:, :, None]) * math.log(lam), -np.inf)
    log_z = np.zeros((batch, k))
    for j in range(1, k):
        terms = log_g[:, :j, j] + log_z[:, :j]
        top = terms.max(axis=1)
        alive = np.isfinite(top)
        safe = np.where(alive, top, 0.0)
        with np.errstate(divide="ignore"):
            inner = safe + np.log(np.exp(terms - safe[:, None]).sum(axis=1))
        log_z[:, j] = np.where(alive, np.logaddexp(0.0, inner), 0.0)
    top = log_z.max(axis=1)
    log_total = top + np.log(np.exp(log_z - top[:, None]).sum(axis=1))
    log_k = math.log(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_longer = np.where(log_total > log_k, log_total + np.log1p(-np.exp(log_k - log_total)), -np.inf)
    log_kappa = np.logaddexp(np.log(kappa_1), log_longer)
    return np.logaddexp(0.0, log_kappa) / math.log(2)
