"""Rank aggregators for lists by name (``consensus.aggregation.aggregators`` in the config).

A built-in aggregator is a :class:`~manyjudges.consensus.aggregators.ListAggregator` (``fit_predict``
from a list of rankings, lists of items best first, to one ranking); ``package.module:callable`` adds
your own: a function with that signature (rankings in, one list out). The consensus measure itself is
a function of the rankings (nothing is fitted), so it needs no registry.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from manyjudges.consensus.aggregators import ListAggregator, Ranking
from manyjudges.core.registry import Builtin, Registry, load_callable

__all__ = ["get_aggregator"]

_AGGREGATORS = Registry("consensus aggregator", {
    "borda": Builtin(ListAggregator, "Borda fuse: L - position points from each list containing the item",
                     {"rule": "borda"}),
    "rank_sum": Builtin(ListAggregator, "sum of ranks, an absent item ranked just below its list",
                        {"rule": "rank_sum"}),
    "condorcet_fuse": Builtin(ListAggregator, "Condorcet fuse: sort by pairwise majority",
                              {"rule": "condorcet_fuse"}),
}, required=("fit_predict",))


def get_aggregator(name: str) -> Callable[[Sequence[Ranking]], list]:
    """Return a built-in aggregator's ``fit_predict``, or ``package.module:callable`` (lists in, one list out)."""
    if name in _AGGREGATORS:
        return _AGGREGATORS.build(name).fit_predict
    _AGGREGATORS.resolve(name)  # an unknown name: the registry's error, with "did you mean"
    return load_callable(name)
