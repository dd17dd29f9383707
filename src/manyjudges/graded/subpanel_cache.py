"""Results computed on a sub-panel, kept until the same sub-panel comes round again.

With one judge per fold (the paper's protocol when no ``outer_folds`` / ``inner_folds`` are
set), the inner fold of judge g inside the cross-induction fold of judge i trains on the panel
without judges {i, g}, and so does the inner fold of i inside the fold of g: the same entries
in the same order (:meth:`GradedPanel.select` keeps the order), so the same deterministic fit,
bit for bit. The first of the two computes and stores; the second takes the stored value (and
drops it), so each such fit is computed once instead of twice. Values never taken (folds of
several judges, or a search that went elsewhere) are dropped oldest first beyond ``max_bytes``.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np

from manyjudges.graded.panel import GradedPanel

T = TypeVar("T")



def _panel_digest(panel: GradedPanel) -> bytes:
    """Return a 128-bit digest of the panel's entries (in order) and index spaces."""
    h = hashlib.blake2b(digest_size=16)
    h.update(np.asarray([panel.n_items, panel.n_judges, panel.n_classes, panel.n_entries], dtype=np.int64).tobytes())
    for values in (panel.item, panel.judge, panel.label):
        h.update(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return h.digest()


def _nbytes(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    return 64


class _SubpanelCache:
    """Take-once store of results keyed by (panel digest, extra key).

    ``get(panel, extra, compute)`` returns the stored value of an equal sub-panel with an equal
    ``extra`` key if there is one (removing it), else ``compute()``, storing it for the next
    caller. Callers must not modify a returned value in place (the other fold gets the same object).
    """

    def __init__(self, max_bytes: int = 256 * 2**20):
        self.max_bytes = int(max_bytes)
        self._values: dict[tuple[bytes, Hashable], tuple[Any, int]] = {}
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, panel: GradedPanel | bytes, extra: Hashable, compute: Callable[[], T]) -> T:
        """Take the stored value of an equal sub-panel and ``extra`` key, else ``compute()`` and store it.

        ``panel`` may be given as its :func:`_panel_digest`. A value larger than ``max_bytes`` is not stored;
        the oldest values are dropped to stay within it.
        """
        key = (panel if isinstance(panel, bytes) else _panel_digest(panel), extra)
        stored = self._values.pop(key, None)
        if stored is not None:
            self._bytes -= stored[1]
            self.hits += 1
            return stored[0]
        self.misses += 1
        value = compute()
        size = _nbytes(value)
        if size <= self.max_bytes:
            self._values[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:  # oldest first
                self._bytes -= self._values.pop(next(iter(self._values)))[1]
        return value

    def clear(self) -> None:
        """Drop every stored value."""
        self._values.clear()
        self._bytes = 0
