"""Rank aggregators for lists of (possibly partial, top-k) rankings.

Each takes a list of rankings (lists of items, best first; an item absent from a list
counts as ranked below every item in it) and returns one aggregate ranking of the union
of the items, best first, ties broken by first appearance (deterministic).

- ``borda``: Borda fuse (Aslam and Montague 2001): item x gets L - p_k(x) points from a list
  of length L where it sits at 0-based position p_k(x), 0 where absent; sort by points.
- ``rank_sum``: RBA's consensus (Kim et al. 2010) for partial lists: sum of 1-based ranks,
  an absent item taking rank L + 1; ascending, ties by best single rank.
- ``condorcet_fuse``: Condorcet fuse (Montague and Aslam 2002): sort by the pairwise
  majority "a beats b" (more lists put a above b); a merge sort on that comparison, as
  the paper's sort-based algorithm (the majority relation need not be transitive). The same
  sort serves the crowd family's CondorcetFuse (:func:`manyjudges.core.ranks.majority_merge_sort`).

:class:`ListAggregator` is the same three as an estimator of the family contract
(``ListAggregator(rule="borda").fit_predict(rankings)``), the registry's built-ins.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from manyjudges.core.estimator import Estimator
from manyjudges.core.parameters import Options
from manyjudges.core.ranks import majority_merge_sort, rank_sum_order

__all__ = ["ListAggregator", "Ranking", "borda", "condorcet_fuse", "rank_sum"]

Ranking = Sequence[Hashable]


def _positions(rankings: Sequence[Ranking]) -> tuple[list, np.ndarray, np.ndarray]:
    """Union of items (first-appearance order), (m, u) 1-based ranks with L+1 for absent, lengths."""
    items = list(dict.fromkeys(x for r in rankings for x in r))
    index = {x: i for i, x in enumerate(items)}
    lengths = np.array([len(dict.fromkeys(r)) for r in rankings])
    ranks = np.empty((len(rankings), len(items)))
    for k, r in enumerate(rankings):
        ranks[k] = lengths[k] + 1
        seen = 0
        for x in r:
            if ranks[k, index[x]] == lengths[k] + 1:  # first occurrence
                seen += 1
                ranks[k, index[x]] = seen
    return items, ranks, lengths


def _order(items: list, keys: list[np.ndarray]) -> list:
    """Items sorted by the keys (first key most significant), then by first appearance."""
    order = np.lexsort([np.arange(len(items))] + keys[::-1])
    return [items[i] for i in order]


def borda(rankings: Sequence[Ranking]) -> list:
    """Borda fuse: points L - position (0-based) from each list containing the item."""
    items, ranks, lengths = _positions(rankings)
    points = np.where(ranks <= lengths[:, None], lengths[:, None] - (ranks - 1), 0).sum(axis=0)
    return _order(items, [-points])


def rank_sum(rankings: Sequence[Ranking]) -> list:
    """Sum of ranks (absent = L + 1), ascending; ties by best single rank, then first appearance."""
    items, ranks, _ = _positions(rankings)
    return [items[i] for i in rank_sum_order(ranks)]


def condorcet_fuse(rankings: Sequence[Ranking]) -> list:
    """Sort by pairwise majority (Montague and Aslam 2002).

    :func:`~manyjudges.core.ranks.majority_merge_sort` runs over the items in first-appearance order; ties
    keep that order.
    """
    items, ranks, _ = _positions(rankings)
    above = (ranks[:, :, None] < ranks[:, None, :]).sum(axis=0)
    order = majority_merge_sort(list(range(len(items))), (above > above.T).tolist())
    return [items[i] for i in order]


#: the aggregation rules by name
_RULES: dict[str, Callable[[Sequence[Ranking]], list]] = {"borda": borda, "rank_sum": rank_sum,
                                                          "condorcet_fuse": condorcet_fuse}


class ListAggregator(Estimator):
    """One of :data:`_RULES` as an estimator.

    ``fit(rankings)`` sets ``ranking_`` (the aggregate, best first); ``fit_predict(rankings)`` returns it.
    Nothing else is fitted.
    """

    ranking_: list
    _parameter_constraints = {"rule": [Options(_RULES)]}

    def __init__(self, rule: str = "borda") -> None:
        self.rule = rule

    def fit(self, rankings: Sequence[Ranking]) -> ListAggregator:
        """Aggregate ``rankings`` (lists of items, best first) into ``ranking_``; returns self."""
        self._check_params()
        self.ranking_ = _RULES[self.rule](rankings)
        return self

    def fit_predict(self, rankings: Sequence[Ranking]) -> list:
        """``fit(rankings).ranking_``."""
        return self.fit(rankings).ranking_
