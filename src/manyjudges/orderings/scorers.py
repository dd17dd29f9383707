"""Correlation-based ordering scorers: AC, WCA and RBA (Kim, Zhai, Han, ECIR 2010, s.3.1).

Every scorer follows the ordered-list contract (:class:`~manyjudges.orderings.base.OrderingScorer`):
``fit(gold)`` on an ``(n, k)`` rank matrix of gold orderings, then ``score(candidates)``
on a ``(c, k)`` rank matrix gives ``c`` scores. Built-ins also offer
``leave_one_out_differences(humans, noise)``, a vectorised form of the
evaluation-discriminativeness terms s(O_i; others) - s(rev O_i; others).
Correlations are normalised to [0, 1] by (c + 1) / 2 (reading: docs/methods.md, "Ordered lists").
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.correlation import CORRELATIONS, correlation_matrix, rowwise_correlation
from manyjudges.core.parameters import Options
from manyjudges.core.ranks import as_rank_matrix, average_ranks, distinct_rows, rank_sum_order
from manyjudges.orderings.base import OrderingScorer

__all__ = ["AverageCorrelation", "WeightedCorrelationAverage", "RankBasedAggregation"]


class _CorrelationScorer(OrderingScorer):
    """A scorer built on a rank correlation: ``correlation`` is "kendall" (tau-b) or "spearman"."""

    _parameter_constraints = {"correlation": [Options(CORRELATIONS)]}

    def __init__(self, correlation: str = "kendall") -> None:
        self.correlation = correlation


def _stack(humans: np.ndarray, noise: np.ndarray | None) -> np.ndarray:
    humans = as_rank_matrix(humans)
    if noise is None or len(noise) == 0:
        return humans
    return np.vstack([humans, as_rank_matrix(noise)])


class _DistinctGold:
    """The gold orderings of a leave-one-out pass (humans, then noise) reduced to distinct rows.

    ``unique`` (u, k) distinct orderings with multiplicities ``counts``; ``size`` = N, the number
    of gold orderings; ``held`` the distinct rows the human judges hold (sorted) and
    :meth:`per_judge` maps a value per held row back to one per judge. ``corr`` is the (u, u)
    normalised correlation between distinct rows.
    """

    def __init__(self, humans: np.ndarray, noise: np.ndarray | None, kind: str) -> None:
        allg = _stack(humans, noise)
        self.n, self.size = len(as_rank_matrix(humans)), len(allg)
        self.unique, inverse, self.counts = distinct_rows(allg)
        self.held, self.judge_row = np.unique(inverse[:self.n], return_inverse=True)
        self.judge_row = self.judge_row.reshape(-1)
        self.corr = correlation_matrix(self.unique, None, kind)

    def held_corr(self) -> np.ndarray:
        """(h, u) correlations of each held row with every distinct gold ordering."""
        return self.corr[self.held]

    def per_judge(self, values: np.ndarray) -> np.ndarray:
        """One value per held row -> one value per human judge."""
        return np.asarray(values)[self.judge_row]


class AverageCorrelation(_CorrelationScorer):
    """AC: s(O) = mean_i C(O, O_i) (Kim, Zhai, Han 2010, s.3.1).

    Parameters
    ----------
    correlation : {"kendall", "spearman"}
        "kendall" (tau-b) or "spearman"; normalised to [0, 1] by (c + 1) / 2.
    """

    def score(self, candidates: np.ndarray) -> np.ndarray:
        """Return each candidate's mean correlation with the gold orderings."""
        return correlation_matrix(candidates, self._fitted_gold(), self.correlation).mean(axis=1)

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """ED terms on the distinct gold orderings: sum_{j != i} C(O_i, O_j) = sum_u m_u C(O_i, U_u) - C(O_i, O_i)."""
        pool = _DistinctGold(humans, noise, self.correlation)
        corr = pool.held_corr()  # (h, u)
        others = corr @ pool.counts - corr[np.arange(len(pool.held)), pool.held]
        score = others / (pool.size - 1)
        return pool.per_judge(2.0 * score - 1.0)  # C(rev O, g) = 1 - C(O, g)


