"""The parsed form of a judge panel with a truth: labels, truth, class names and drop counts.

The LLM-judge panels (:mod:`~manyjudges.io.sources.llmjudge`, :mod:`~manyjudges.io.sources.prd`,
:mod:`~manyjudges.io.sources.pandalm`) parse into it; the truth family reads ``labels`` and ``truth``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from manyjudges.io.tables.grades import _grades_frame

__all__ = ["PanelData"]


@dataclass(frozen=True)
class PanelData:
    """A panel's labels, truth, class names and drop counts.

    The labels ``item, judge, label`` (codes ``0..K-1``), its truth ``item, truth``, the ``K`` class
    names in code order, and the rows each drop rule removed (by rule).
    """

    labels: pd.DataFrame
    truth: pd.DataFrame
    class_names: list[str]
    dropped: dict[str, int] = field(default_factory=dict)


def _panel_labels(items: list[str], judges: list[str], labels: list[int]) -> pd.DataFrame:
    """Build a labels table ``item, judge, label`` from its columns, sorted by item, then judge (natural order)."""
    return _grades_frame(items, judges, labels)


def _truth_frame(truth: dict[str, int]) -> pd.DataFrame:
    """Build a truth table ``item, truth`` from ``{item: code}``, in the mapping's order."""
    return pd.DataFrame({"item": pd.Series(list(truth), dtype=str),
                         "truth": np.fromiter(truth.values(), dtype=np.int64, count=len(truth))})
