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

from manyjudges.correlation import CORRELATIONS, correlation_matrix, rowwise_correlation
from manyjudges.orderings.base import OrderingScorer
from manyjudges.ranks import as_rank_matrix, average_ranks, rank_sum_order

__all__ = ["AverageCorrelation", "WeightedCorrelationAverage", "RankBasedAggregation", "rank_sum_consensus"]


class _CorrelationScorer(OrderingScorer):
    """A scorer built on a rank correlation: ``correlation`` is "kendall" (tau-b) or "spearman"."""

    def __init__(self, correlation: str = "kendall") -> None:
        self.correlation = correlation

    def _check_params(self) -> None:
        if self.correlation not in CORRELATIONS:
            raise ValueError(f"correlation must be one of {sorted(CORRELATIONS)}, got {self.correlation!r}")


def _stack(humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
    humans = as_rank_matrix(humans)
    if noise is None or len(noise) == 0:
        return humans
    return np.vstack([humans, as_rank_matrix(noise)])


class AverageCorrelation(_CorrelationScorer):
    """AC: s(O) = mean_i C(O, O_i) (Kim, Zhai, Han 2010, s.3.1).

    Parameters
    ----------
    correlation : "kendall" (tau-b) or "spearman"; normalised to [0, 1] by (c + 1) / 2.
    """

    def score(self, candidates: np.ndarray) -> np.ndarray:
        return correlation_matrix(candidates, self._fitted_gold(), self.correlation).mean(axis=1)

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        n = len(humans)
        corr = correlation_matrix(humans, _stack(humans, noise), self.correlation)  # (n, N)
        others = corr.sum(axis=1) - np.diag(corr[:, :n])
        score = others / (corr.shape[1] - 1)
        return 2.0 * score - 1.0  # C(rev O, g) = 1 - C(O, g)


class WeightedCorrelationAverage(_CorrelationScorer):
    """WCA: s(O) = sum_i w_i C(O, O_i) / sum_i w_i, w_i = mean_{j != i} C(O_i, O_j)
    (Kim, Zhai, Han 2010, s.3.1).

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
        super().fit(gold)
        self.weights_ = self._weights(correlation_matrix(self.gold_, None, self.correlation))
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        gold, w = self._fitted_gold(), self.weights_
        return correlation_matrix(candidates, gold, self.correlation) @ w / w.sum()

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        allg = _stack(humans, noise)
        n, big_n = len(humans), len(allg)
        corr = correlation_matrix(allg, None, self.correlation)  # (N, N)
        row_sums = corr.sum(axis=1) - np.diag(corr)
        out = np.empty(n)
        for i in range(n):
            keep = np.arange(big_n) != i
            if big_n - 1 < 2:
                w = np.ones(big_n - 1)
            else:
                w = (row_sums[keep] - corr[keep, i]) / (big_n - 2)
                if w.sum() <= 0:
                    w = np.ones(big_n - 1)
            s = corr[i, keep] @ w / w.sum()
            out[i] = 2.0 * s - 1.0
        return out


def rank_sum_consensus(gold: np.ndarray) -> np.ndarray:
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
    """RBA: s(O) = C(O, consensus), consensus = items sorted by rank sum (Kim, Zhai, Han 2010,
    s.3.1); the consensus of the gold orderings given to ``fit`` is ``consensus_``."""

    def fit(self, gold: np.ndarray) -> RankBasedAggregation:
        super().fit(gold)
        self.consensus_ = rank_sum_consensus(self.gold_)
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        self._fitted_gold()
        return correlation_matrix(candidates, self.consensus_, self.correlation)[:, 0]

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
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
