"""Wawa (judge agreement with aggregate): a majority vote weighted by agreement with the majority vote.

Judge agreement with aggregate is Appen's (formerly CrowdFlower's) judge-quality metric: the
share of a judge's responses equal to the aggregated answer of their unit ("Calculating Judge
Agreement with Aggregate (Wawa)", Appen Success Center). Crowd-kit (Ustalov, Pavlichenko and
Tseitlin, "Learning from Crowds with Crowd-Kit", JOSS 9(96), 2024; class ``Wawa``) turns it into an
aggregation method in three steps, which this class follows:

1. the majority vote m[i] = argmax_c n[i, c] (n[i, c]: item i's labels of class c), ties broken
   by ``ties`` as in :class:`~manyjudges.truth.methods.majority_vote.MajorityVote`;
2. each judge's agreement with it, skill[w] = #{w's labels e with label_e = m[item_e]} / #{w's labels};
3. the vote weighted by those skills:

       score[i, c] = sum over i's labels e with label_e = c of skill[judge_e]
       proba[i, c] = score[i, c] / sum_c score[i, c]        label[i] = argmax_c proba[i, c]

   exact ties of step 3 go to the lowest class (crowd-kit's weighted vote groups with
   ``groupby``, which sorts the classes). Some judge of every item agrees with its majority
   vote (the vote is one of the item's labels), so every item's scores sum to more than 0.

``ties="first"`` makes step 1 break ties as crowd-kit 1.4 does under pandas 3 (the class first
seen in the table); with it this class reproduces crowd-kit's ``Wawa`` label for label on tables
without repeated (item, worker, label) rows (crowd-kit's ``get_accuracy`` counts such a repeat once
in step 2; here each row is one label, as everywhere in :mod:`manyjudges.truth`). ``skills_`` is
the step-2 agreement rate.
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Options
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.methods.majority_vote import VoteEstimator, _agreement_rates, _pick_classes, _vote_shares

__all__ = ["WAWA_TIES", "Wawa"]

#: the tie rules of the majority-vote step of :class:`Wawa`
WAWA_TIES = ("lowest", "first")


class Wawa(VoteEstimator):
    """Wawa: majority vote, each judge's agreement with it, then the vote weighted by that agreement.

    Parameters
    ----------
    ties : {"lowest", "first"}
        How the majority-vote step (step 1) breaks ties: the lowest class, or the class whose first
        label comes earliest in the table (crowd-kit's rule under pandas 3).
    """

    _parameter_constraints = {**TruthEstimator._parameter_constraints, "ties": [Options(WAWA_TIES)]}

    def __init__(self, ties: str = "lowest", calibrate: str | None = None) -> None:
        self.calibrate = calibrate
        self.ties = ties

    def _fit(self, data: CrowdLabels) -> TruthFit:
        k = data.n_classes
        majority = _pick_classes(data.class_counts, self.ties, data)
        skills = _agreement_rates(data, majority)
        scores = np.bincount(data.item * k + data.label, weights=skills[data.judge],
                             minlength=data.n_items * k).reshape(data.n_items, k)
        return TruthFit(proba=_vote_shares(scores), skills=skills)
