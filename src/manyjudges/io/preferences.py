"""The canonical ``preferences`` and ``truth`` tables: read and validate them.

``preferences`` = ``topic, judge, left, right, outcome`` (one row per
pairwise judgment; outcome ``left``, ``right`` or ``tie``) and ``truth`` =
``topic, item, grade`` (grade a non-negative integer, higher = better); see
``docs/data.md``. The raw MIREX 2005 crowd preferences are parsed by
:mod:`manyjudges.io.sources.mirex2005`.

Both are read by :func:`~manyjudges.io.columnar.read_columns`: a TSV, or a CSV when the name
ends in ``.csv``; the columns in any order, ``worker`` for ``judge`` and ``task`` for ``item``;
other columns are ignored with an :class:`~manyjudges.io.columnar.ExtraColumnsWarning`.
Errors name the file, the line and the value, at the first faulty row in file order.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from manyjudges.io.checks import Fault, duplicate_judgments, first_fault, raise_earliest, same_on_both_sides
from manyjudges.io.columnar import TableLayout, read_columns, text_column

__all__ = [
    "DUPLICATE_RULES",
    "OUTCOMES",
    "PREFERENCE_COLUMNS",
    "TRUTH_COLUMNS",
    "PreferenceData",
    "read_preferences",
    "read_truth",
]

PathLike = str | os.PathLike[str]
PREFERENCE_COLUMNS = ["topic", "judge", "left", "right", "outcome"]
TRUTH_COLUMNS = ["topic", "item", "grade"]
OUTCOMES = ("left", "right", "tie")
DUPLICATE_RULES = ("error", "keep", "first", "last")
PREFERENCES_LAYOUT = TableLayout("preferences table", tuple(PREFERENCE_COLUMNS))
TRUTH_LAYOUT = TableLayout("truth table", tuple(TRUTH_COLUMNS))

_GRADE = re.compile(r"[0-9]+")


@dataclass
class PreferenceData:
    """A crowd's preferences, its truth (or None) and the raw rows not used, by reason."""

    preferences: pd.DataFrame
    truth: pd.DataFrame | None
    dropped: dict[str, int] = field(default_factory=dict)


def read_preferences(path: PathLike, duplicates: str = "keep") -> pd.DataFrame:
    """Read and validate a canonical preferences table (all columns str, rows in file order).

    ``duplicates``: a row repeating an earlier row's (topic, judge, left, right) is one more
    judgment, every row kept (``"keep"``, the default: a judge may compare a pair twice, as
    MIREX 2005 judges did), or an ``"error"`` naming both lines, or only the ``"first"`` or
    the ``"last"`` of them counts.

    DataError names the file, line and value for a header without one of the columns, a wrong
    field count, an empty field, an outcome other than left/right/tie, left == right, or a
    repeated row (with ``duplicates="error"``).
    """
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    table = read_columns(path, PREFERENCES_LAYOUT)
    # an empty field first, in column order (as the row is read); then the outcome, then left == right
    faults = [first_fault(table, column, table.values(column) == "", f"empty {column}", order=order)
              for order, column in enumerate(PREFERENCE_COLUMNS)]
    outcome = table.values("outcome")
    faults.append(first_fault(table, "outcome", ~np.isin(outcome, OUTCOMES) & (outcome != ""),
                              "outcome must be left, right or tie", order=10))
    same = same_on_both_sides(table, "left", "right")
    if len(same):
        faults.append(Fault(int(same[0]), 11, "left and right are the same item", table.field("left", int(same[0]))))
    repeat, kept = duplicate_judgments(table, ["topic", "judge", "left", "right"], duplicates)
    faults.append(repeat)
    raise_earliest(table, faults)
    # each column's text taken by Arrow from its distinct values (no str a row)
    return pd.DataFrame({c: text_column(table, c, kept) for c in PREFERENCE_COLUMNS})


def read_truth(path: PathLike) -> pd.DataFrame:
    """Read and validate a canonical truth table (grade: non-negative integer; no repeated (topic, item)).

    Rows in file order; ``topic`` and ``item`` str, ``grade`` int64. DataError names the file,
    line and value for a header without one of the columns, a wrong field count, an empty
    topic or item, a grade that is not a non-negative integer, or an item graded twice in a
    topic (both lines are named).
    """
    table = read_columns(path, TRUTH_LAYOUT)
    faults: list[Fault | None] = []
    empty = [first_fault(table, c, table.values(c) == "", "empty topic or item") for c in ("topic", "item")]
    rows = [f.row for f in empty if f is not None]
    if rows:
        row = min(rows)
        faults.append(Fault(row, 0, "empty topic or item", f"{table.field('topic', row)}\t{table.field('item', row)}"))
    grades = table.values("grade")
    is_grade = np.asarray([bool(_GRADE.fullmatch(g)) for g in grades], dtype=bool)
    faults.append(first_fault(table, "grade", ~is_grade, "grade must be a non-negative integer", order=1))
    repeated, heads = table.repeated(["topic", "item"])
    if len(repeated):
        row, first = int(repeated[0]), int(heads[0])
        faults.append(Fault(row, 2, f"item graded twice in topic {table.field('topic', row)!r} (first on line "
                            f"{table.line(first)})", table.field("item", row)))
    raise_earliest(table, faults)
    value = np.asarray([int(g) if ok else -1 for g, ok in zip(grades, is_grade)], dtype=np.int64)
    frame = pd.DataFrame({"topic": text_column(table, "topic"), "item": text_column(table, "item")})
    frame["grade"] = value[table.indices("grade")]
    return frame
