"""The canonical ``truth`` table of a crowd: read and validate it.

``truth`` = ``topic, item, grade``: the true grade of an item in a topic (a non-negative integer, higher =
better), which scores a crowd's rankings (the crowd family) and a graded panel's truth; see
``docs/data.md``. The raw MIREX 2005 qrel is parsed by :mod:`manyjudges.io.sources.mirex2005`.

It is read by :func:`~manyjudges.io.engine.columnar.read_columns`: a TSV, or a CSV when the name ends in
``.csv``; the columns in any order, ``task`` for ``item``; other columns are ignored with an
:class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`. Errors name the file, the line and the value,
at the first faulty row in file order.
"""
from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from manyjudges.io.engine.checks import Fault, _first_fault, _raise_earliest
from manyjudges.io.engine.columnar import TableLayout, read_columns

__all__ = ["TRUTH_COLUMNS", "read_truth"]

PathLike = str | os.PathLike[str]
TRUTH_COLUMNS = ["topic", "item", "grade"]
TRUTH_LAYOUT = TableLayout("truth table", tuple(TRUTH_COLUMNS))

_GRADE = re.compile(r"[0-9]+")


def read_truth(path: PathLike) -> pd.DataFrame:
    """Read and validate a canonical truth table (grade: non-negative integer; no repeated (topic, item)).

    Rows in file order; ``topic`` and ``item`` str, ``grade`` int64. DataError names the file,
    line and value for a header without one of the columns, a wrong field count, an empty
    topic or item, a grade that is not a non-negative integer, or an item graded twice in a
    topic (both lines are named).
    """
    table = read_columns(path, TRUTH_LAYOUT)
    faults: list[Fault | None] = []
    empty = [_first_fault(table, c, table.codes(c)[1].to_numpy(zero_copy_only=False) == "", "empty topic or item")
             for c in ("topic", "item")]
    rows = [f.row for f in empty if f is not None]
    if rows:
        row = min(rows)
        faults.append(Fault(row, 0, "empty topic or item", f"{table.field('topic', row)}\t{table.field('item', row)}"))
    grade_code, distinct = table.codes("grade")
    grades = distinct.to_numpy(zero_copy_only=False)
    is_grade = np.asarray([bool(_GRADE.fullmatch(g)) for g in grades], dtype=bool)
    faults.append(_first_fault(table, "grade", ~is_grade, "grade must be a non-negative integer", order=1))
    repeated, heads = table.repeated(["topic", "item"])
    if len(repeated):
        row, first = int(repeated[0]), int(heads[0])
        faults.append(Fault(row, 2, f"item graded twice in topic {table.field('topic', row)!r} (first on line "
                            f"{table.line(first)})", table.field("item", row)))
    _raise_earliest(table, faults)
    value = np.asarray([int(g) if ok else -1 for g, ok in zip(grades, is_grade)], dtype=np.int64)
    frame = pd.DataFrame({"topic": table.strings("topic"), "item": table.strings("item")})
    frame["grade"] = value[grade_code]
    return frame
