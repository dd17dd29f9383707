"""Rank aggregation from crowd ratings or pairwise preferences (Niu et al., WSDM 2015).

One topic's judgments (:class:`TopicJudgments`, from a preferences or a ratings table) go to
an aggregator with one contract, ``Aggregator(**params).fit(topic)``, which sets ``scores_``
(higher = better), ``ranking_`` (item indices, best first) and ``skills_`` (one per judge,
or None): CrowdAgg (NDCG / RBP, with skill or ``skill=False``) and the baselines
CondorcetFuse, GreedyOrder, Borda, Bradley-Terry, Crowd-BT, MPM and EMeloRating. IR metrics,
spammers and the simulated crowd serve the experiments. :func:`judge_measures` measures a panel of
LLM judges from their pairwise verdicts: position bias, agreement with a reference and among
themselves, shared errors. Definitions: ``docs/methods.md``.

An arena leaderboard pools every verdict (``model_a, model_b, winner``, prompt and judge
optional; ``model_a`` shown first) into one score per model with bootstrap intervals:
``Leaderboard(method, n_bootstrap=1000, resample="prompts").fit(verdicts).table_`` or
``bootstrap(verdicts, method, n=1000, resample="verdicts")`` (methods ``bradley_terry`` with a
tie half a win each way, ``davidson``, ``elo``, ``crowd_bt``, ``judge_aware``: ``LEADERBOARD_METHODS``).
``JudgeAwareVerdicts().fit(verdicts).units_`` gives one verdict per (prompt, model pair) from a panel of
judges, each judge's reliability and position effect fitted and judges that share errors down-weighted
(``judge_weights``).

>>> import pandas as pd
>>> from manyjudges.crowd import CrowdAgg, topics_from_preferences
>>> prefs = pd.DataFrame({"topic": "q1", "judge": ["w1", "w1", "w2", "w3"],
...                       "left": ["a", "b", "a", "c"], "right": ["b", "c", "c", "a"],
...                       "outcome": ["left", "left", "left", "right"]})
>>> topic = topics_from_preferences(prefs)["q1"]
>>> list(topic.items[CrowdAgg().fit(topic).ranking_])
['a', 'b', 'c']
>>> from manyjudges.crowd import Leaderboard
>>> verdicts = pd.DataFrame({"model_a": ["x", "y", "x", "z"], "model_b": ["y", "z", "z", "y"],
...                          "winner": ["model_a", "model_a", "tie", "model_b"]})
>>> list(Leaderboard("bradley_terry").fit(verdicts).table_["model"])
['x', 'y', 'z']
"""
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.bradley_terry import BradleyTerry, CrowdBT
from manyjudges.crowd.crowdagg import CrowdAgg
from manyjudges.crowd.davidson import Davidson
from manyjudges.crowd.elo import EMEloRating
from manyjudges.crowd.judge_aware_verdicts import JudgeAwareVerdicts, judge_aware_verdicts
from manyjudges.crowd.judge_clusters import judge_weights
from manyjudges.crowd.judges import JudgeMeasures, judge_measures
from manyjudges.crowd.judgments import (
    TopicJudgments,
    ratings_to_preferences,
    topics_from_preferences,
    topics_from_ratings,
)
from manyjudges.crowd.leaderboard import LEADERBOARD_METHODS, Leaderboard, bootstrap
from manyjudges.crowd.mpm import MPM
from manyjudges.crowd.pairwise import Borda, CondorcetFuse, GreedyOrder
from manyjudges.crowd.registry import CROWD_METHODS, make_crowd_aggregator
from manyjudges.crowd.simulate import simulate_crowd
from manyjudges.crowd.skill import annotator_accuracy
from manyjudges.crowd.spammers import add_spammers

registry = CROWD_METHODS

__all__ = [
    "Borda",
    "BradleyTerry",
    "CondorcetFuse",
    "CrowdAgg",
    "CrowdAggregator",
    "CrowdBT",
    "Davidson",
    "EMEloRating",
    "GreedyOrder",
    "JudgeAwareVerdicts",
    "JudgeMeasures",
    "LEADERBOARD_METHODS",
    "Leaderboard",
    "MPM",
    "TopicJudgments",
    "add_spammers",
    "annotator_accuracy",
    "judge_aware_verdicts",
    "judge_measures",
    "judge_weights",
    "bootstrap",
    "make_crowd_aggregator",
    "ratings_to_preferences",
    "registry",
    "simulate_crowd",
    "topics_from_preferences",
    "topics_from_ratings",
]
