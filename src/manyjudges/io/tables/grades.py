"""The canonical ``grades`` table and its metadata sidecar.

A grades table is a TSV file with the header ``item, judge, label``: one row
per (item, judge), ``label`` an integer ``0 .. K-1`` on an ordinal scale
(0 = lowest grade). The number of labels ``K`` and the label names are
dataset metadata; they travel in a small YAML file beside the table (see
:func:`write_grades` and :func:`read_grades`). In memory a panel is a
:class:`GradedData`: the table, ``K``, the label names, an optional truth
table (``topic, item, grade``) and the number of raw rows a parser dropped,
by reason. Grades are sorted by item, then judge (numerically when every id
is a digit string, else lexicographically). The metadata file holds
``n_labels``, ``label_names`` and ``dropped`` and nothing else.

The parsers of the raw graded formats (TREC 2010 RF, AdultContent3,
snow2008) live in :mod:`manyjudges.io.sources`; see ``docs/data.md``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.core.atomic import atomic_file
from manyjudges.core.natural_order import natural_positions
from manyjudges.io.engine.checks import (
    Fault,
    _check_one_value_rule,
    _empty_fields,
    _first_fault,
    _raise_earliest,
    _repeats_of,
    sorted_rows,
)
from manyjudges.io.engine.columnar import TableLayout, read_columns
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.grades_meta import _grades_meta_text, _read_grades_meta

__all__ = ["GradedData", "read_grades", "read_grades_table", "write_grades"]

_GRADES_COLUMNS = ["item", "judge", "label"]

_LABEL = re.compile(r"[0-9]+")

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class GradedData:
    """A graded-judgment panel and its metadata.

    Attributes
    ----------
    grades : pandas.DataFrame
        Columns ``item``, ``judge`` (str) and ``label`` (int64, ``0 .. K-1``),
        one row per (item, judge), sorted by item then judge (numerically if
        all ids are digit strings, else lexicographically).
    n_classes : int
        ``K``, the number of labels.
    label_names : list of str
        ``K`` distinct names, label 0 first, e.g. ``["G", "P", "R", "X"]``.
    truth : pandas.DataFrame or None
        A truth table, columns ``topic``, ``item`` (str) and ``grade``
        (int64, on the same ``0 .. K-1`` scale), or None when the data set
        has none (or it was not read).
    dropped : dict of str to int
        Raw rows the parser did not turn into grades, by reason. Every reason
        a parser knows is present, with 0 when nothing was dropped for it.

    Raises
    ------
    TypeError
        If ``n_classes`` is not an integer.
    ValueError
        If ``n_classes < 1`` or ``label_names`` is not ``n_classes`` distinct
        non-empty strings.
    """

    grades: pd.DataFrame
    n_classes: int
    label_names: list[str]
    truth: pd.DataFrame | None = None
    dropped: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.n_classes, bool) or not isinstance(self.n_classes, (int, np.integer)):
            raise TypeError(f"n_classes must be an integer, got {self.n_classes!r}")
        if self.n_classes < 1:
            raise ValueError(f"n_classes must be at least 1, got {self.n_classes}")
        names = list(self.label_names)
        if len(names) != self.n_classes:
            raise ValueError(
                f"label_names has {len(names)} names for n_classes={self.n_classes}: {names!r}"
            )
        if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
            raise ValueError(f"label_names must be distinct non-empty strings, got {names!r}")


# --------------------------------------------------------------------------
# canonical order


def _grades_frame(items: list[str], judges: list[str], labels: list[int],
                 lines: list[int] | None = None) -> pd.DataFrame:
    """Build a grades DataFrame from its columns, sorted by item, then judge (natural order).

    The raw-format parsers of :mod:`manyjudges.io.sources` build their grades with it, so every
    parsed grades table is built (and ordered) the same way. ``lines`` (each row's line in its
    file) follow the rows into ``attrs["lines"]``.
    """
    item_rank, judge_rank = natural_positions(items), natural_positions(judges)
    order = np.lexsort(
        (
            np.fromiter((judge_rank[j] for j in judges), dtype=np.int64, count=len(judges)),
            np.fromiter((item_rank[i] for i in items), dtype=np.int64, count=len(items)),
        )
    )
    frame = pd.DataFrame(
        {
            "item": pd.Series(np.asarray(items, dtype=object)[order], dtype=str),
            "judge": pd.Series(np.asarray(judges, dtype=object)[order], dtype=str),
            "label": np.asarray(labels, dtype=np.int64)[order],
        }
    )
    if lines is not None:
        frame.attrs["lines"] = np.asarray(lines, dtype=np.int64)[order]  # row i came from file line lines[i]
    return frame


# --------------------------------------------------------------------------
# the canonical table and its metadata


def _check_graded(data: GradedData) -> None:
    """ValueError unless ``data.grades`` is a valid grades table for ``data.n_classes``."""
    grades = data.grades
    if list(grades.columns) != _GRADES_COLUMNS:
        raise ValueError(f"grades must have columns {_GRADES_COLUMNS}, got {list(grades.columns)}")
    if grades.empty:
        raise ValueError("grades table has no rows")
    labels = grades["label"].to_numpy()
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"label column must be integer, got dtype {labels.dtype}")
    bad = (labels < 0) | (labels >= data.n_classes)
    if bad.any():
        raise ValueError(f"label {int(labels[bad][0])} outside 0..{data.n_classes - 1}")
    for name in ("item", "judge"):
        if (grades[name].astype(str).str.strip() == "").any():
            raise ValueError(f"empty {name} in the grades table")
    repeated = grades.duplicated(["item", "judge"])
    if repeated.any():
        row = grades[repeated].iloc[0]
        raise ValueError(f"judge {row['judge']!r} grades item {row['item']!r} twice")
    if not all(isinstance(k, str) and isinstance(v, (int, np.integer)) and not isinstance(v, bool)
               and v >= 0 for k, v in data.dropped.items()):
        raise ValueError(f"dropped must map reasons to non-negative counts, got {data.dropped!r}")


def write_grades(data: GradedData, grades_path: PathLike, meta_path: PathLike) -> None:
    """Write a grades table (TSV) and its metadata (YAML), each atomically.

    Parameters
    ----------
    data : GradedData
        The panel. ``data.truth`` is not written (write it with
        :func:`manyjudges.io.engine.table_text.write_table` if needed).
    grades_path : path-like
        The TSV, header ``item, judge, label``, rows in the order of
        ``data.grades``.
    meta_path : path-like
        The YAML file: ``n_labels`` (the number of classes), ``label_names`` and ``dropped``, in that
        order, and nothing else (nothing time-dependent: the same data gives
        the same bytes).

    Raises
    ------
    ValueError
        If ``data.grades`` is not a valid grades table (columns, non-empty,
        integer labels in ``0 .. K-1``, no repeated (item, judge), no empty
        id) or ``data.dropped`` is not a mapping of reasons to non-negative
        counts; nothing is written then.

    Notes
    -----
    Each file goes to a temporary file beside it and replaces the old one in
    one ``os.replace``. The metadata is serialised before the table is
    written and put in place right after it, so a failure leaves at most the
    table new and the metadata old.
    """
    _check_graded(data)
    text = _grades_meta_text(data.n_classes, data.label_names, data.dropped)
    with atomic_file(meta_path) as handle:
        handle.write(text)
        handle.flush()
        write_table(data.grades[_GRADES_COLUMNS], grades_path)


def read_grades(grades_path: PathLike, meta_path: PathLike) -> GradedData:
    """Read and validate a grades TSV and its YAML metadata.

    Parameters
    ----------
    grades_path : path-like
        A TSV with the header ``item, judge, label`` (as written by
        :func:`write_grades`; CSV when the name ends in ``.csv``). Blank
        lines are skipped.
    meta_path : path-like
        The YAML metadata: ``n_labels`` (the number of classes, a positive integer), ``label_names``
        (that many distinct non-empty strings) and optionally ``dropped``
        (reason -> non-negative integer count); no other key.

    Returns
    -------
    GradedData
        The table sorted by item, then judge (natural order), with ``truth``
        None; ``grades.attrs["lines"]`` holds each row's line in the file.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1; where there is
        one) and the value, if the metadata is not valid YAML, has an
        unknown or missing key or a bad value; or if the table's header has
        no ``item``, ``judge`` or ``label`` column (columns in any order,
        ``worker`` for ``judge``, ``task`` for ``item``), a row does not have
        as many fields as the header, an
        item or judge is empty, a label is not an integer in
        ``0 .. n_classes-1``, a judge grades an item twice, or there are no
        data rows.
    """
    grades_path, meta_path = Path(grades_path), Path(meta_path)
    n_classes, names, dropped = _read_grades_meta(meta_path)
    return read_grades_table(grades_path, n_classes, names, dropped, f"n_labels = {n_classes} in {meta_path.name}")


GRADES_LAYOUT = TableLayout("grades table", tuple(_GRADES_COLUMNS))
_GRADES_HINT = ("say which label counts with --duplicates first or last (duplicates: in the config, "
                "duplicates= in Python)")


def check_grades_duplicates(duplicates: str) -> None:
    """ValueError unless ``duplicates`` is a rule a grades table allows (error, first, last)."""
    _check_one_value_rule(duplicates, "a grades table", "a graded panel has one label per item and judge")


def _label_codes(values: np.ndarray, used: np.ndarray, n_classes: int | None, names: list[str] | None,
                 where: str | None) -> tuple[np.ndarray, int, str, str]:
    """(code of each distinct label value (-1: bad), K, the reason a bad one is given, where).

    With ``names`` the labels are names when every label used is one of them (or integer codes
    when every one is); without them integer codes 0..K-1, K = ``n_classes`` or the largest + 1.
    """
    is_code = np.asarray([bool(_LABEL.fullmatch(v)) for v in values], dtype=bool)
    huge = np.iinfo(np.int64).max  # a code too long for int64 is out of range anyway
    number = np.asarray([(int(v) if len(v.lstrip("0")) <= 18 else huge) if ok else -1
                         for v, ok in zip(values, is_code)], dtype=np.int64)
    if names is not None:
        position = {name: k for k, name in enumerate(names)}
        by_name = np.asarray([position.get(v, -1) for v in values], dtype=np.int64)
        k = n_classes if n_classes is not None else len(names)
        where = where or f"the {k} label names"
        as_code = np.where(is_code & (number < k), number, -1)
        if (by_name[used] >= 0).all():
            return by_name, k, "", where
        named = used & (by_name >= 0) & (as_code < 0)
        if (as_code[used] >= 0).all() or not named.any():
            return as_code, k, f"label must be an integer in 0..{k - 1} or one of the label names " \
                               f"{', '.join(names)} ({where})", where
        return by_name, k, f"label is not one of the label names {', '.join(names)} ({where})", where
    if n_classes is None:
        n_classes = 1 + int(number[used & is_code].max(initial=0))
    where = where or f"n_labels = {n_classes}"
    codes = np.where(is_code & (number < n_classes), number, -1)
    return codes, n_classes, f"label must be an integer in 0..{n_classes - 1} ({where})", where


def read_grades_table(grades_path: PathLike, n_classes: int | None, label_names: list[str] | None = None,
                      dropped: dict[str, int] | None = None, where: str | None = None, duplicates: str = "error",
                      names_in_data: bool = False) -> GradedData:
    """Read and validate a grades table (``item, judge, label``) whose labels are 0..n_classes-1.

    For a user's own table (``source: table`` in the config), ``n_classes`` comes from the
    config; ``None`` takes the number of ``label_names``, else the largest integer label + 1.
    Errors name the file, line and value as in :func:`read_grades`. The table's
    ``attrs["lines"]`` holds each row's line in the file.

    Column habits: a TSV, or a CSV when the name ends in ``.csv``; the columns in any order,
    ``worker`` for ``judge`` and ``task`` for ``item``; other columns are ignored with an
    :class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`.

    ``duplicates``: a repeated (item, judge) is an ``"error"`` naming both lines (the default),
    or the ``"first"`` or the ``"last"`` of its rows is kept; ``"keep"`` is a ValueError (a panel
    has one label per item and judge). With ``names_in_data`` and ``label_names``, labels that are
    all label names are read as their positions in ``label_names`` (``["G", "P"]``: G = 0, P = 1);
    a table whose labels are all integer codes is read as codes, as without it.
    """
    check_grades_duplicates(duplicates)
    table = read_columns(grades_path, GRADES_LAYOUT)
    names = list(label_names) if label_names else None
    empty = _empty_fields(table, ["item", "judge"])
    item = table.codes("item")[0]
    judge = table.codes("judge")[0]
    kept: np.ndarray | None = None
    repeat = None
    order, same = sorted_rows([item, judge])  # one sort: the repeats, and the frame's order
    repeated, heads = _repeats_of(order, same, "last" if duplicates == "last" else "first")
    if len(repeated) and duplicates == "error":
        row, first = int(repeated[0]), int(heads[0])
        repeat = Fault(row, 20, f"judge {table.field('judge', row)!r} grades item {table.field('item', row)!r} twice "
                       f"(first on line {table.line(first)}); {_GRADES_HINT}", table.field("item", row))
    elif len(repeated):
        chosen = np.ones(table.n_rows, dtype=bool)
        chosen[repeated] = False
        kept = np.flatnonzero(chosen)
        order = order[chosen[order]]  # the kept rows, in the same order (their (item, judge) pairs are distinct)
    label_code, distinct = table.codes("label")
    values = distinct.to_numpy(zero_copy_only=False)
    used = np.zeros(len(values), dtype=bool)
    used[label_code if kept is None else label_code[kept]] = True
    if n_classes is None and names:
        n_classes = len(names)
    codes, n_classes, reason, where = _label_codes(values, used, n_classes,
                                                  names if names_in_data else None, where)
    bad_label = _first_fault(table, "label", (codes < 0) & used, reason, kept, order=10)
    _raise_earliest(table, [empty, bad_label, repeat])
    label = codes[label_code]
    frame = pd.DataFrame({  # the ids' text taken by Arrow, not a str a row
        "item": table.strings("item", order),
        "judge": table.strings("judge", order),
        "label": label[order].astype(np.int64),
    })
    frame.attrs["lines"] = table.lines[order]
    return GradedData(
        grades=frame,
        n_classes=n_classes,
        label_names=names if names else [str(c) for c in range(n_classes)],
        dropped=dict(dropped or {}),
    )
