"""Crowd labels as integer codes: the labels table that the truth-inference methods fit, coded once.

A labels table is long: one row per (item, judge, label). In memory it becomes a
:class:`CrowdLabels`: three aligned integer arrays (``item``, ``judge``, ``label``) indexing
``items``, ``judges`` and ``classes``, int32 while the products the methods form
(``item * K + label``, ``judge * K + label``) fit in it (12 bytes a label), else int64. Every
method of :mod:`manyjudges.truth` works on these codes; the ids and class names only come back
in the fitted pandas attributes. Items and judges are coded in natural id order (numbers by
value, ``2`` before ``10``; other ids as text), so the codes, and every result, do not depend on
the order of the table's rows. The file reader :func:`manyjudges.io.tables.labels.read_crowd_labels`
builds the same codes straight from a file.

Classes: with ``classes`` given (e.g. the ordinal names ``G, P, R, X``, lowest first) every
label must be one of them and the classes are in that order; otherwise integer labels give the
classes ``0 .. max(label)`` (a class nobody used still counts) and other labels their sorted
distinct values; of the classes so read, those that look like mistakes (codes above a run of unused
codes holding few labels, a rare class only one judge gave) are warned about
(:mod:`manyjudges.core.stray_classes`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from manyjudges.core.id_codes import number_positions
from manyjudges.core.label_keys import _CHUNK, keys_to_codes, label_keys
from manyjudges.core.length import LengthOf
from manyjudges.core.natural_order import natural_ids
from manyjudges.core.packed_keys import fits
from manyjudges.core.sorting import sort_in_place
from manyjudges.core.stray_classes import warn_stray_classes

__all__ = [
    "CrowdLabels", "DUPLICATE_RULES", "as_crowd_labels", "as_text", "canonical_order", "code_dtype", "gold_codes",
    "id_positions", "repeated_pairs",
]

#: what to do with repeated (item, judge) rows: an error, keep them all (each is one label), first, last
DUPLICATE_RULES = ("error", "keep", "first", "last")


@dataclass(frozen=True, eq=False)
class CrowdLabels:
    """Labels as codes: ``label[e]`` (0..K-1) is what ``judge[e]`` said about ``item[e]``."""

    item: np.ndarray
    judge: np.ndarray
    label: np.ndarray
    #: the item ids, in code order (codes index this Index, named ``item``)
    items: pd.Index
    #: the judge ids, in code order (named ``judge``)
    judges: pd.Index
    #: the class names, in code order (lowest first for ordinal labels)
    classes: np.ndarray

    #: the number of labels (rows of the table)
    n_labels = LengthOf("label")
    #: the number of distinct items
    n_items = LengthOf("items")
    #: the number of distinct judges
    n_judges = LengthOf("judges")
    #: the number of classes
    n_classes = LengthOf("classes")

    @cached_property
    def class_counts(self) -> np.ndarray:
        """(n_items, K) how many labels of each class each item received."""
        k = self.n_classes
        return np.bincount(self.item * k + self.label, minlength=self.n_items * k).reshape(self.n_items, k)

    @cached_property
    def judge_counts(self) -> np.ndarray:
        """(n_judges,) how many labels each judge gave."""
        return np.bincount(self.judge, minlength=self.n_judges)

    def one_hot(self) -> np.ndarray:
        """(n_labels, K) float one-hot of each label."""
        out = np.zeros((self.n_labels, self.n_classes))
        out[np.arange(self.n_labels), self.label] = 1.0
        return out


def code_dtype(*sizes: int) -> type[np.signedinteger]:
    """int32 when every ``size`` (a count, or a product of counts the methods form) fits in it, else int64."""
    return np.int32 if max(sizes, default=0) < np.iinfo(np.int32).max else np.int64


def as_text(values: Sequence | pd.Index | pd.Series | np.ndarray | pa.Array) -> pa.Array:
    """``values`` as a pyarrow string array: strings as they are, numbers as their text (``1`` -> ``"1"``)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        if isinstance(values, (pd.Index, pd.Series)):
            try:  # an Arrow-backed column converts without a copy
                return as_text(pa.array(values))
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                values = values.to_numpy()
        try:
            values = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            values = pa.array([str(v) for v in values], type=pa.string())
    if pa.types.is_dictionary(values.type):
        values = values.dictionary.take(values.indices)
    if pa.types.is_large_string(values.type):
        values = values.cast(pa.string())
    if not pa.types.is_string(values.type):
        if pa.types.is_integer(values.type):
            values = pc.cast(values, pa.string())
        else:
            values = pa.array([str(v) for v in values.to_pylist()], type=pa.string())
    return values


