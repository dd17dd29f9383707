"""Crowd aggregators by name (the ``method`` column), and users' own through ``module:callable``.

A config entry ``{method: <name or module:callable>, params: {...}}`` becomes an aggregator
with :func:`make_crowd_aggregator`. A user's callable is called as ``factory(**params)`` and
must return an object with ``fit(topic)`` that sets ``scores_`` (one float per item, higher
= better) and ``quality_`` (one float per worker, or None); see
:class:`~manyjudges.crowd.base.CrowdAggregator`.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

from .base import CrowdAggregator
from .bradley_terry import BradleyTerry, CrowdBT
from .crowdagg import CrowdAgg
from .elo import EMEloRating
from .mpm import MPM
from .pairwise import Borda, CondorcetFuse, GreedyOrder

CROWD_METHODS: dict[str, Callable[..., Any]] = {
    "crowdagg_ndcg": partial(CrowdAgg, measure="ndcg", quality=True),
    "crowdagg_rbp": partial(CrowdAgg, measure="rbp", quality=True),
    "crowdagg_ndcg_eq": partial(CrowdAgg, measure="ndcg", quality=False),
    "crowdagg_rbp_eq": partial(CrowdAgg, measure="rbp", quality=False),
    "condorcet_fuse": CondorcetFuse,
    "greedy_order": GreedyOrder,
    "bradley_terry": BradleyTerry,
    "mpm": MPM,
    "crowd_bt": CrowdBT,
    "em_elo_rating": EMEloRating,
    "borda": Borda,
}


def make_crowd_aggregator(method: str, params: dict[str, Any] | None = None) -> CrowdAggregator:
    """An aggregator from a registry name or ``module:callable``, with parameters (overriding defaults)."""
    from ..registry import build_method

    return build_method(method, params, CROWD_METHODS, "crowd", ("fit",))
