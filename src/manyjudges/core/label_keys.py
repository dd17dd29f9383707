"""One int64 key a label: the (item, judge, label) codes in one number, sorted once, read back.

A label's key packs its item, judge and label codes (:mod:`manyjudges.core.packed_keys`): keys order
as the codes do, (item, judge, label) lexicographically, and a key holds all three codes. Sorting the
keys (:func:`~manyjudges.core.sorting.sort_in_place`) puts labels in the order every fit runs on
(:func:`~manyjudges.core.coded_labels.canonical_order`), and adjacent sorted keys of one (item,
judge) pair are a repeated pair. Plain numpy, in place where it can be: a label costs 8 bytes while
it is a key.
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.packed_keys import pack, prefix, unpack

__all__ = ["keys_to_codes", "label_keys", "sorted_keys_repeat_a_pair"]

#: labels checked at a time when a check walks the codes in chunks (a few MB of temporaries, whatever the size)
_CHUNK = 1 << 20


def label_keys(item: np.ndarray, judge: np.ndarray, label: np.ndarray, sizes: tuple[int, int, int]) -> np.ndarray:
    """Return one int64 key a label, ordered as its (item, judge, label) codes.

    ``sizes`` is (items, judges, classes); :func:`keys_to_codes` reads the codes back from the keys
    (:func:`~manyjudges.core.packed_keys.pack`).
    """
    return pack([item, judge, label], sizes)


def keys_to_codes(key: np.ndarray, sizes: tuple[int, int, int], dtype: type[np.signedinteger]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the (item, judge, label) codes of :func:`label_keys` ``key`` as ``dtype``; ``key`` is consumed."""
    item, judge, label = unpack(key, sizes, dtype)
    return item, judge, label


def sorted_keys_repeat_a_pair(key: np.ndarray, sizes: tuple[int, int, int]) -> bool:
    """Tell whether sorted :func:`label_keys` ``key`` hold one (item, judge) pair twice (adjacent keys, same pair)."""
    for start in range(0, max(len(key) - 1, 0), _CHUNK):
        pair = prefix(key[start:start + _CHUNK + 1], sizes, 1)
        if (pair[1:] == pair[:-1]).any():
            return True
    return False