def id_positions(ids: Sequence | pd.Index | np.ndarray, wanted: Sequence | pd.Index | pd.Series | np.ndarray
                 ) -> np.ndarray:
    """Return the position of each of ``wanted`` in ``ids`` (int64, -1 where absent).

    The ids are compared as text (``1`` finds ``"1"``): the same ids in the same order are found at once;
    ids of one prefix and a number by their numbers (:func:`~manyjudges.core.id_codes.number_positions`);
    others by one hash pass (pyarrow's ``index_in``), never a Python dictionary of ids.
    """
    have, want = as_text(ids), as_text(wanted)
    if have.equals(want):
        return np.arange(len(want), dtype=np.int64)
    found = number_positions(have, want)
    if found is not None:
        return found
    return pc.index_in(want, value_set=have).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _codes(values: pd.Series, name: str) -> tuple[np.ndarray, pd.Index]:
    """Return (int64 codes, distinct values as an Index named ``name``), the values in natural order.

    Natural order is that of :func:`natural_ids`. Non-negative integer ids up to a few times their number
    are coded by a presence table, O(n), instead of hashing and sorting.
    """
    if pd.api.types.is_integer_dtype(values.dtype) and len(values):
        ids = values.to_numpy(np.int64)
        low, high = int(ids.min()), int(ids.max())
        if low >= 0 and high < 4 * len(ids) + 1024:
            present = np.zeros(high + 1, dtype=bool)
            present[ids] = True
            rank = np.cumsum(present) - 1
            return rank[ids], pd.Index(np.flatnonzero(present), name=name)
    codes, uniques = pd.factorize(values, sort=False)
    order = natural_ids(uniques.to_numpy() if isinstance(uniques, pd.Index) else np.asarray(uniques))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[codes], pd.Index(np.asarray(uniques)[order], name=name)


def _plain(value: object) -> object:
    """Return a numpy scalar as the Python value it holds (for messages: ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def repeated_pairs(item: np.ndarray, judge: np.ndarray, n_judges: int, keep: str) -> np.ndarray:
    """Return the row positions of the rows that repeat an (item, judge) pair, ascending.

    Every row of a pair but its first (``keep="first"``) or but its last (``"last"``). Sort-based:
    O(n log n), no hashing.
    """
    dtype = np.int32 if (int(item.max(initial=0)) + 1) * n_judges < np.iinfo(np.int32).max else np.int64
    key: np.ndarray = item.astype(dtype)  # the one copy: the products are made in place
    key *= n_judges
    key += judge
    key.sort()  # in place: one array of the pairs (4 or 8 bytes a label) at the peak
    repeats = bool((key[1:] == key[:-1]).any())
    if not repeats:
        return np.zeros(0, dtype=np.int64)
    key = item.astype(np.int64) * n_judges + judge  # in table order again, to find the rows
    order = np.argsort(key, kind="stable")  # within a pair, rows in table order
    same = key[order[1:]] == key[order[:-1]]
    return np.sort(order[1:][same] if keep == "first" else order[:-1][same])


def _class_order(label: pd.Series, classes: Sequence | None, source: str) -> np.ndarray:
    if classes is not None:
        names = list(classes)
        if len(names) < 2:
            raise ValueError(f"{source}: at least two classes are needed, got {names!r}")
        if len(set(map(str, names))) != len(names):
            raise ValueError(f"{source}: the classes repeat a name: {names!r}")
        return np.asarray(names, dtype=object)
    if pd.api.types.is_integer_dtype(label.dtype):
        values = label.to_numpy()
        if values.min() < 0:
            bad = int(values[values < 0][0])
            raise ValueError(f"{source}: integer labels must be 0 or more, got {bad}")
        top = int(values.max())
        return np.arange(max(top + 1, 2), dtype=np.int64)
    names = sorted(label.astype(str).unique())
    if len(names) < 2:
        raise ValueError(f"{source}: every label is {names[0]!r}; declare the classes (two or more) to fit")
    return np.asarray(names, dtype=object)


def _label_codes(values: pd.Series, classes: Sequence | None, source: str, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Return (label codes, class names) of the labels ``values``.

    ``rows[e]`` is label e's row in the table (0-based, for messages). Whole float labels are integer
    codes; labels that are not integers are matched to the class names as text.
    """
    if pd.api.types.is_float_dtype(values.dtype):
        numbers = values.to_numpy(float)
        bad = ~np.isfinite(numbers) | (numbers != np.round(numbers)) | (np.abs(numbers) > 2.0 ** 53)
        if bad.any():
            e = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{source}: row {rows[e] + 1} has label {float(numbers[e])!r}; a label is an integer "
                             f"class code 0..K-1 or a class name")
        values = values.astype(np.int64)  # 0.0, 1.0, ...: the codes 0, 1, ...
    order = _class_order(values, classes, source)
    integer = pd.api.types.is_integer_dtype(values.dtype)
    if integer and classes is None:
        return values.to_numpy(np.int64), order  # the codes themselves (0 .. max, checked above)
    if integer and all(isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in order):
        label = pd.Index(np.asarray(order, dtype=np.int64)).get_indexer(pd.Index(values))
    else:
        if classes is not None and not integer:
            order = np.asarray([str(c) for c in order], dtype=object)
        label = pd.Index([str(c) for c in order]).get_indexer(pd.Index(values.astype(str)))
    label = np.asarray(label, dtype=np.int64)
    if (label < 0).any():
        e = int(np.flatnonzero(label < 0)[0])
        raise ValueError(f"{source}: row {rows[e] + 1} has label {_plain(values.iloc[e])!r}, "
                         f"not one of the classes {', '.join(map(str, order))}")
    return label, order


