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
from manyjudges.graded.base import GradedMethod
from manyjudges.graded.dawid_skene import DawidSkenePredictor, dawid_skene
from manyjudges.graded.m4 import M4, M4Learned
from manyjudges.graded.maxent import M5
from manyjudges.graded.panel import GradedPanel, background_prior
from manyjudges.graded.protocols import PROTOCOLS, cross_induction, loglik_by_judge, single_parameter
from manyjudges.graded.registry import _GRADED_METHODS, make_graded_method
from manyjudges.graded.significance import pairwise_tests
from manyjudges.graded.votes import M1, WeightedVotes

registry = _GRADED_METHODS

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
