"""One int64 key a label: the (item, judge, label) codes in one number, sorted once, read back.

A label's key is (item W + judge) K + label for W judges and K classes: keys order as the codes
do, (item, judge, label) lexicographically, and a key holds all three codes. Sorting the keys
puts labels in the order every fit runs on (:func:`~manyjudges.core.coded_labels.canonical_order`),
and adjacent sorted keys of one (item, judge) pair are a repeated pair. Plain numpy, in place where
it can be: a label costs 8 bytes while it is a key.
"""
from __future__ import annotations

import numpy as np

__all__ = ["CHUNK", "keys_to_codes", "label_keys", "sort_keys", "sorted_keys_repeat_a_pair"]

#: labels checked at a time when a check walks the codes in chunks (a few MB of temporaries, whatever the size)
CHUNK = 1 << 20


def label_keys(item: np.ndarray, judge: np.ndarray, label: np.ndarray, n_judges: int, n_classes: int
               ) -> np.ndarray:
    """Return one int64 key a label, (item W + judge) K + label, ordered as (item, judge, label) codes.

    W is ``n_judges`` and K ``n_classes``; the key holds all three codes (:func:`keys_to_codes` reads them back).
    """
    key = item.astype(np.int64)
    key *= n_judges
    key += judge
    key *= n_classes
    key += label
    return key


def sort_keys(key: np.ndarray) -> None:
    """Sort ``key`` in place.

    A stable sort when it has few descents (long sorted runs, which timsort merges in about one pass), else
    numpy's quicksort (equal keys are equal labels, so stability does not matter).
    """
    descents = np.count_nonzero(key[1:] < key[:-1]) if len(key) > 1 else 0
    if descents:
        key.sort(kind="stable" if descents < len(key) // 16 else "quicksort")


def keys_to_codes(key: np.ndarray, n_judges: int, n_classes: int, dtype: type[np.signedinteger]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the (item, judge, label) codes of :func:`label_keys` ``key`` as ``dtype``; ``key`` is consumed."""
    label = (key % n_classes).astype(dtype)
    key //= n_classes
    judge = (key % n_judges).astype(dtype)
    key //= n_judges
    return key.astype(dtype), judge, label


def sorted_keys_repeat_a_pair(key: np.ndarray, n_classes: int) -> bool:
    """Tell whether sorted :func:`label_keys` ``key`` hold one (item, judge) pair twice (adjacent keys, same pair)."""
    for start in range(0, max(len(key) - 1, 0), CHUNK):
        pair = key[start:start + CHUNK + 1] // n_classes
        if (pair[1:] == pair[:-1]).any():
            return True
    return False
