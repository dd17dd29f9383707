"""The canonical ``labels`` and label ``truth`` tables of the truth-inference family.

A labels table has the columns ``item, judge, label``: one row per label a judge gave an
item. Without declared classes a label is a class code, an integer ``0 .. K-1`` (the classes
are ``0 .. max(label)``); with declared ``classes`` it is one of their names. A label truth
table has the columns ``item, truth``: the true class of some or all labelled items, used only
to score inferred classes.

Both are read by the columnar reader (:mod:`manyjudges.io.engine.columnar`: TSV, or CSV when the name
ends in ``.csv``; the columns in any order, ``worker`` for ``judge`` and ``task`` for ``item``,
other columns ignored with a warning). Bad input is a :class:`~manyjudges.io.engine.errors.DataError`
naming the file, the 1-based line (header = line 1) and the value, at the first faulty row in
file order. Writes are atomic. Item and judge ids are read as strings, verbatim, and coded in
natural order (:func:`read_crowd_labels`).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from manyjudges.core.coded_labels import (
    DUPLICATE_RULES,
    CrowdLabels,
    as_crowd_labels,
    canonical_order,
    code_dtype,
    id_positions,
    repeated_pairs,
)
from manyjudges.core.label_keys import keys_to_codes, label_keys, sorted_keys_repeat_a_pair
from manyjudges.core.memory import give_back_freed_memory
from manyjudges.core.packed_keys import fits
from manyjudges.core.sorting import sort_in_place
from manyjudges.core.stray_classes import warn_stray_classes
from manyjudges.io.engine.checks import _DUPLICATES_HINT, Fault, _empty_fields, _raise_earliest
from manyjudges.io.engine.columnar import ColumnarTable, TableLayout, read_columns
from manyjudges.io.engine.errors import DataWarning
from manyjudges.io.engine.table_text import write_table

__all__ = ["read_crowd_labels", "read_labels", "read_truth", "write_labels", "write_truth"]

_LABELS_COLUMNS = ["item", "judge", "label"]
_LABEL_TRUTH_COLUMNS = ["item", "truth"]
LABELS_LAYOUT = TableLayout("labels table", tuple(_LABELS_COLUMNS))
TRUTH_LAYOUT = TableLayout("truth table", tuple(_LABEL_TRUTH_COLUMNS))
#: the largest integer label read without declared classes (the classes are 0 .. max(label))
_MAX_CLASS_CODE = 999

_CODE = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]+")

PathLike = str | os.PathLike[str]


def _check_class_names(classes: Sequence) -> list[str]:
    names = [str(c) for c in classes]
    if len(names) < 2:
        raise ValueError(f"at least two classes are needed, got {list(classes)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"the classes repeat a name: {list(classes)!r}")
    return names


def _class_names(classes: Sequence) -> np.ndarray:
    """Return the declared classes as the table's values: int64 when every class is an integer, else str."""
    array = np.asarray(list(classes))
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    return np.asarray([str(c) for c in classes], dtype=object)


def _value_codes(table: ColumnarTable, column: str, classes: Sequence | None, rows: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, Fault | None]:
    """(class code of each distinct value of ``column`` (-1: not a class), the classes, the first bad row).

    Without ``classes`` a value must be an integer code 0..MAX_CLASS_CODE and the classes are 0..max
    (at least 0, 1); with them a value must be one of their names (compared as text). Only the rows
    ``rows`` (all when None) are checked and count towards the classes.
    """
    indices, distinct = table.codes(column)
    values = distinct.to_numpy(zero_copy_only=False)
    used = np.zeros(len(values), dtype=bool)
    used[indices if rows is None else indices[rows]] = True
    if classes is not None:
        names = _check_class_names(classes)
        codes = pd.Index(names).get_indexer(pd.Index(values, dtype=object)).astype(np.int64)
        order = _class_names(classes)
        bad = (codes < 0) & used
        reason = f"{column} is not one of the classes {', '.join(names)}"
    else:
        codes = np.full(len(values), -1, dtype=np.int64)
        reasons = {}
        for v, text in enumerate(values):
            if not used[v]:
                continue
            if _CODE.fullmatch(text):
                if len(text.lstrip("0")) <= len(str(_MAX_CLASS_CODE)) and int(text) <= _MAX_CLASS_CODE:
                    codes[v] = int(text)
                else:
                    reasons[v] = (f"{column} is above {_MAX_CLASS_CODE}: the classes would be 0..{column}; "
                                  "declare the classes for other names")
            elif _NEGATIVE.fullmatch(text):
                reasons[v] = f"{column} must be a class code 0 or more"
            else:
                reasons[v] = f"{column} must be an integer class code (0, 1, ...) when no classes are given"
        bad = (codes < 0) & used
        order = np.arange(max(int(codes.max(initial=0)) + 1, 2), dtype=np.int64)
        reason = None
    fault = None
    if bad.any():
        hits = np.flatnonzero(bad[indices] if rows is None else bad[indices[rows]])
        row = int(hits[0]) if rows is None else int(rows[hits[0]])
        v = int(indices[row])
        fault = Fault(row, 10, reason if reason is not None else reasons[v], values[v])
    return codes, order, fault


