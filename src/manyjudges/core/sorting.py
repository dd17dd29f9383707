"""Sorting one large array of integer keys in place, on every core; rows of codes sorted through such keys.

numpy's sort runs on one core and lets go of Python's lock while it sorts. :func:`sort_in_place`
sorts equal parts of the array side by side in threads, one a core, then merges the sorted parts
with one stable sort (timsort finds the sorted runs and merges them in about one pass). Keys that
come nearly sorted (few descents) are sorted by timsort alone. :func:`row_keys` packs each row's codes
and its number into one such key (:mod:`~manyjudges.core.packed_keys`), so that sorting the keys sorts
the rows, stably, as ``np.lexsort`` would, without a gather a key.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from manyjudges.core.packed_keys import fits, pack

__all__ = ["row_keys", "sort_in_place"]

#: arrays shorter than this are sorted on one core (threads cost more than they give)
_PARALLEL_SIZE = 1 << 20


def sort_in_place(values: np.ndarray, cores: int | None = None) -> None:
    """Sort ``values`` (one dimension) in place, ascending.

    The same result as ``values.sort()``: with few descents (under one in 16 neighbours) one stable sort;
    else, for :data:`_PARALLEL_SIZE` values or more and several ``cores`` (default: the machine's), each of
    ``cores`` equal parts sorted in a thread, then the parts merged by a stable sort; else numpy's quicksort.
    """
    n = len(values)
    descents = np.count_nonzero(values[1:] < values[:-1]) if n > 1 else 0
    if descents == 0:
        return
    if descents < n // 16:
        values.sort(kind="stable")
        return
    cores = cores or os.cpu_count() or 1
    if cores < 2 or n < _PARALLEL_SIZE:
        values.sort()
        return
    bounds = np.linspace(0, n, cores + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=cores) as pool:
        list(pool.map(lambda k: values[bounds[k]:bounds[k + 1]].sort(), range(cores)))
    values.sort(kind="stable")  # a few sorted runs: merged


def row_keys(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, list[int]] | None:
    """Return (one int64 key a row, sorted; the sizes it packs), the row's ``keys`` codes then its number.

    The keys sort the rows by ``keys[0]``, then ``keys[1]``, ..., then row number (a stable lexicographic
    order); :func:`~manyjudges.core.packed_keys.last` reads the rows' numbers back. None unless every key is
    of non-negative integer codes and the codes' sizes and the row count pack into one int64
    (:func:`~manyjudges.core.packed_keys.fits`).
    """
    columns = [np.asarray(k) for k in keys]
    n = len(columns[0]) if columns else 0
    if not n or any(c.dtype.kind not in "iu" or int(c.min()) < 0 for c in columns):
        return None
    sizes = [int(c.max()) + 1 for c in columns] + [n]
    if not fits(sizes):
        return None
    key = pack([*columns, np.arange(n, dtype=np.int64)], sizes)
    sort_in_place(key)
    return key, sizes

