"""Crowd labels encoded for the truth-inference methods (:class:`CrowdLabels`).

They are defined in the shared core :mod:`manyjudges.core.coded_labels`, which the table readers of
:mod:`manyjudges.io` build too.
"""
from __future__ import annotations

from manyjudges.core.coded_labels import DUPLICATE_RULES, CrowdLabels, as_crowd_labels

__all__ = ["CrowdLabels", "DUPLICATE_RULES", "as_crowd_labels"]
