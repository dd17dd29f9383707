"""The canonical ``labels`` and label ``truth`` tables of the truth-inference family.

A labels table has the header ``item, worker, label`` (``judge`` is accepted for ``worker``
when reading): one row per label a worker gave an item. Without declared classes a label is
a class code, an integer ``0 .. K-1`` (the classes are ``0 .. max(label)``); with declared
``classes`` it is one of their names. A label truth table has the header ``item, truth``:
the true class of some or all labelled items, used only to score inferred classes.

Both are TSV files, or CSV when the name ends in ``.csv`` (:func:`~manyjudges.io.tables.delimiter_of`),
UTF-8 with a header line; blank lines are skipped. Bad input is a
:class:`~manyjudges.io.errors.DataError` naming the file, the 1-based line (header = line 1)
and the value. Writes are atomic. Item and worker ids are read as strings, verbatim.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from manyjudges.io.errors import DataError
from manyjudges.io.tables import _temp_path, delimiter_of, read_header, read_tsv_rows

if TYPE_CHECKING:
    from manyjudges.truth.labels import CrowdLabels

__all__ = [
    "LABELS_COLUMNS",
    "LABEL_TRUTH_COLUMNS",
    "MAX_CLASS_CODE",
    "read_labels",
    "read_truth",
    "write_labels",
    "write_truth",
]

LABELS_COLUMNS = ["item", "worker", "label"]
LABEL_TRUTH_COLUMNS = ["item", "truth"]
#: the largest integer label read without declared classes (the classes are 0 .. max(label))
MAX_CLASS_CODE = 999

_CODE = r"[0-9]+"
_NEGATIVE = re.compile(r"-[0-9]+")

PathLike = str | os.PathLike[str]


def _check_header(path: Path, accepted: list[list[str]]) -> list[str]:
    """The file's header if it is one of ``accepted``, else a DataError naming what is missing or extra."""
    header = read_header(path)
    sep = delimiter_of(path)
    wanted = accepted[0]
    if header in accepted:
        return header
    shown = sep.join(header) if header else "(empty file)"
    alternatives = {name for columns in accepted for name in columns}
    missing = [c for c in wanted if c not in header and not (c == "worker" and "judge" in header)]
    extra = [c for c in header if c not in alternatives or header.count(c) > 1]
    parts = []
    if missing:
        parts.append(f"missing column(s) {', '.join(missing)}")
    if extra:
        parts.append(f"unexpected column(s) {', '.join(dict.fromkeys(extra))}")
    if not parts:
        parts.append("columns out of order")
    also = f" (or {sep.join(accepted[1])})" if len(accepted) > 1 else ""
    raise DataError.at(path, 1, f"header must be {sep.join(wanted)!r}{also}: {'; '.join(parts)}", shown)


def _columns(path: Path, columns: list[str]) -> tuple[dict[str, pd.Series], np.ndarray]:
    """The data rows as one str Series per column (canonical names), and their line numbers."""
    rows, lines = read_tsv_rows(path, columns)
    data = {name: pd.Series(values, dtype=object) for name, values in zip(columns, zip(*rows))}
    return data, np.asarray(lines, dtype=np.int64)


