"""Seeded random generators: one per job, from the config seed and the job's keys."""
from __future__ import annotations

import zlib

import numpy as np


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """Numpy Generator from SeedSequence([seed, crc32(key) for each key]).

    The same seed and keys give the same stream in any process and on any machine
    (crc32, unlike Python's hash, is not salted per process).
    """
    entropy = [int(seed)] + [zlib.crc32(str(key).encode("utf-8")) for key in keys]
    return np.random.default_rng(np.random.SeedSequence(entropy))
