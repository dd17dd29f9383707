"""Seeded random generators (one per job, from the config seed and the job's keys), and batched draws."""
from __future__ import annotations

import zlib

import numpy as np

__all__ = ["distinct_draws", "rng_for"]


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """Numpy Generator from SeedSequence([seed, crc32(key) for each key]).

    The same seed and keys give the same stream in any process and on any machine
    (crc32, unlike Python's hash, is not salted per process).
    """
    entropy = [int(seed)] + [zlib.crc32(str(key).encode("utf-8")) for key in keys]
    return np.random.default_rng(np.random.SeedSequence(entropy))


_BATCH_LIMIT = 1 << 22  # largest key matrix (rows x population) drawn at once by distinct_draws


def distinct_draws(rng: np.random.Generator, n_rows: int, population: int, size: int) -> np.ndarray:
    """Return an (n_rows, size) int array, each row a uniform random subset of ``range(population)``.

    Distinct within the row, in random order, ``size <= population``.

    One batched ``argpartition`` of uniform keys when ``n_rows * population`` is at most
    :data:`_BATCH_LIMIT`, else ``rng.choice(..., replace=False)`` row by row (memory).
    """
    if n_rows * population <= _BATCH_LIMIT:
        return np.argpartition(rng.random((n_rows, population)), size - 1, axis=1)[:, :size]
    return np.stack([rng.choice(population, size=size, replace=False) for _ in range(n_rows)])