def _first(mask: np.ndarray) -> int | None:
    """The index of the first True, or None."""
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _check_class_names(classes: Sequence) -> list[str]:
    names = [str(c) for c in classes]
    if len(names) < 2:
        raise ValueError(f"at least two classes are needed, got {list(classes)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"the classes repeat a name: {list(classes)!r}")
    return names


def _class_values(classes: Sequence, codes: np.ndarray) -> np.ndarray:
    """The declared classes at ``codes``: int64 when every class is an integer, else str."""
    array = np.asarray(list(classes))
    if array.dtype.kind in "iu":
        return array.astype(np.int64)[codes]
    return np.asarray([str(c) for c in classes], dtype=object)[codes]


def _parse_classes(path: Path, lines: np.ndarray, text: pd.Series, name: str,
                   classes: Sequence | None) -> np.ndarray:
    """Class values of a column: codes 0..MAX_CLASS_CODE without ``classes``, else the declared classes."""
    if classes is not None:
        names = _check_class_names(classes)
        codes = pd.Index(names).get_indexer(text.to_numpy())
        row = _first(codes < 0)
        if row is not None:
            raise DataError.at(path, int(lines[row]), f"{name} is not one of the classes {', '.join(names)}",
                               text.iloc[row])
        return _class_values(classes, codes)
    ok = text.str.fullmatch(_CODE).to_numpy(dtype=bool)
    row = _first(~ok)
    if row is not None:
        value = text.iloc[row]
        if _NEGATIVE.fullmatch(value):
            raise DataError.at(path, int(lines[row]), f"{name} must be a class code 0 or more", value)
        raise DataError.at(path, int(lines[row]), f"{name} must be an integer class code (0, 1, ...) when no "
                           "classes are given", value)
    too_long = text.str.lstrip("0").str.len().to_numpy() > len(str(MAX_CLASS_CODE))
    codes = np.where(too_long, MAX_CLASS_CODE + 1, 0)
    codes[~too_long] = text[~too_long].astype(np.int64).to_numpy()
    row = _first(codes > MAX_CLASS_CODE)
    if row is not None:
        raise DataError.at(path, int(lines[row]), f"{name} is above {MAX_CLASS_CODE}: the classes would be "
                           f"0..{name}; declare the classes for other names", text.iloc[row])
    return codes.astype(np.int64)


def _check_fields(path: Path, lines: np.ndarray, data: dict[str, pd.Series], column: str,
                  classes: Sequence | None) -> np.ndarray:
    """The class values of ``column``; the first faulty line in file order (an empty or
    whitespace-only field, or a value that is not a class) is a DataError."""
    empty = {name: (values.str.strip() == "").to_numpy(dtype=bool) for name, values in data.items()}
    row = _first(np.logical_or.reduce(list(empty.values())))
    stop = len(lines) if row is None else row
    values = _parse_classes(path, lines[:stop], data[column].iloc[:stop], column, classes)
    if row is not None:
        name = next(n for n, mask in empty.items() if mask[row])
        raise DataError.at(path, int(lines[row]), f"empty {name}", data[name].iloc[row])
    return values


def _row_text(path: Path, data: dict[str, pd.Series], row: int) -> str:
    return delimiter_of(path).join(str(values.iloc[row]) for values in data.values())


def _repeat(path: Path, lines: np.ndarray, keys: list[pd.Series]) -> tuple[int, int] | None:
    """(row of the first repeat of ``keys``, row of its first occurrence), or None."""
    frame = pd.DataFrame({f"k{i}": k for i, k in enumerate(keys)})
    repeated = frame.duplicated(keep="first").to_numpy()
    row = _first(repeated)
    if row is None:
        return None
    group = frame.groupby(list(frame.columns), sort=False).ngroup().to_numpy()
    return row, int(np.flatnonzero(group == group[row])[0])


def read_labels(path: PathLike, classes: Sequence | None = None, duplicates: str = "error") -> pd.DataFrame:
    """Read and validate a labels table (``item, worker, label``; ``judge`` accepted for ``worker``).

    Parameters
    ----------
    path : path-like
        TSV file (CSV if the name ends in ``.csv``).
    classes : sequence, optional
        The class names, lowest first for ordinal labels; every label must be one of them
        (compared as text). Without them a label must be an integer class code 0..999.
    duplicates : {"error", "keep", "first", "last"}
        A repeated (item, worker) pair is an error naming both lines (the default), or every
        row is kept as one label, or only the first or the last row of the pair is kept.

    Returns
    -------
    pandas.DataFrame
        Columns ``item``, ``worker`` (str, verbatim) and ``label`` (int64 codes without
        ``classes``; with them, the declared classes: int64 if they are all integers, else
        str), rows in file order; ``attrs["lines"]`` (int64 array) holds each row's line in the file.

    Raises
    ------
    DataError
        Naming the file, the line and the value, for a header that misses or adds a column,
        a row with another number of fields, no data rows, an empty field, a label that is
        not a non-negative integer (no ``classes``) or not one of ``classes``, a repeated
        (item, worker) pair (with ``duplicates="error"``; both lines are named), or fewer
        than two workers in the whole table (truth inference needs at least two).
    ValueError
        For a ``duplicates`` rule that does not exist, or fewer than two or repeated classes.
    """
    from manyjudges.truth.labels import DUPLICATE_RULES  # here: manyjudges.truth may import manyjudges.io

    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    if classes is not None:
        _check_class_names(classes)
    path = Path(path)
    header = _check_header(path, [LABELS_COLUMNS, ["item", "judge", "label"]])
    data, lines = _columns(path, header)
    data = dict(zip(LABELS_COLUMNS, data.values()))
    label = _check_fields(path, lines, data, "label", classes)
    repeat = _repeat(path, lines, [data["item"], data["worker"]])
    keep = np.ones(len(lines), dtype=bool)
    if repeat is not None:
        row, first = repeat
        if duplicates == "error":
            raise DataError.at(path, int(lines[row]), f"(item, worker) = ({data['item'].iloc[row]!r}, "
                               f"{data['worker'].iloc[row]!r}) was already labelled on line {int(lines[first])} "
                               "(pass duplicates='keep', 'first' or 'last')", _row_text(path, data, row))
        if duplicates in ("first", "last"):
            pairs = pd.DataFrame({"item": data["item"], "worker": data["worker"]})
            keep = ~pairs.duplicated(keep=duplicates).to_numpy()
    workers = data["worker"].unique()
    if len(workers) < 2:
        raise DataError.at(path, int(lines[0]), "truth inference needs at least two workers; the table has one",
                           workers[0])
    table = pd.DataFrame({
        "item": data["item"].to_numpy()[keep].astype(str),
        "worker": data["worker"].to_numpy()[keep].astype(str),
        "label": label[keep],
    })
    table.attrs["lines"] = lines[keep]
    return table


def read_truth(path: PathLike, labels: pd.DataFrame | CrowdLabels | None = None,
               classes: Sequence | None = None) -> pd.DataFrame:
    """Read and validate a label truth table (``item, truth``).

    Parameters
    ----------
    path : path-like
        TSV file (CSV if the name ends in ``.csv``).
    labels : pandas.DataFrame or CrowdLabels, optional
        The labels the truth scores (e.g. from :func:`read_labels`): every truth item must
        have labels there, and without ``classes`` the truth must be one of the labels'
        classes (:func:`~manyjudges.truth.labels.as_crowd_labels`: 0..max(label) for
        integer labels).
    classes : sequence, optional
        The class names; every truth must be one of them. Without ``classes`` and
        ``labels`` a truth must be an integer class code.

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (str) and ``truth`` (int64 codes, or the classes as in
        :func:`read_labels`), rows in file order; ``attrs["lines"]`` as in :func:`read_labels`.

    Raises
    ------
    DataError
        Naming the truth file, the line and the value, for a header that misses or adds a
        column, no data rows, an empty field, a truth outside the classes (or not a
        non-negative integer), an item given twice (both lines are named) or an item that
        has no labels.
    """
    from manyjudges.truth.labels import as_crowd_labels  # here: manyjudges.truth may import manyjudges.io

    path = Path(path)
    _check_header(path, [LABEL_TRUTH_COLUMNS])
    data, lines = _columns(path, LABEL_TRUTH_COLUMNS)
    items = None
    if labels is not None:
        crowd = as_crowd_labels(labels, classes=classes, duplicates="keep")
        items = pd.Index([str(i) for i in crowd.items])
        if classes is None:
            classes = list(crowd.classes)
    truth = _check_fields(path, lines, data, "truth", classes)
    repeat = _repeat(path, lines, [data["item"]])
    if repeat is not None:
        row, first = repeat
        raise DataError.at(path, int(lines[row]), f"item already has a truth on line {int(lines[first])}",
                           data["item"].iloc[row])
    if items is not None:
        row = _first(items.get_indexer(data["item"].to_numpy()) < 0)
        if row is not None:
            raise DataError.at(path, int(lines[row]), "item has no labels in the labels table",
                               data["item"].iloc[row])
    table = pd.DataFrame({"item": data["item"].to_numpy().astype(str), "truth": truth})
    table.attrs["lines"] = lines
    return table


def _write(df: pd.DataFrame, path: PathLike, columns: list[str]) -> None:
    """``df[columns]`` to ``path`` atomically, tab- or comma-separated by the file name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(path)
    try:
        with open(tmp, "x", encoding="utf-8", newline="") as handle:
            df[columns].to_csv(handle, sep=delimiter_of(path), index=False, lineterminator="\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_labels(labels: pd.DataFrame, path: PathLike) -> None:
    """Write a labels table (``item``, ``worker`` or ``judge``, ``label``) atomically, header
    ``item, worker, label``; TSV, or CSV if the name ends in ``.csv``."""
    frame = labels.rename(columns={"judge": "worker"}) if "worker" not in labels.columns else labels
    missing = [c for c in LABELS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a labels table needs the columns item, worker (or judge), label; missing {missing}")
    _write(frame, path, LABELS_COLUMNS)


def write_truth(truth: pd.DataFrame, path: PathLike) -> None:
    """Write a label truth table (``item``, ``truth``) atomically; TSV, or CSV if the name ends in ``.csv``."""
    missing = [c for c in LABEL_TRUTH_COLUMNS if c not in truth.columns]
    if missing:
        raise ValueError(f"a label truth table needs the columns item, truth; missing {missing}")
    _write(truth, path, LABEL_TRUTH_COLUMNS)