class WeightedCorrelationAverage(_CorrelationScorer):
    """WCA: s(O) = sum_i w_i C(O, O_i) / sum_i w_i, w_i = mean_{j != i} C(O_i, O_j) (Kim, Zhai, Han 2010, s.3.1).

    Weights are computed among the gold orderings given to ``fit`` (``weights_``). With one
    gold ordering, or if every weight is 0, the weights are uniform (AC).
    """

    @staticmethod
    def _weights(gold_corr: np.ndarray) -> np.ndarray:
        m = len(gold_corr)
        if m < 2:
            return np.ones(m)
        w = (gold_corr.sum(axis=1) - np.diag(gold_corr)) / (m - 1)
        return w if w.sum() > 0 else np.ones(m)

    def fit(self, gold: np.ndarray) -> WeightedCorrelationAverage:
        """Store the gold orderings (``gold_``) and their weights (``weights_``); return self."""
        super().fit(gold)
        self.weights_ = self._weights(correlation_matrix(self.gold_, None, self.correlation))
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        """Return each candidate's weighted mean correlation with the gold orderings."""
        gold, w = self._fitted_gold(), self.weights_
        return correlation_matrix(candidates, gold, self.correlation) @ w / w.sum()

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """ED terms on the distinct gold orderings (docs/methods.md, section 3.7, "Computation").

        Held out O_i (distinct ordering a), the others are the distinct orderings U_v with
        multiplicities m_v - [v = a]; w_v = (r_v - C(U_v, O_i)) / (N - 2), r_v = sum_{l != v} C(U_v, O_l)
        over all N gold orderings, and s = sum_v m'_v w_v C(O_i, U_v) / sum_v m'_v w_v.
        """
        pool = _DistinctGold(humans, noise, self.correlation)
        corr, big_n = pool.corr, pool.size
        held = pool.held
        mult = pool.counts[None, :] - (np.arange(len(pool.counts))[None, :] == held[:, None])  # (h, u)
        if big_n - 1 < 2:
            w = np.ones_like(mult)
        else:
            row_sums = corr @ pool.counts - np.diag(corr)  # r_v
            w = (row_sums[None, :] - corr[held]) / (big_n - 2)  # (h, u), C symmetric
            uniform = (mult * w).sum(axis=1) <= 0
            w[uniform] = 1.0
        s = (mult * w * corr[held]).sum(axis=1) / (mult * w).sum(axis=1)
        return pool.per_judge(2.0 * s - 1.0)


def _rank_sum_consensus(gold: np.ndarray) -> np.ndarray:
    """RBA consensus as a rank row: items sorted by the sum of their (average) ranks.

    Ties broken by the item's best single rank, then by item column index
    (deterministic; reading: docs/methods.md, "Ordered lists").
    """
    avg = average_ranks(gold)
    order = rank_sum_order(avg)
    ranks = np.empty(avg.shape[1])
    ranks[order] = np.arange(1, avg.shape[1] + 1)
    return ranks


class RankBasedAggregation(_CorrelationScorer):
    """RBA: s(O) = C(O, consensus), consensus = items sorted by rank sum (Kim, Zhai, Han 2010, s.3.1).

    The consensus of the gold orderings given to ``fit`` is ``consensus_``.
    """

    def fit(self, gold: np.ndarray) -> RankBasedAggregation:
        """Store the gold orderings (``gold_``) and their rank-sum consensus (``consensus_``); return self."""
        super().fit(gold)
        self.consensus_ = _rank_sum_consensus(self.gold_)
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        """Return each candidate's correlation with the consensus."""
        self._fitted_gold()
        return correlation_matrix(candidates, self.consensus_, self.correlation)[:, 0]

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Return the ED terms s(O_i; others) - s(reverse(O_i); others), from the rank sums without each judge i."""
        humans = as_rank_matrix(humans)
        allg = _stack(humans, noise)
        n, k = humans.shape
        avg = average_ranks(allg)
        totals = avg.sum(axis=0)[None, :] - avg[:n]  # (n, k) rank sums without judge i
        # best single rank among the others: smallest, or second smallest where i holds it
        order = np.sort(avg, axis=0)
        first, second = order[0], order[1] if len(avg) > 1 else order[0]
        best = np.where(avg[:n] == first[None, :], second[None, :], first[None, :])
        # composite integer key: rank sum, then best rank, then item index (average ranks are halves)
        span = 2 * k + 2
        key = (np.rint(2 * totals).astype(np.int64) * span + np.rint(2 * best).astype(np.int64)) * k + np.arange(k)
        consensus = np.empty((n, k))
        ranks = np.arange(1, k + 1, dtype=float)[None, :].repeat(n, 0)
        np.put_along_axis(consensus, np.argsort(key, axis=1), ranks, axis=1)
        s = rowwise_correlation(humans, consensus, self.correlation)
        return 2.0 * s - 1.0
