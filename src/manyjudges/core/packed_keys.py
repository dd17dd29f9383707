"""Several integer codes packed into one int64 key that orders as they do, and unpacked again.

Codes ``c_0, c_1, ..., c_m`` with ``0 <= c_j < n_j`` pack into one key whose order is the
lexicographic order of the codes: each code in a field of ``bits(n_j)`` bits, the first code highest,
``key = (((c_0 << b_1) | c_1) << b_2 | c_2) ...``, when the fields fit in 63 bits; else the
mixed-radix number ``((c_0 n_1 + c_1) n_2 + c_2) ...`` when it fits in int64. Sorting the keys
sorts rows by their codes, and equal keys are equal rows, so a sorted key array holds the sorted
rows themselves: no permutation, no gathers. Fields are read back with shifts and masks, a few times
faster than the divisions a mixed-radix key needs.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from manyjudges.core.blocks import _on_blocks

__all__ = ["fits", "last", "pack", "prefix", "unpack"]

_LIMIT = 2**63 - 1


def _bits(size: int) -> int:
    """Return the bits a code below ``size`` takes (at least 1)."""
    return max(int(size - 1).bit_length(), 1)


def _shifts(sizes: Sequence[int]) -> bool:
    """Tell whether codes below ``sizes`` pack in bit fields (63 bits in all)."""
    return sum(_bits(n) for n in sizes) <= 63


def fits(sizes: Sequence[int]) -> bool:
    """Tell whether codes below ``sizes`` pack into one int64 key (bit fields, or a mixed-radix number)."""
    return _shifts(sizes) or float(np.prod(np.asarray(sizes, dtype=float))) < _LIMIT


def pack(columns: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """Return one int64 key a row, ordered as the rows' ``columns`` (codes below ``sizes``) lexicographically.

    Made in blocks of rows on every core (:func:`~manyjudges.core.blocks._on_blocks`). Raises a ValueError
    when the codes do not fit (:func:`fits`).
    """
    if not fits(sizes):
        raise ValueError(f"codes below {list(sizes)} do not fit in one 64-bit key")
    shifts = _shifts(sizes)
    columns = [np.asarray(column) for column in columns]
    key = np.empty(len(columns[0]), dtype=np.int64)

    def fill(rows: slice) -> None:
        part = key[rows]
        part[:] = columns[0][rows]
        for column, size in zip(columns[1:], sizes[1:]):
            if shifts:
                part <<= _bits(size)
                part |= column[rows]
            else:
                part *= size
                part += column[rows]

    _on_blocks(fill, len(key))
    return key


def unpack(key: np.ndarray, sizes: Sequence[int], dtype: type[np.signedinteger] = np.int64) -> list[np.ndarray]:
    """Return the code columns of :func:`pack` ``key`` (codes below ``sizes``) as ``dtype``; ``key`` is consumed.

    Read in blocks of rows on every core, a block's temporaries beside ``key`` and the columns.
    """
    columns = [np.empty(len(key), dtype=dtype) for _ in sizes]
    shifts = _shifts(sizes)

    def read(rows: slice) -> None:
        part = key[rows]
        for column, size in zip(columns[:0:-1], sizes[:0:-1]):
            if shifts:
                column[rows] = part & ((1 << _bits(size)) - 1)
                part >>= _bits(size)
            else:
                column[rows] = part % size
                part //= size
        columns[0][rows] = part

    _on_blocks(read, len(key))
    return columns


def prefix(key: np.ndarray, sizes: Sequence[int], dropped: int) -> np.ndarray:
    """Return the keys of the first codes of :func:`pack` ``key``, without its last ``dropped`` codes (a new array).

    Equal prefixes are rows equal in those first codes.
    """
    last = list(sizes[len(sizes) - dropped:])
    if _shifts(sizes):
        return key >> sum(_bits(n) for n in last)
    return key // int(np.prod(last, dtype=np.int64))


def last(key: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """Return the last code of each :func:`pack` ``key`` (codes below ``sizes``; a new int64 array)."""
    if _shifts(sizes):
        return key & ((1 << _bits(sizes[-1])) - 1)
    return key % int(sizes[-1])
