"""Shared-core references: deliberately naive rank helpers and brute-force subsequence counting,
plus the random rank panels the orderings and core tests draw.
"""
from __future__ import annotations

import itertools

import numpy as np


def contains(ranks: np.ndarray, pattern: tuple[int, ...]) -> bool:
    """Pattern items strictly increasing in rank (ties never count as in order)."""
    return all(ranks[pattern[a]] < ranks[pattern[a + 1]] for a in range(len(pattern) - 1))


def brute_force_common_subsequences(orderings: np.ndarray) -> dict[int, int]:
    """{length: number of sequences of distinct items contained in every ordering}."""
    k = orderings.shape[1]
    out = {}
    for length in range(1, k + 1):
        out[length] = sum(all(contains(o, p) for o in orderings) for p in itertools.permutations(range(k), length))
    return out


def reverse_by_loop(ranks: np.ndarray) -> np.ndarray:
    return np.array([1 + sum(r2 > r for r2 in ranks) for r in ranks], dtype=float)


def random_panel(rng: np.random.Generator, n: int, k: int, ties: bool = False, agreement: float = 0.0) -> np.ndarray:
    """n rank rows over k items; with ties, random tie groups; agreement pulls toward one order."""
    rows = []
    base = rng.permutation(k)
    for _ in range(n):
        noise = rng.normal(size=k) * (1 - agreement) * k
        scores = np.argsort(base).astype(float) + noise
        if ties:
            scores = np.round(scores / 2.0)
        # competition ranks: 1 + number of strictly better items
        rows.append(np.array([1 + np.sum(scores < s) for s in scores], dtype=float))
    return np.array(rows)
