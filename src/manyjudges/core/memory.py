"""Keep freed memory in the process (glibc).

The fitting loops allocate arrays of a few MB at every objective evaluation, and glibc's defaults hand
them back to the kernel and fault them in again each time (measured: M5 on sim_medline spent as long in
the kernel as in numpy).

The ``manyjudges`` command calls :func:`keep_freed_memory` when it starts. A no-op where the C
library is not glibc.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

import pyarrow as pa

__all__ = ["give_back_freed_memory", "keep_freed_memory"]

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
#: arrays up to 32 MB from the heap, not fresh mappings; the heap trimmed only past 1 GB free
SETTINGS = ((M_MMAP_THRESHOLD, 32 * 2**20), (M_TRIM_THRESHOLD, 2**30), (M_TOP_PAD, 256 * 2**20))


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """Return the C library when it is glibc (it has ``mallopt`` and ``malloc_trim``), else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 (glibc's: looked up to fail here, not later)
    except (OSError, AttributeError):
        return None
    return libc


def keep_freed_memory() -> bool:
    """Set glibc's malloc thresholds (mallopt) so freed arrays stay in the process; True if set."""
    libc = _libc()
    return libc is not None and all(libc.mallopt(param, value) == 1 for param, value in SETTINGS)


def give_back_freed_memory() -> bool:
    """Give the freed memory that Arrow's pool and glibc keep back to the system; True if glibc gave some.

    Arrow's ``release_unused``, then glibc's ``malloc_trim(0)``. For the end of a phase that freed much (a
    large file read): what they keep for the next allocations would otherwise count in the process's peak
    beside the next phase's arrays.
    """
    pa.default_memory_pool().release_unused()
    libc = _libc()
    return libc is not None and bool(libc.malloc_trim(0))
