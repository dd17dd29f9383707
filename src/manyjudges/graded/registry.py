"""Graded predictors by name (the ``method`` column), and users' own through ``module:callable``.

A config entry ``{method: <name or module:callable>, params: {...}}`` becomes a predictor
with :func:`make_graded_method`. A user's callable is called as ``factory(**params)`` and
must return a :class:`~manyjudges.graded.base.GradedMethod` (``fit``, ``prepare``,
``predict``; ``single_parameter`` if it has one).
"""
from __future__ import annotations

from typing import Any, Callable

from .base import GradedMethod
from .dawid_skene import DawidSkenePredictor
from .maxent import M5
from .votes import M1, WeightedVotes
from .yu import M4, M4Learned

GRADED_METHODS: dict[str, Callable[..., GradedMethod]] = {
    "m1": M1,
    "m2": lambda **kw: WeightedVotes(label_votes=True, cooccurrence_votes=False, **kw),
    "m3": lambda **kw: WeightedVotes(label_votes=False, cooccurrence_votes=True, **kw),
    "m23": lambda **kw: WeightedVotes(label_votes=True, cooccurrence_votes=True, **kw),
    "m4": M4,
    "m5": M5,
    "dawid_skene": DawidSkenePredictor,
    "m4_learned": M4Learned,
}


def make_graded_method(method: str, params: dict[str, Any] | None = None, name: str | None = None) -> GradedMethod:
    """A predictor from a registry name or ``module:callable``, with parameters."""
    from ..registry import build_method

    predictor = build_method(method, params, GRADED_METHODS, "graded", ("fit", "prepare", "predict"))
    predictor.name = name or method
    return predictor
