"""Predicting an unseen judge's graded labels (Wilbur and Kim, BMC Bioinformatics 2011).

A panel holds one label (0..K-1) per (item, judge) it has; predictors follow one contract,
``Predictor(**params).fit(panel).predict_proba()`` -> P(label | item) for a judge not in
the panel: M1 (smoothed vote shares), M2 / M3 / M23 (weighted votes), M4 (Yu et al.), M5
(maximum entropy), Dawid-Skene and M4-learned. The protocols score them on held-out
judges: cross induction (eqs. 5-7) and one parameter for all (Table 3). Definitions:
``docs/methods.md``.

>>> import numpy as np
>>> from manyjudges.graded import GradedPanel, M4, cross_induction, loglik_by_judge
>>> labels = np.array([[0, 1, 1, -1], [2, 2, 1, 2], [0, 0, -1, 1], [1, 2, 2, 2]])  # items x judges, -1 = missing
>>> panel = GradedPanel.from_matrix(labels, n_classes=3)
>>> M4().fit(panel.without([3])).predict_proba().shape                # P(label | item) for judge 3
(4, 3)
>>> loglik_by_judge(cross_induction(M4(), panel).predictions).shape  # S(k) per held-out judge
(4, 3)
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, for readers of the code; at run time each is imported when first asked
    from manyjudges.graded.base import GradedMethod
    from manyjudges.graded.dawid_skene import DawidSkenePredictor, dawid_skene
    from manyjudges.graded.m4 import M4, M4Learned
    from manyjudges.graded.maxent import M5
    from manyjudges.graded.panel import GradedPanel, background_prior
    from manyjudges.graded.protocols import PROTOCOLS, cross_induction, loglik_by_judge, single_parameter
    from manyjudges.graded.registry import GRADED_METHODS, make_graded_method
    from manyjudges.graded.significance import pairwise_tests
    from manyjudges.graded.votes import M1, WeightedVotes

    registry = GRADED_METHODS

#: where each exported name lives; the package imports a module when one of its names is first asked for, so
#: that importing a light module of the family (the command line's ``graded.folds``) does not import scipy's
#: optimisers (the pattern of scientific Python's SPEC 1, lazy loading)
_HOMES = {
    "GradedMethod": "base", "DawidSkenePredictor": "dawid_skene", "dawid_skene": "dawid_skene", "M4": "m4",
    "M4Learned": "m4", "M5": "maxent", "GradedPanel": "panel", "background_prior": "panel",
    "PROTOCOLS": "protocols", "cross_induction": "protocols", "loglik_by_judge": "protocols",
    "single_parameter": "protocols", "GRADED_METHODS": "registry", "make_graded_method": "registry",
    "registry": "registry", "pairwise_tests": "significance", "M1": "votes", "WeightedVotes": "votes",
}


def __getattr__(name: str) -> Any:
    """Import an exported name's module when the name is first asked for (``registry``: ``GRADED_METHODS``)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"),
                    "GRADED_METHODS" if name == "registry" else name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Return the module's names and the exported ones not imported yet."""
    return sorted({*globals(), *__all__})


__all__ = [
    "PROTOCOLS",
    "DawidSkenePredictor",
    "GradedMethod",
    "GradedPanel",
    "M1",
    "M4",
    "M4Learned",
    "M5",
    "WeightedVotes",
    "background_prior",
    "cross_induction",
    "dawid_skene",
    "loglik_by_judge",
    "make_graded_method",
    "pairwise_tests",
    "registry",
    "single_parameter",
]
