"""Consensus of a set of rankings (Lin, Li, Guo, arXiv 1704.08464).

``consensus_measure(rankings, lam, gamma)`` counts the common subsequences of the rankings,
weighted by length (lambda) and position (gamma): kappa, the count per length and the
longest common subsequence. It is a function of the rankings (nothing is fitted). The
family also holds rank aggregators for lists (Borda, rank sum, CondorcetFuse), judged by
their consensus with their inputs. The measure as an ordered-list scorer is the orderings family's
``consensus`` method (:class:`manyjudges.orderings.ConsensusScorer`). Definitions: ``docs/methods.md``.

>>> from manyjudges.consensus import consensus_measure
>>> m = consensus_measure([["a", "b", "c"], ["a", "c", "b"]])
>>> m.kappa, m.lcs_length
(5.0, 2)
"""
from manyjudges.consensus.aggregators import ListAggregator, borda, condorcet_fuse, rank_sum
from manyjudges.consensus.measure import ConsensusMeasure, consensus_measure, log2_kappa_plus_one
from manyjudges.consensus.registry import _AGGREGATORS, get_aggregator

registry = _AGGREGATORS

__all__ = [
    "ConsensusMeasure",
    "ListAggregator",
    "borda",
    "condorcet_fuse",
    "consensus_measure",
    "get_aggregator",
    "log2_kappa_plus_one",
    "rank_sum",
    "registry",
]