def as_crowd_labels(
    labels: pd.DataFrame | CrowdLabels,
    classes: Sequence | None = None,
    duplicates: str = "error",
    source: str = "labels",
) -> CrowdLabels:
    """Encode a long labels table as :class:`CrowdLabels`.

    The table's columns are ``item`` or crowd-kit's ``task``, ``judge`` or ``worker``, and ``label``.

    ``classes`` fixes the class names and their order (labels are matched as strings when the
    table's labels are strings). ``duplicates`` says what a repeated (item, judge) row means:
    ``"error"`` (the default: a ValueError naming the first repeat), ``"keep"`` (each row is one
    label, as in Dawid and Skene's repeated responses), ``"first"`` or ``"last"`` (keep one).
    ``source`` names the table in error messages. Items and judges are coded in sorted id order.
    Without ``classes``, stray classes are warned about
    (:class:`~manyjudges.core.stray_classes.StrayClassesWarning`).
    """
    if isinstance(labels, CrowdLabels):
        return labels
    if not isinstance(labels, pd.DataFrame):
        raise TypeError(f"{source}: expected a pandas DataFrame with columns item, judge, label; "
                        f"got {type(labels).__name__}")
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    frame = labels
    if "judge" not in frame.columns and "worker" in frame.columns:  # the judge's other name
        frame = frame.rename(columns={"worker": "judge"})
    if "item" not in frame.columns and "task" in frame.columns:  # crowd-kit's name for an item
        frame = frame.rename(columns={"task": "item"})
    missing = [c for c in ("item", "judge", "label") if c not in frame.columns]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)} "
                         f"(a labels table has item (or task), judge (or worker), label)")
    if frame.empty:
        raise ValueError(f"{source}: the table has no labels")
    for column in ("item", "judge", "label"):
        missing_value = frame[column].isna().to_numpy()
        if missing_value.any():
            row = int(np.flatnonzero(missing_value)[0])
            raise ValueError(f"{source}: row {row + 1} has no {column}")
    item, items = _codes(frame["item"], "item")
    judge, judges = _codes(frame["judge"], "judge")
    rows = np.arange(len(frame))
    label_values = frame["label"]
    if duplicates != "keep":
        repeated = repeated_pairs(item, judge, len(judges), "last" if duplicates == "last" else "first")
        if len(repeated) and duplicates == "error":
            row = int(repeated[0])
            raise ValueError(f"{source}: row {row + 1} repeats (item, judge) = ({_plain(items[item[row]])!r}, "
                             f"{_plain(judges[judge[row]])!r}); pass duplicates='keep', 'first' or 'last'")
        if len(repeated):  # "first" or "last": the other rows of a pair are dropped before the classes are read
            kept = np.ones(len(item), dtype=bool)
            kept[repeated] = False
            rows = np.flatnonzero(kept)
            item, judge, label_values = item[kept], judge[kept], label_values.iloc[rows]
    label, order = _label_codes(label_values, classes, source, rows)
    if classes is None:  # read from the labels: warn of the classes that look like mistakes
        warn_stray_classes(label, judge, order, judges, pd.api.types.is_integer_dtype(order.dtype), source)
    dtype = code_dtype(len(items) * len(order), len(judges) * len(order))
    return CrowdLabels(item=item.astype(dtype), judge=judge.astype(dtype), label=label.astype(dtype), items=items,
                       judges=judges, classes=order)