@dataclass(frozen=True)
class _LabelsRead:
    data: CrowdLabels
    kept: np.ndarray | None  # the rows kept (None: all), in file order
    table: ColumnarTable


def _sorted_read(table: ColumnarTable, classes: Sequence | None, duplicates: str) -> CrowdLabels | None:
    """Return the labels sorted by (item, judge, label) code, with one sort that also finds repeated pairs.

    None when a label is bad, a pair repeats (unless ``duplicates="keep"``) or the table has one judge: the
    reader in file order then names the first fault or drops the repeats. Else the table's codes are let go
    (:meth:`ColumnarTable.discard`): the sorted codes are the one copy of the labels.
    """
    value_code, order, bad_label = _value_codes(table, "label", classes)
    items, judges = table.codes("item")[1], table.codes("judge")[1]
    sizes = (len(items), len(judges), len(order))
    if bad_label is not None or len(judges) < 2 or not fits(sizes):
        return None
    label = value_code.astype(np.int32)[table.codes("label")[0]]  # at most MAX_CLASS_CODE + 1 or len(classes)
    key = label_keys(table.codes("item")[0], table.codes("judge")[0], label, sizes)
    del label
    sort_in_place(key)
    if duplicates != "keep" and sorted_keys_repeat_a_pair(key, sizes):
        return None
    for column in table.layout.columns:
        table.discard(column)
    item, judge, label = keys_to_codes(key, sizes, code_dtype(sizes[0] * sizes[2], sizes[1] * sizes[2]))
    return CrowdLabels(item=item, judge=judge, label=label, items=pd.Index(items.to_pandas(), name="item"),
                       judges=pd.Index(judges.to_pandas(), name="judge"), classes=order)


def _read_labels(path: PathLike, classes: Sequence | None, duplicates: str, sort: bool = False) -> _LabelsRead:
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    if classes is not None:
        _check_class_names(classes)
    table = read_columns(path, LABELS_LAYOUT, code=("item",))
    for column in table.layout.columns:  # coded one by one, each column's text let go once coded
        table.release(column)
    empty = _empty_fields(table, table.layout.columns)
    if sort and empty is None:
        data = _sorted_read(table, classes, duplicates)
        if data is not None:
            return _LabelsRead(data, None, table)
    item, items = table.codes("item")
    judge, judges = table.codes("judge")
    kept = None
    repeat = None
    if duplicates != "keep":
        repeated = repeated_pairs(item, judge, len(judges), "last" if duplicates == "last" else "first")
        if len(repeated) and duplicates == "error":
            row = int(repeated[0])
            pair = np.flatnonzero((item == item[row]) & (judge == judge[row]))
            repeat = Fault(row, 20, f"(item, judge) = ({table.field('item', row)!r}, {table.field('judge', row)!r}) "
                           f"was already labelled on line {table.line(int(pair[0]))}; {_DUPLICATES_HINT}",
                           table.row_text(row))
        elif len(repeated):
            mask = np.ones(len(item), dtype=bool)
            mask[repeated] = False
            kept = np.flatnonzero(mask)
    value_code, order, bad_label = _value_codes(table, "label", classes, kept)
    _raise_earliest(table, [empty, repeat, bad_label])
    if len(judges) < 2:
        raise table.error(0, "truth inference needs at least two judges; the table has one", str(judges[0].as_py()))
    dtype = code_dtype(len(items) * len(order), len(judges) * len(order))
    label = value_code.astype(dtype)[table.codes("label")[0]]
    if kept is not None:
        item, judge, label = item[kept], judge[kept], label[kept]
    data = CrowdLabels(item=item.astype(dtype, copy=False), judge=judge.astype(dtype, copy=False), label=label,
                       items=pd.Index(items.to_pandas(), name="item"),
                       judges=pd.Index(judges.to_pandas(), name="judge"), classes=order)
    return _LabelsRead(canonical_order(data) if sort else data, kept, table)


