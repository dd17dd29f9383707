"""Natural order of ids: numbers by value when every id is a digit string, else text by code point.

The order every table's ids are coded and written in, whatever the order of the rows: ``"2"`` before
``"10"`` when all the ids are digit strings (equal numbers by their text, ``"07"`` before ``"7"``), and
otherwise the order Python sorts str in (code point), so ``"doc-10"`` comes before ``"doc-9"``.
:func:`natural_key` is the rule as a Python sort key; :func:`natural_order` computes it for millions of
ids at once (a sort of int64 numbers, or Arrow's sort of strings).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["natural_ids", "natural_key", "natural_order", "natural_positions", "natural_sort"]

_DIGITS = re.compile("[0-9]+")


def natural_key(values: Iterable[str]) -> Callable[[str], tuple[int, str]]:
    """Return the natural sort key of the ids ``values``: numbers by value if every id is a digit string.

    Parameters
    ----------
    values : iterable of str
        All the ids to be sorted (the rule depends on all of them).

    Returns
    -------
    callable
        ``key(text)``: ``(int(text), text)`` when every id is a digit string, else ``(0, text)``.

    Examples
    --------
    >>> ids = ["10", "9", "07", "7"]
    >>> sorted(ids, key=natural_key(ids))
    ['07', '7', '9', '10']
    >>> ids = ["doc-10", "doc-9", "a"]
    >>> sorted(ids, key=natural_key(ids))
    ['a', 'doc-10', 'doc-9']
    """
    digits = all(_DIGITS.fullmatch(v) for v in values)
    return (lambda text: (int(text), text)) if digits else (lambda text: (0, text))


def natural_order(values: pa.Array | Sequence[str]) -> np.ndarray:
    """Return the permutation that sorts string ``values`` naturally (:func:`natural_key`).

    Parameters
    ----------
    values : pyarrow.Array or sequence of str
        The ids (distinct or not; equal ids keep their input order).

    Returns
    -------
    numpy.ndarray of int64
        Positions into ``values``, smallest id first.
    """
    array = values if isinstance(values, pa.Array) else pa.array(list(values), type=pa.string())
    if len(array) == 0:
        return np.zeros(0, dtype=np.int64)
    digits = pc.all(pc.utf8_is_digit(array)).as_py() and pc.all(pc.match_substring_regex(array, r"^[0-9]+$")).as_py()
    if digits and pc.max(pc.utf8_length(array)).as_py() <= 18:  # fits int64: sort the numbers
        numbers = pc.cast(array, pa.int64()).to_numpy(zero_copy_only=False)
        order = np.argsort(numbers, kind="stable")  # O(n) when the ids came in order, as they often do
        ordered = numbers[order]
        if not (ordered[1:] == ordered[:-1]).any():  # no "07" beside "7": the text order needs no say
            return order.astype(np.int64, copy=False)
    if digits:
        stripped = pc.utf8_ltrim(array, characters="0")
        keys = pa.table({"length": pc.utf8_length(stripped), "number": stripped, "text": array})
        order = pc.sort_indices(keys, sort_keys=[("length", "ascending"), ("number", "ascending"),
                                                 ("text", "ascending")])
    else:
        order = pc.sort_indices(array)
    return order.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def natural_ids(uniques: pd.Index | np.ndarray) -> np.ndarray:
    """Return the permutation that puts distinct ids in natural order.

    Numbers by value; strings as :func:`natural_order` sorts them; other objects by their text.
    """
    values = np.asarray(uniques, dtype=object) if not isinstance(uniques, np.ndarray) else uniques
    if values.dtype.kind in "iuf" or len(values) == 0:
        return np.argsort(values, kind="stable")
    if all(isinstance(v, str) for v in values):
        return natural_order(pa.array(values, type=pa.string()))
    text = [str(v) for v in values]
    return np.asarray(sorted(range(len(text)), key=lambda i: text[i]), dtype=np.int64)


def natural_sort(items: Iterable[str]) -> list[str]:
    """Sort ids in natural order (:func:`natural_key`): ``["2", "10"]``, not ``["10", "2"]``, for digit ids.

    Parameters
    ----------
    items : iterable of str
        Item identifiers.

    Returns
    -------
    list of str
        The sorted identifiers.
    """
    items = [str(item) for item in items]
    return [items[i] for i in natural_order(items)]


def natural_positions(values: Iterable[str]) -> dict[str, int]:
    """Return the position of each distinct value in natural order (:func:`natural_sort`), e.g. ``{"2": 0, "10": 1}``.

    These are the sort keys that put rows of ids in canonical order (the grades table, TREC RF10's truth).
    """
    return {value: i for i, value in enumerate(natural_sort(set(values)))}
