"""Work on a large array in blocks of rows, the blocks side by side on every core.

numpy's element-wise operations, gathers and scatters, scipy's sparse products and Arrow's kernels let
go of Python's lock while they run, and on arrays larger than the caches their time is spent waiting on
memory: blocks run in threads, one a core, wait side by side. Each block's work is its own (it writes
only its own rows), so the result is the same, bit for bit, as one pass over the whole array.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

#: rows a block (a few MB of temporaries for an int64 array)
_BLOCK = 1 << 20


def _on_blocks(work: Callable[[slice], None], n: int, size: int = _BLOCK) -> None:
    """Run ``work(rows)`` for the blocks ``rows`` of ``size`` rows of ``0 .. n - 1``, one thread a core.

    A single block runs in the calling thread.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.arange(10)
    >>> def double(rows):
    ...     values[rows] *= 2
    >>> on_blocks(double, len(values), size=4)
    >>> values.tolist()
    [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]
    """
    blocks = [slice(start, min(start + size, n)) for start in range(0, n, size)]
    if len(blocks) <= 1:
        for rows in blocks:
            work(rows)
        return
    with ThreadPoolExecutor(max_workers=min(len(blocks), os.cpu_count() or 1)) as pool:
        list(pool.map(work, blocks))