def read_crowd_labels(path: PathLike, classes: Sequence | None = None, duplicates: str = "error",
                      sort: bool = False) -> CrowdLabels:
    """Read and validate a labels table straight into integer codes.

    The codes are a :class:`~manyjudges.core.coded_labels.CrowdLabels`. The same table, checks and
    errors as :func:`read_labels`, without a DataFrame of the rows: a hundred million labels take 12
    bytes each (int32 codes), the ids are kept once each, in natural order (``items``, ``judges``),
    and the classes as :func:`read_labels` gives them.

    The labels are in file order, or with ``sort`` sorted by (item, judge, label) code, the order every
    fit runs on (:func:`~manyjudges.core.coded_labels.canonical_order`): the one sort that looks for
    repeated (item, judge) pairs also orders the labels, and a fit need not sort them again.

    Without ``classes``, codes above a run of unused codes that hold few labels, and rare classes only one
    judge gave, are warned about (:class:`~manyjudges.core.stray_classes.StrayClassesWarning`, naming the
    file, the codes and their counts).
    """
    data = _read_labels(path, classes, duplicates, sort).data
    give_back_freed_memory()  # the parse's and the sort's temporaries
    if classes is None:  # the classes are the codes 0 .. max(label): warn of those that look like mistakes
        warn_stray_classes(data.label, data.judge, data.classes, data.judges, True, os.fspath(path))
    return data


def read_labels(path: PathLike, classes: Sequence | None = None, duplicates: str = "error") -> pd.DataFrame:
    """Read and validate a labels table (``item, judge, label``).

    Parameters
    ----------
    path : path-like
        TSV file (CSV if the name ends in ``.csv``); the columns in any order, ``judge`` for
        ``judge`` and ``task`` for ``item`` accepted, other columns ignored with a warning.
    classes : sequence, optional
        The class names, lowest first for ordinal labels; every label must be one of them
        (compared as text). Without them a label must be an integer class code 0..999.
    duplicates : {"error", "keep", "first", "last"}
        A repeated (item, judge) pair is an error naming both lines (the default), or every
        row is kept as one label, or only the first or the last row of the pair is kept.

    Returns
    -------
    pandas.DataFrame
        Columns ``item``, ``judge`` (str, verbatim) and ``label`` (int64 codes without
        ``classes``; with them, the declared classes: int64 if they are all integers, else
        str), rows in file order; ``attrs["lines"]`` holds each row's line in the file.

    Raises
    ------
    DataError
        Naming the file, the line and the value, at the first faulty row in file order: a header
        without one of the columns, a row with another number of fields, no data rows, an empty
        field, a label that is not a non-negative integer (no ``classes``) or not one of
        ``classes``, a repeated (item, judge) pair (with ``duplicates="error"``; both lines are
        named), or fewer than two judges in the whole table (truth inference needs at least two).
    ValueError
        For a ``duplicates`` rule that does not exist, or fewer than two or repeated classes.
    """
    read = _read_labels(path, classes, duplicates)
    data = read.data
    table = pd.DataFrame({
        "item": np.asarray(data.items, dtype=object)[data.item].astype(str),
        "judge": np.asarray(data.judges, dtype=object)[data.judge].astype(str),
        "label": data.classes[data.label],
    })
    if table["label"].dtype == object and classes is not None and _class_names(classes).dtype.kind == "i":
        table["label"] = table["label"].astype(np.int64)
    table.attrs["lines"] = read.table.lines if read.kept is None else read.table.lines.subset(read.kept)
    return table


