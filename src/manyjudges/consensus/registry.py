"""Rank aggregators for lists by name (``consensus.aggregation.aggregators`` in the config).

An aggregator is a function from a list of rankings (lists of items, best first) to one
ranking; ``package.module:callable`` adds your own with the same signature. The consensus
measure itself is a function of the rankings (nothing is fitted), so it needs no registry.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from manyjudges.consensus.aggregators import Ranking, borda, condorcet_fuse, rank_sum
from manyjudges.registry import Builtin, Registry

__all__ = ["AGGREGATORS", "get_aggregator"]

AGGREGATORS = Registry("consensus aggregator", {
    "borda": Builtin(borda, "Borda fuse: L - position points from each list containing the item"),
    "rank_sum": Builtin(rank_sum, "sum of ranks, an absent item ranked just below its list"),
    "condorcet_fuse": Builtin(condorcet_fuse, "Condorcet fuse: sort by pairwise majority"),
}, required=())


def get_aggregator(name: str) -> Callable[[Sequence[Ranking]], list]:
    """A built-in aggregator, or ``package.module:callable`` (same signature: lists in, one list out)."""
    return AGGREGATORS.resolve(name)[0]
