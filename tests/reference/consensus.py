"""Consensus references: brute-force enumeration of the common subsequences (docs/methods.md section 4.1)."""
from __future__ import annotations

import itertools

import numpy as np


def brute_force_consensus(rankings, lam=1.0, gamma=1.0, multiplicities=None):
    """Enumerate every sequence of distinct common items; weight it literally (docs/methods.md section 4.1)."""
    firsts = []
    for r in rankings:
        pos = {}
        for i, x in enumerate(r):
            pos.setdefault(x, i)
        firsts.append(pos)
    w = np.ones(len(rankings)) if multiplicities is None else np.asarray(multiplicities, float)
    w = w / w.sum()
    common = [x for x in dict.fromkeys(rankings[0]) if all(x in p for p in firsts)]
    by_length = {}
    for length in range(1, len(common) + 1):
        total = 0.0
        for seq in itertools.permutations(common, length):
            if not all(p[seq[a]] < p[seq[a + 1]] for p in firsts for a in range(length - 1)):
                continue
            if length == 1:
                ps = np.array([p[seq[0]] for p in firsts], float)
                mean = w @ ps
                total += gamma ** np.sqrt(w @ (ps - mean) ** 2)
            else:
                weight = 1.0
                for a in range(length - 1):
                    gap = w @ np.array([p[seq[a + 1]] - p[seq[a]] for p in firsts], float)
                    weight *= lam**gap
                total += weight
        if total > 0:
            by_length[length] = total
    return by_length
