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


def brute_force_pair_log2_kappa(c, g, lam=1.0, gamma=1.0):
    """log2(1 + kappa({c, g})) of two rank rows (ranks = positions, ties share one) by enumeration."""
    pos = np.array([c, g], float)
    k = pos.shape[1]
    mean = pos.mean(axis=0)
    kappa = sum(gamma ** np.sqrt(((pos[:, i] - mean[i]) ** 2).mean()) for i in range(k))
    exact = lam == 1 and gamma == 1
    count = k
    for length in range(2, k + 1):
        for seq in itertools.permutations(range(k), length):
            if all(pos[r, seq[a]] < pos[r, seq[a + 1]] for r in range(2) for a in range(length - 1)):
                count += 1
                kappa += lam ** (mean[seq[-1]] - mean[seq[0]])
    return float(np.log2(1 + count)) if exact else float(np.log2(1 + kappa))


def loop_consensus_score(gold, candidates, lam=1.0, gamma=1.0):
    """The consensus scorer's score as first written: one consensus_measure per (candidate, gold)."""
    from manyjudges.consensus.measure import consensus_measure, log2_kappa_plus_one

    out = []
    for row in np.atleast_2d(candidates):
        own = dict(enumerate(row))
        base = log2_kappa_plus_one(consensus_measure([], lam, gamma, by_length=False, positions=[own]))
        terms = [log2_kappa_plus_one(consensus_measure([], lam, gamma, by_length=False,
                                                       positions=[own, dict(enumerate(g))])) / base
                 for g in np.atleast_2d(gold)]
        out.append(float(np.clip(np.mean(terms), 0.0, 1.0)))
    return np.array(out)


def batched_consensus_loo(humans, noise):
    """The consensus scorer's leave-one-out as first written (lambda = gamma = 1): one DAG per
    (candidate, gold ordering) of all n x N pairs, counted by the DP over lengths."""
    from manyjudges.core.counting import common_precedence, count_paths_by_length
    from manyjudges.core.ranks import precedence_matrices, reverse_ranks

    n = len(humans)
    allg = humans if noise is None or len(noise) == 0 else np.vstack([humans, noise])
    big_n = len(allg)
    prec = precedence_matrices(np.vstack([allg, reverse_ranks(humans)]))
    candidates = np.stack([np.arange(n), big_n + np.arange(n)], axis=1).repeat(big_n)
    golds = np.tile(np.arange(big_n), 2 * n)
    masks = np.zeros((len(candidates), big_n + n), dtype=bool)
    masks[np.arange(len(candidates)), candidates] = True
    masks[np.arange(len(candidates)), golds] = True
    totals = count_paths_by_length(common_precedence(prec, masks)).sum(axis=1).astype(float) - 1.0
    logs = np.log2(1.0 + totals).reshape(n, 2, big_n)
    own = count_paths_by_length(prec[:n]).sum(axis=1).astype(float) - 1.0
    base = np.log2(1.0 + own)
    others = ~np.eye(n, big_n, dtype=bool)
    scores = np.clip((logs * others[:, None, :]).sum(axis=2) / (big_n - 1) / base[:, None], 0.0, 1.0)
    return scores[:, 0] - scores[:, 1]
