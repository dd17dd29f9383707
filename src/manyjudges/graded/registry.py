"""Graded predictors by name (the ``method`` of ``graded.methods`` and of ``--method``).

Your own predictor: ``package.module:callable`` returning a
:class:`~manyjudges.graded.base.GradedMethod` (``fit``, ``predict_proba``; implement the hooks
``choose_parameters``, ``prepare`` and ``predict``, and ``single_parameter`` if it has one).
"""
from __future__ import annotations

from typing import Any

from manyjudges.core.registry import Builtin, Registry
from manyjudges.graded.base import GradedMethod
from manyjudges.graded.dawid_skene import DawidSkenePredictor
from manyjudges.graded.m4 import M4, M4Learned
from manyjudges.graded.maxent import M5
from manyjudges.graded.votes import M1, WeightedVotes

__all__ = ["make_graded_method"]

_GRADED_METHODS = Registry("graded", {
    "m1": Builtin(M1, "M1: the other judges' vote shares, smoothed towards the background prior by tau"),
    "m2": Builtin(WeightedVotes, "M2: vote shares with a learned weight per judge",
                  {"label_votes": True, "cooccurrence_votes": False}),
    "m3": Builtin(WeightedVotes, "M3: per-judge label co-occurrence distributions, weighted per judge and label",
                  {"label_votes": False, "cooccurrence_votes": True}),
    "m23": Builtin(WeightedVotes, "M23: the votes of M2 and M3 together", {"label_votes": True,
                                                                           "cooccurrence_votes": True}),
    "m4": Builtin(M4, "M4: Yu et al.'s iterative intrinsic judgment with a Gaussian predictive of width sigma"),
    "m5": Builtin(M5, "M5: maximum entropy on the other judges' labels, L2 penalty lambda chosen by cross induction"),
    "dawid_skene": Builtin(DawidSkenePredictor,
                           "Dawid-Skene EM; the unseen judge as a typical judge's confusion, smoothed"),
    "m4_learned": Builtin(M4Learned, "M4 with judge weights and sigma learned to predict held-out judges"),
}, required=("fit", "predict_proba"))


def make_graded_method(method: str, params: dict[str, Any] | None = None, name: str | None = None) -> GradedMethod:
    """Build a predictor from a built-in name or ``package.module:callable``, with parameters."""
    predictor = _GRADED_METHODS.build(method, params)
    predictor.name = name or method
    return predictor
