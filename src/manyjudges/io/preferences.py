"""The canonical ``preferences`` and ``truth`` tables: read and validate them.

``preferences`` = ``topic, worker, left, right, outcome`` (one row per
pairwise judgment; outcome ``left``, ``right`` or ``tie``) and ``truth`` =
``topic, item, grade`` (grade a non-negative integer, higher = better); see
``docs/data.md``. The raw MIREX 2005 crowd preferences are parsed by
:mod:`manyjudges.io.sources.mirex2005`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.errors import DataError
from manyjudges.io.tables import read_tsv_rows

__all__ = [
    "OUTCOMES",
    "PREFERENCE_COLUMNS",
    "TRUTH_COLUMNS",
    "PreferenceData",
    "read_preferences",
    "read_truth",
]

PathLike = str | os.PathLike[str]
PREFERENCE_COLUMNS = ["topic", "worker", "left", "right", "outcome"]
TRUTH_COLUMNS = ["topic", "item", "grade"]
OUTCOMES = ("left", "right", "tie")


@dataclass
class PreferenceData:
    """A crowd's preferences, its truth (or None) and the raw rows not used, by reason."""

    preferences: pd.DataFrame
    truth: pd.DataFrame | None
    dropped: dict[str, int] = field(default_factory=dict)


def read_preferences(path: PathLike) -> pd.DataFrame:
    """Read and validate a canonical preferences TSV (all columns str).

    DataError names the file, line and value for a wrong header, a wrong field count, an
    empty field, an outcome other than left/right/tie, or left == right.
    """
    path = Path(path)
    rows, lines = read_tsv_rows(path, PREFERENCE_COLUMNS)
    for fields, line in zip(rows, lines):
        for name, value in zip(PREFERENCE_COLUMNS, fields):
            if value == "":
                raise DataError.at(path, line, f"empty {name}")
        if fields[4] not in OUTCOMES:
            raise DataError.at(path, line, "outcome must be left, right or tie", fields[4])
        if fields[2] == fields[3]:
            raise DataError.at(path, line, "left and right are the same item", fields[2])
    return pd.DataFrame(rows, columns=PREFERENCE_COLUMNS)


def read_truth(path: PathLike) -> pd.DataFrame:
    """Read and validate a canonical truth TSV (grade: non-negative integer; no repeated item)."""
    path = Path(path)
    rows, lines = read_tsv_rows(path, TRUTH_COLUMNS)
    seen: dict[tuple[str, str], int] = {}
    grades = []
    for (topic, item, grade), line in zip(rows, lines):
        if topic == "" or item == "":
            raise DataError.at(path, line, "empty topic or item", f"{topic}\t{item}")
        if not grade.isdigit():
            raise DataError.at(path, line, "grade must be a non-negative integer", grade)
        if (topic, item) in seen:
            raise DataError.at(path, line, f"item graded twice in topic {topic!r} (first on line "
                               f"{seen[topic, item]})", item)
        seen[topic, item] = line
        grades.append(int(grade))
    table = pd.DataFrame([r[:2] for r in rows], columns=["topic", "item"])
    table["grade"] = np.asarray(grades, dtype=np.int64)
    return table
