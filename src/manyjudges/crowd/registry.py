"""Crowd aggregators by name (the ``method`` of ``crowd.methods`` and of ``--method``).

Your own aggregator: ``package.module:callable`` returning an object with ``fit(topic)`` that
sets ``scores_`` (one float per item, higher = better) and ``skills_`` (one float per
judge, or None); subclass :class:`~manyjudges.crowd.base.CrowdAggregator`.
"""
from __future__ import annotations

from typing import Any

from manyjudges.core.registry import Builtin, Registry
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.bradley_terry import BradleyTerry, CrowdBT
from manyjudges.crowd.crowdagg import CrowdAgg
from manyjudges.crowd.elo import EMEloRating
from manyjudges.crowd.mpm import MPM
from manyjudges.crowd.pairwise import Borda, CondorcetFuse, GreedyOrder

__all__ = ["make_crowd_aggregator"]

_CROWD_METHODS = Registry("crowd", {
    "crowdagg_ndcg": Builtin(CrowdAgg, "CrowdAgg: ranking maximising each judge's expected NDCG, weighted by skill",
                             {"measure": "ndcg", "skill": True}),
    "crowdagg_rbp": Builtin(CrowdAgg, "CrowdAgg: ranking maximising each judge's expected RBP, weighted by skill",
                            {"measure": "rbp", "skill": True}),
    "crowdagg_ndcg_eq": Builtin(CrowdAgg, "CrowdAgg-NDCG with every judge's skill fixed at 1",
                                {"measure": "ndcg", "skill": False}),
    "crowdagg_rbp_eq": Builtin(CrowdAgg, "CrowdAgg-RBP with every judge's skill fixed at 1",
                               {"measure": "rbp", "skill": False}),
    "condorcet_fuse": Builtin(CondorcetFuse, "CondorcetFuse: items sorted by pairwise majority of the judgments"),
    "greedy_order": Builtin(GreedyOrder,
                            "GreedyOrder: Cohen, Schapire and Singer's greedy ordering by preference potential"),
    "bradley_terry": Builtin(BradleyTerry, "Bradley-Terry: maximum-likelihood item scores from pairwise wins"),
    "mpm": Builtin(MPM, "MPM: multinomial preference model with a per-judge adherence (Volkovs and Zemel)"),
    "crowd_bt": Builtin(CrowdBT, "Crowd-BT: Bradley-Terry with a per-judge reliability (Chen et al.)"),
    "em_elo_rating": Builtin(EMEloRating, "EMeloRating: Dawid-Skene EM over pair labels, then Elo ratings"),
    "borda": Builtin(Borda, "Borda: mean grade over ratings, else the win share over preferences"),
}, required=("fit",), aliases={"quality": "skill"})


def make_crowd_aggregator(method: str, params: dict[str, Any] | None = None) -> CrowdAggregator:
    """Return an aggregator from a built-in name or ``package.module:callable``.

    It is built with the given parameters (overriding presets).
    """
    return _CROWD_METHODS.build(method, params)
