"""The canonical ``preferences`` table: read and validate it.

``preferences`` = ``topic, judge, left, right, outcome`` (one row per
pairwise judgment; outcome ``left``, ``right`` or ``tie``); its crowd's truth is the ``truth`` table
(:mod:`manyjudges.io.tables.truth`); see ``docs/data.md``. The raw MIREX 2005 crowd preferences are
parsed by :mod:`manyjudges.io.sources.mirex2005`.

It is read by :func:`~manyjudges.io.engine.columnar.read_columns`: a TSV, or a CSV when the name
ends in ``.csv``; the columns in any order, ``worker`` for ``judge`` and ``task`` for ``item``;
other columns are ignored with an :class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`.
Errors name the file, the line and the value, at the first faulty row in file order.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from manyjudges.io.engine.checks import Fault, _duplicate_judgments, _first_fault, _raise_earliest, _same_on_both_sides
from manyjudges.io.engine.columnar import TableLayout, read_columns

__all__ = ["DUPLICATE_RULES", "PreferenceData", "read_preferences"]

PathLike = str | os.PathLike[str]
_PREFERENCE_COLUMNS = ["topic", "judge", "left", "right", "outcome"]
_OUTCOMES = ("left", "right", "tie")
DUPLICATE_RULES = ("error", "keep", "first", "last")
PREFERENCES_LAYOUT = TableLayout("preferences table", tuple(_PREFERENCE_COLUMNS))


@dataclass
class PreferenceData:
    """A crowd's preferences, its truth (or None) and the raw rows not used, by reason.

    What a raw-format parser of preferences returns
    (:func:`~manyjudges.io.sources.mirex2005.parse_mirex2005`).
    """

    #: the preferences table: ``topic, judge, left, right, outcome``
    preferences: pd.DataFrame
    #: the truth table ``topic, item, grade`` (:data:`~manyjudges.io.tables.truth.TRUTH_COLUMNS`), or None
    truth: pd.DataFrame | None
    #: raw rows not used, by reason (e.g. ``empty_answer``)
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
    distinct = {column: table.codes(column)[1].to_numpy(zero_copy_only=False) for column in _PREFERENCE_COLUMNS}
    faults = [_first_fault(table, column, distinct[column] == "", f"empty {column}", order=order)
              for order, column in enumerate(_PREFERENCE_COLUMNS)]
    outcome = distinct["outcome"]
    faults.append(_first_fault(table, "outcome", ~np.isin(outcome, _OUTCOMES) & (outcome != ""),
                              "outcome must be left, right or tie", order=10))
    same = _same_on_both_sides(table, "left", "right")
    if len(same):
        faults.append(Fault(int(same[0]), 11, "left and right are the same item", table.field("left", int(same[0]))))
    repeat, kept = _duplicate_judgments(table, ["topic", "judge", "left", "right"], duplicates)
    faults.append(repeat)
    _raise_earliest(table, faults)
    # each column's text taken by Arrow from its distinct values (no str a row)
    return pd.DataFrame({c: table.strings(c, kept) for c in _PREFERENCE_COLUMNS})
