"""Keep freed memory in the process (glibc).

The fitting loops allocate arrays of a few MB at every objective evaluation, and glibc's defaults hand
them back to the kernel and fault them in again each time (measured: M5 on sim_medline spent as long in
the kernel as in numpy).

The pipeline sets the same through ``MALLOC_*`` environment variables (``Snakefile``); the
``manyjudges`` command calls :func:`keep_freed_memory` when it starts. A no-op where the C
library is not glibc.
"""
from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ["keep_freed_memory"]

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
#: arrays up to 32 MB from the heap, not fresh mappings; the heap trimmed only past 1 GB free
SETTINGS = ((M_MMAP_THRESHOLD, 32 * 2**20), (M_TRIM_THRESHOLD, 2**30), (M_TOP_PAD, 256 * 2**20))


def keep_freed_memory() -> bool:
    """Set glibc's malloc thresholds (mallopt) so freed arrays stay in the process; True if set."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return all(mallopt(param, value) == 1 for param, value in SETTINGS)
