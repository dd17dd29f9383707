"""Ordered lists judged against several gold orderings (Kim, Zhai, Han, ECIR 2010).

Scorers follow one contract, ``Scorer(**params).fit(gold).score(candidates)`` on rank
matrices (judges x items, rank 1 = best): AC, WCA and RBA with Kendall tau-b or Spearman,
FreSPA, and the consensus measure of Lin, Li and Guo as a scorer (:class:`ConsensusScorer`).
Evaluation discriminativeness (ED) measures how well a scorer tells a judge's ordering from its
reverse, leaving that judge out. Definitions: ``docs/methods.md``.

>>> import numpy as np
>>> from manyjudges.orderings import FreSPA, evaluation_discriminativeness
>>> gold = np.array([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]])
>>> FreSPA(min_sup=0.6).fit(gold).score(np.array([[1, 2, 3, 4], [4, 3, 2, 1]])).round(3)
array([1., 0.])
"""
from manyjudges.orderings.base import OrderingScorer
from manyjudges.orderings.consensus_scorer import ConsensusScorer
from manyjudges.orderings.evaluation import ed_by_set, evaluation_discriminativeness, leave_one_out_differences
from manyjudges.orderings.frespa import FreSPA, FreSPAParams, frespa_score
from manyjudges.orderings.registry import _ORDERING_SCORERS, make_ordering_scorer
from manyjudges.orderings.scorers import AverageCorrelation, RankBasedAggregation, WeightedCorrelationAverage

registry = _ORDERING_SCORERS

__all__ = [
    "AverageCorrelation",
    "ConsensusScorer",
    "FreSPA",
    "FreSPAParams",
    "OrderingScorer",
    "RankBasedAggregation",
    "WeightedCorrelationAverage",
    "ed_by_set",
    "evaluation_discriminativeness",
    "frespa_score",
    "leave_one_out_differences",
    "make_ordering_scorer",
    "registry",
]
