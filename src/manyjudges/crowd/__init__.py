"""Rank aggregation from crowd ratings or pairwise preferences (Niu et al., WSDM 2015).

One topic's judgments (:class:`TopicJudgments`, from a preferences or a ratings table) go to
an aggregator with one contract, ``Aggregator(**params).fit(topic)``, which sets ``scores_``
(higher = better), ``ranking_`` (item indices, best first) and ``skills_`` (one per judge,
or None): CrowdAgg (NDCG / RBP, with skill or ``skill=False``) and the baselines
CondorcetFuse, GreedyOrder, Borda, Bradley-Terry, Crowd-BT, MPM and EMeloRating. IR metrics,
spammers and the simulated crowd serve the experiments. Definitions: ``docs/methods.md``. Judges'
pairwise verdicts on models' answers (LLM judges, arena leaderboards) are the arena family's
(:mod:`manyjudges.arena`).

>>> import pandas as pd
>>> from manyjudges.crowd import CrowdAgg, topics_from_preferences
>>> prefs = pd.DataFrame({"topic": "q1", "judge": ["w1", "w1", "w2", "w3"],
...                       "left": ["a", "b", "a", "c"], "right": ["b", "c", "c", "a"],
...                       "outcome": ["left", "left", "left", "right"]})
>>> topic = topics_from_preferences(prefs)["q1"]
>>> list(topic.items[CrowdAgg().fit(topic).ranking_])
['a', 'b', 'c']
"""
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.bradley_terry import BradleyTerry, CrowdBT
from manyjudges.crowd.crowdagg import CrowdAgg
from manyjudges.crowd.elo import EMEloRating
from manyjudges.crowd.judgments import (
    TopicJudgments,
    ratings_to_preferences,
    topics_from_preferences,
    topics_from_ratings,
)
from manyjudges.crowd.mpm import MPM
from manyjudges.crowd.pairwise import Borda, CondorcetFuse, GreedyOrder
from manyjudges.crowd.registry import _CROWD_METHODS, make_crowd_aggregator
from manyjudges.crowd.simulate import simulate_crowd
from manyjudges.crowd.skill import annotator_accuracy
from manyjudges.crowd.spammers import add_spammers

registry = _CROWD_METHODS

__all__ = [
    "Borda",
    "BradleyTerry",
    "CondorcetFuse",
    "CrowdAgg",
    "CrowdAggregator",
    "CrowdBT",
    "EMEloRating",
    "GreedyOrder",
    "MPM",
    "TopicJudgments",
    "add_spammers",
    "annotator_accuracy",
    "make_crowd_aggregator",
    "ratings_to_preferences",
    "registry",
    "simulate_crowd",
    "topics_from_preferences",
    "topics_from_ratings",
]