def _is_canonical(data: CrowdLabels) -> bool:
    """Tell whether the labels are sorted by (item, judge, label) code (checked in chunks, no copy of the codes)."""
    for start in range(0, max(data.n_labels - 1, 0), _CHUNK):
        rows = slice(start, start + _CHUNK + 1)
        item, judge, label = data.item[rows], data.judge[rows], data.label[rows]
        later = (item[1:] > item[:-1]) | ((item[1:] == item[:-1]) & (
            (judge[1:] > judge[:-1]) | ((judge[1:] == judge[:-1]) & (label[1:] >= label[:-1]))))
        if not later.all():
            return False
    return True


def canonical_order(data: CrowdLabels) -> CrowdLabels:
    """Return ``data`` with its labels sorted by (item, judge, label) code.

    So every sum a fit makes runs in one order whatever the order of the table's rows (the same judgments,
    the same numbers to the last bit).

    Returns ``data`` itself when its rows are in that order already (:func:`_is_canonical`), else a sorted
    copy: one int64 key a label (:func:`~manyjudges.core.label_keys.label_keys`), sorted
    (:func:`~manyjudges.core.sorting.sort_in_place`), and the codes read back from it (a key holds all three
    codes, so equal keys are equal rows and the sort need not be stable nor give a permutation).
    """
    if _is_canonical(data):
        return data
    sizes = (data.n_items, data.n_judges, data.n_classes)
    if not fits(sizes):  # codes too many for one 64-bit key: a sort of the rows
        order = np.lexsort((data.label, data.judge, data.item))
        return CrowdLabels(item=data.item[order], judge=data.judge[order], label=data.label[order], items=data.items,
                           judges=data.judges, classes=data.classes)
    key = label_keys(data.item, data.judge, data.label, sizes)
    sort_in_place(key)
    item, judge, label = keys_to_codes(key, sizes, data.item.dtype.type)
    return CrowdLabels(item=item, judge=judge, label=label, items=data.items, judges=data.judges,
                       classes=data.classes)


def gold_codes(data: CrowdLabels, gold: pd.DataFrame | pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Known answers as codes of ``data``: (item codes, class codes, gold rows whose item has no labels).

    ``gold``: a DataFrame with columns ``item`` (or ``task``) and ``truth`` (or ``label``), or a Series
    of classes indexed by item. Classes are matched to ``data.classes`` as text (a code 1 equals "1");
    a class the labels do not have, or an item given twice, is a ValueError naming it. Items without
    labels carry nothing to fit and are only counted.
    """
    if isinstance(gold, pd.Series):
        gold = pd.DataFrame({"item": gold.index, "truth": gold.to_numpy()})
    frame = gold.rename(columns={"task": "item"} if "item" not in gold.columns else {})
    if "truth" not in frame.columns and "label" in frame.columns:
        frame = frame.rename(columns={"label": "truth"})
    missing = [c for c in ("item", "truth") if c not in frame.columns]
    if missing:
        raise ValueError(f"gold: missing column(s) {', '.join(missing)} (a gold table has item, truth)")
    repeated = frame["item"].astype(str).duplicated()
    if repeated.any():
        raise ValueError(f"gold: item {_plain(frame['item'][repeated].iloc[0])!r} is given twice")
    items = id_positions(data.items, frame["item"])
    known = items >= 0
    classes = id_positions(data.classes, frame["truth"][known])
    if (classes < 0).any():
        bad = frame["truth"][known].iloc[int(np.flatnonzero(classes < 0)[0])]
        raise ValueError(f"gold: class {_plain(bad)!r} is not among the labels' classes "
                         f"({', '.join(map(str, data.classes))})")
    return items[known].astype(np.int64), classes.astype(np.int64), int((~known).sum())
