"""Independent, deliberately naive reference implementations used only by the tests."""
from __future__ import annotations

import itertools

import numpy as np


def contains(ranks: np.ndarray, pattern: tuple[int, ...]) -> bool:
    """Pattern items strictly increasing in rank (ties never count as in order)."""
    return all(ranks[pattern[a]] < ranks[pattern[a + 1]] for a in range(len(pattern) - 1))


def brute_force_frespa(gold: np.ndarray, candidates: np.ndarray, w_len=1.0, w_sup=1.0, min_sup=0.75, min_len=2, max_len=None, support_base=None) -> np.ndarray:
    """Enumerate every sequence of distinct items and apply the paper's formula literally.

    ``support_base``: the n in sup >= minSup * n (default: the number of gold orderings).
    """
    n, k = gold.shape
    max_len = k if max_len is None else min(max_len, k)
    base = n if support_base is None else support_base
    threshold = max(1, int(np.ceil(min_sup * base - 1e-9)))
    num = np.zeros(len(candidates))
    den = 0.0
    for length in range(min_len, max_len + 1):
        for pattern in itertools.permutations(range(k), length):
            sup = sum(contains(g, pattern) for g in gold)
            if sup < threshold:
                continue
            w = (1 + w_len * (length - 1)) * (1 + w_sup * (sup - 1))
            den += w
            for j, c in enumerate(candidates):
                if contains(c, pattern):
                    num[j] += w
    return num / den if den else np.zeros(len(candidates))


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
