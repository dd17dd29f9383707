"""Truth inference: one class per item, and a quality per worker, from many workers' labels.

Every method follows the contract of :mod:`manyjudges.truth.base`: ``fit(labels)`` on a long
table ``item, worker, label``, then ``labels_``, ``proba_``, ``skills_`` / ``confusions_``.
"""
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.glad import GLAD
from manyjudges.truth.labels import CrowdLabels, as_crowd_labels
from manyjudges.truth.mace import MACE

__all__ = ["GLAD", "MACE", "CrowdLabels", "TruthEstimator", "TruthFit", "as_crowd_labels"]
