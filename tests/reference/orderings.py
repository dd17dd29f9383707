"""Orderings references: the paper's FreSPA formula by brute-force enumeration, and loop
versions of the correlation scorers (AC, WCA, RBA)."""
from __future__ import annotations

import itertools

import numpy as np
from scipy.stats import kendalltau, rankdata, spearmanr

from .core import contains


def brute_force_frespa(gold: np.ndarray, candidates: np.ndarray, w_len=1.0, w_sup=1.0, min_sup=0.75, min_len=2,
                       max_len=None, support_base=None) -> np.ndarray:
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


def corr(kind, a, b):
    f = kendalltau if kind == "kendall" else spearmanr
    return (f(a, b).statistic + 1) / 2


def loop_ac(kind, gold, cand):
    return np.mean([corr(kind, cand, g) for g in gold])


def loop_wca(kind, gold, cand):
    m = len(gold)
    w = np.array([np.mean([corr(kind, gold[i], gold[j]) for j in range(m) if j != i]) for i in range(m)])
    return sum(w[i] * corr(kind, cand, gold[i]) for i in range(m)) / w.sum()


def loop_rba(kind, gold, cand):
    k = gold.shape[1]
    avg = np.array([rankdata(g) for g in gold])  # average ranks
    sums = avg.sum(axis=0)
    best = avg.min(axis=0)
    order = sorted(range(k), key=lambda x: (sums[x], best[x], x))
    consensus = np.empty(k)
    for pos, x in enumerate(order):
        consensus[x] = pos + 1
    return corr(kind, cand, consensus)


def matrix_ac_loo(kind, humans, noise):
    """AC's leave-one-out as first written: the (n, N) correlation matrix, row sums minus the diagonal."""
    from manyjudges.core.correlation import correlation_matrix

    n = len(humans)
    allg = np.vstack([humans, noise]) if len(noise) else humans
    corr = correlation_matrix(humans, allg, kind)
    score = (corr.sum(axis=1) - np.diag(corr[:, :n])) / (corr.shape[1] - 1)
    return 2.0 * score - 1.0


def matrix_wca_loo(kind, humans, noise):
    """WCA's leave-one-out as first written: the (N, N) correlation matrix, one weight vector per judge."""
    from manyjudges.core.correlation import correlation_matrix

    n = len(humans)
    allg = np.vstack([humans, noise]) if len(noise) else humans
    big_n = len(allg)
    corr = correlation_matrix(allg, None, kind)
    row_sums = corr.sum(axis=1) - np.diag(corr)
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(big_n) != i
        if big_n - 1 < 2:
            w = np.ones(big_n - 1)
        else:
            w = (row_sums[keep] - corr[keep, i]) / (big_n - 2)
            if w.sum() <= 0:
                w = np.ones(big_n - 1)
        out[i] = 2.0 * (corr[i, keep] @ w / w.sum()) - 1.0
    return out
