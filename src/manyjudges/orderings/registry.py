"""Ordered-list scorers by name (the ``method`` of ``orderings.methods`` and of ``--method``).

Your own scorer: ``package.module:callable`` returning an object with ``fit(gold)`` and
``score(candidates)`` (subclass :class:`~manyjudges.orderings.base.OrderingScorer`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manyjudges.core.registry import Builtin, Registry
from manyjudges.orderings.consensus_scorer import ConsensusScorer
from manyjudges.orderings.frespa import FreSPA
from manyjudges.orderings.scorers import AverageCorrelation, RankBasedAggregation, WeightedCorrelationAverage

__all__ = ["make_ordering_scorer"]


_ORDERING_SCORERS = Registry("orderings", {
    "ac_tau": Builtin(AverageCorrelation, "AC: mean Kendall tau-b to the gold orderings", {"correlation": "kendall"}),
    "ac_sp": Builtin(AverageCorrelation, "AC: mean Spearman correlation to the gold orderings",
                     {"correlation": "spearman"}),
    "wca_tau": Builtin(WeightedCorrelationAverage,
                       "WCA: Kendall tau-b average, gold orderings weighted by their agreement",
                       {"correlation": "kendall"}),
    "wca_sp": Builtin(WeightedCorrelationAverage, "WCA: Spearman average, gold orderings weighted by their agreement",
                      {"correlation": "spearman"}),
    "rba_tau": Builtin(RankBasedAggregation, "RBA: Kendall tau-b to the rank-sum consensus of the gold orderings",
                       {"correlation": "kendall"}),
    "rba_sp": Builtin(RankBasedAggregation, "RBA: Spearman correlation to the rank-sum consensus of the gold orderings",
                      {"correlation": "spearman"}),
    "frespa": Builtin(FreSPA, "FreSPA: weighted share of the frequent sequential patterns of the gold orderings "
                              "the candidate holds"),
    "consensus": Builtin(ConsensusScorer,
                         "consensus measure of the candidate with each gold ordering, log2 scale, averaged"),
}, required=("fit", "score"))


def make_ordering_scorer(method: str, params: Mapping[str, Any] | None = None) -> Any:
    """Build an ordered-list scorer from a built-in name or ``package.module:callable``, with parameters."""
    return _ORDERING_SCORERS.build(method, params)