def read_truth(path: PathLike, labels: pd.DataFrame | CrowdLabels | None = None,
               classes: Sequence | None = None, strict: bool = False) -> pd.DataFrame:
    """Read and validate a label truth table (``item, truth``).

    Parameters
    ----------
    path : path-like
        TSV file (CSV if the name ends in ``.csv``); column habits as in :func:`read_labels`.
    labels : pandas.DataFrame or CrowdLabels, optional
        The labels the truth scores (e.g. from :func:`read_labels`): without ``classes`` the truth
        must be one of the labels' classes (0..max(label) for integer labels). A truth row for an
        item that has no labels there is skipped, and the rows skipped are counted in a
        :class:`~manyjudges.io.engine.errors.DataWarning`.
    classes : sequence, optional
        The class names; every truth must be one of them. Without ``classes`` and
        ``labels`` a truth must be an integer class code.
    strict : bool
        A truth item without labels is an error instead of a warning.

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (str) and ``truth`` (int64 codes, or the classes as in
        :func:`read_labels`), rows in file order; ``attrs["lines"]`` as in :func:`read_labels`.

    Raises
    ------
    DataError
        Naming the truth file, the line and the value, for a header without one of the columns,
        no data rows, an empty field, a truth outside the classes (or not a non-negative
        integer), an item given twice (both lines are named), or (``strict``) an item that has
        no labels.
    """
    crowd = None
    if labels is not None:
        crowd = as_crowd_labels(labels, classes=classes, duplicates="keep")
        if classes is None:
            classes = list(crowd.classes)
    table = read_columns(path, TRUTH_LAYOUT, code=("item",))
    # the items' text as parsed, kept for the frame (None: coded batch by batch); the rest let go once coded
    parsed_items = table.columns.get("item")
    for column in table.layout.columns:
        table.release(column)
    empty = _empty_fields(table, table.layout.columns)
    value_code, order, bad = _value_codes(table, "truth", classes)
    item, distinct = table.codes("item")
    items = pd.Index(distinct.to_pandas(), name="item")
    repeat = None
    repeated, heads = table.repeated(["item"])
    if len(repeated):
        row = int(repeated[0])
        repeat = Fault(row, 20, f"item already has a truth on line {table.line(int(heads[0]))}",
                       table.field("item", row))
    _raise_earliest(table, [empty, bad, repeat])
    truth = order[value_code[table.codes("truth")[0]]]
    # the items as parsed, in file order, are the frame's column as they are; else taken from the distinct ids
    item_text = parsed_items.cast(pa.string()).to_pandas() if parsed_items is not None else items.take(item)
    frame = pd.DataFrame({"item": pd.Series(item_text, dtype=items.dtype), "truth": truth})
    rows = np.arange(len(frame))
    if crowd is not None:
        unlabelled = (id_positions(crowd.items, items) < 0)[item]
        if unlabelled.any():
            row = int(np.flatnonzero(unlabelled)[0])
            if strict:
                raise table.error(row, "item has no labels in the labels table", table.field("item", row))
            warnings.warn(f"{path}: skipped {int(unlabelled.sum())} of {len(frame)} truth rows whose item has no "
                          f"labels (the first on line {table.line(row)}: {table.field('item', row)!r})",
                          DataWarning, stacklevel=2)
            rows = np.flatnonzero(~unlabelled)
            frame = frame.iloc[rows].reset_index(drop=True)
    frame.attrs["lines"] = table.lines if len(rows) == table.n_rows else table.lines.subset(rows)
    give_back_freed_memory()  # the parse's and the matching's temporaries
    return frame


def write_labels(labels: pd.DataFrame, path: PathLike) -> None:
    """Write a labels table (``item``, ``judge`` or ``worker``, ``label``) atomically.

    The header is ``item, judge, label``; TSV, or CSV if the name ends in ``.csv``.
    """
    frame = labels.rename(columns={"worker": "judge"}) if "judge" not in labels.columns else labels
    missing = [c for c in _LABELS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a labels table needs the columns item, judge (or worker), label; missing {missing}")
    write_table(frame[_LABELS_COLUMNS], path)


def write_truth(truth: pd.DataFrame, path: PathLike) -> None:
    """Write a label truth table (``item``, ``truth``) atomically; TSV, or CSV if the name ends in ``.csv``."""
    missing = [c for c in _LABEL_TRUTH_COLUMNS if c not in truth.columns]
    if missing:
        raise ValueError(f"a label truth table needs the columns item, truth; missing {missing}")
    write_table(truth[_LABEL_TRUTH_COLUMNS], path)
