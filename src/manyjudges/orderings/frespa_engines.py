"""FreSPA's two older exact engines (Kim, Zhai, Han, ECIR 2010; docs/methods.md, "FreSPA").

``counting``: with C_S(L) = number of common subsequences of length L of the orderings in S
(a path count in their common-precedence DAG, ``manyjudges.core.counting``),

    A_j(L) = sum_{|S| = j} C_S(L) = sum_s N(s, L) binom(s, j)
    N(s, L) = sum_{j >= s} (-1)^(j - s) binom(j, s) A_j(L)      (inclusion-exclusion)

over the subsets with |S| >= the support threshold. ``mining``: every frequent pattern grown
level by level (Apriori; support is anti-monotone). Both fill the same N(s, L) tables as the
default ``classes`` engine (``manyjudges.orderings.frespa``) and are kept, selectable, as its
references.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

from manyjudges.core.counting import common_precedence, count_paths_by_length
from manyjudges.core.ranks import precedence_matrices, reverse_ranks

MAX_SUBSETS = 400_000
MAX_FREQUENT_PATTERNS = 3_000_000


@lru_cache(maxsize=64)
def subsets_of_size_at_least(n: int, threshold: int) -> np.ndarray:
    """Boolean (count, n) matrix: every subset of range(n) with at least ``threshold`` members."""
    count = sum(math.comb(n, j) for j in range(threshold, n + 1))
    if count > MAX_SUBSETS:
        raise ValueError(
            f"FreSPA would need {count} judge subsets (n={n} gold orderings, support >= {threshold}); "
            f"raise min_sup or use fewer gold orderings (limit {MAX_SUBSETS})"
        )
    rows = np.zeros((count, n), dtype=bool)
    r = 0
    for j in range(threshold, n + 1):
        combos = np.array(list(itertools.combinations(range(n), j)), dtype=int).reshape(-1, j)
        rows[np.arange(r, r + len(combos))[:, None], combos] = True
        r += len(combos)
    rows.setflags(write=False)
    return rows


def exact_support_counts(subset_counts: np.ndarray, sizes: np.ndarray, n: int, threshold: int) -> np.ndarray:
    """N(s, L) for s = 0..n (rows below threshold are 0) from per-subset counts C_S(L).

    A_j(L) = sum_{|S|=j} C_S(L);  N(s, L) = sum_{j>=s} (-1)^(j-s) binom(j, s) A_j(L).
    Exact: int64 when every term fits, else Python integers.
    """
    n_len = subset_counts.shape[1]
    biggest = max(int(np.max(subset_counts, initial=0)), 1)
    bound = biggest * max(math.comb(n, j) * math.comb(j, s) for j in range(n + 1) for s in range(j + 1)) * (n + 1)
    dtype = np.int64 if bound < 2**62 and subset_counts.dtype != object else object
    a = np.zeros((n + 1, n_len), dtype=dtype)
    counts = subset_counts.astype(dtype)
    for j in range(threshold, n + 1):
        a[j] = counts[sizes == j].sum(axis=0)
    signs = np.zeros((n + 1, n + 1), dtype=dtype)
    for s_ in range(threshold, n + 1):
        for j in range(s_, n + 1):
            signs[s_, j] = (-1) ** (j - s_) * math.comb(j, s_)
    return signs @ a


def tables_by_counting(gold: np.ndarray, candidates: np.ndarray, threshold: int, max_len: int) -> tuple[np.ndarray,
                                                                                                         np.ndarray]:
    """N(s, L) tables by DAG path counting over judge subsets and inclusion-exclusion.

    G_{S ∪ {O}} = G_S AND P_O, so the subsets' DAGs are built once for all candidates.
    """
    n, k = gold.shape
    c = len(candidates)
    den = np.zeros((n + 1, k + 1))
    num = np.zeros((c, n + 1, k + 1))
    if threshold > n:
        return den, num
    subsets = subsets_of_size_at_least(n, threshold)
    sizes = subsets.sum(axis=1)
    dags = common_precedence(precedence_matrices(gold), subsets)
    cand_prec = precedence_matrices(candidates)
    for block in range(c + 1):
        block_dags = dags if block == 0 else dags & cand_prec[block - 1][None, :, :]
        counts = count_paths_by_length(block_dags, max_len)
        exact = exact_support_counts(counts, sizes, n, threshold)
        table = den if block == 0 else num[block - 1]
        table[threshold:, 2 : max_len + 1] = exact[threshold:, 2:].astype(float)
    return den, num


def grow_patterns(ranks: np.ndarray, support_rows: np.ndarray, threshold: int, max_len: int):
    """Yield (length, patterns (P, L), containment (P, N)) of every pattern with support >= threshold.

    The support is over ``support_rows`` (a 0/1 weight per ordering); the patterns come level by level.
    """
    n_ord, k = ranks.shape
    pats = np.arange(k)[:, None]
    cont = np.ones((k, n_ord), dtype=bool)
    for length in range(2, max_len + 1):
        new_pats, new_cont = [], []
        step = max(1, 2_000_000 // max(1, k * n_ord))
        for start in range(0, len(pats), step):
            p, c = pats[start : start + step], cont[start : start + step]
            last = ranks[:, p[:, -1]].T  # (P, N)
            ext = c[:, None, :] & (ranks.T[None, :, :] > last[:, None, :])  # (P, k, N)
            sup = ext.astype(np.int32) @ support_rows
            keep_p, keep_x = np.nonzero(sup >= threshold)
            if keep_p.size:
                new_pats.append(np.hstack([p[keep_p], keep_x[:, None]]))
                new_cont.append(ext[keep_p, keep_x])
        if not new_pats:
            return
        pats, cont = np.vstack(new_pats), np.vstack(new_cont)
        if len(pats) > MAX_FREQUENT_PATTERNS:
            raise ValueError(
                f"FreSPA: more than {MAX_FREQUENT_PATTERNS} frequent patterns of length {length} "
                f"({k} items, support >= {threshold}); raise min_sup"
            )
        yield length, pats, cont


def tables_by_mining(gold: np.ndarray, candidates: np.ndarray, threshold: int, max_len: int) -> tuple[np.ndarray,
                                                                                                       np.ndarray]:
    """N(s, L) tables by growing every frequent pattern (exact; for few frequent patterns)."""
    n, k = gold.shape
    c = len(candidates)
    den = np.zeros((n + 1, k + 1))
    num = np.zeros((c, n + 1, k + 1))
    ranks = np.vstack([gold, candidates])
    rows = np.r_[np.ones(n, dtype=np.int32), np.zeros(c, dtype=np.int32)]
    for length, _, cont in grow_patterns(ranks, rows, threshold, max_len):
        sup = cont[:, :n].sum(axis=1)
        den[:, length] += np.bincount(sup, minlength=n + 1)
        for j in range(c):
            num[j, :, length] += np.bincount(sup, weights=cont[:, n + j], minlength=n + 1)
    return den, num


def cheaper_engine(gold_size: int, k: int, threshold: int, max_len: int) -> str:
    """Return 'counting' or 'mining', whichever of the two older engines is estimated cheaper (and feasible).

    The default engine is ``classes`` (``manyjudges.orderings.frespa``); this choice, the
    default before it, is kept as the reference the benchmarks compare it with.
    """
    if threshold > gold_size:
        return "counting"
    n_subsets = sum(math.comb(gold_size, j) for j in range(threshold, gold_size + 1))
    cost_counting = n_subsets * k * k * max_len * 3 if n_subsets <= MAX_SUBSETS else math.inf
    bound = sum(math.perm(k, L) for L in range(2, max_len + 1)) if k <= 12 else 2.0**k
    patterns = min(bound, gold_size * 2.0**k / threshold)
    cost_mining = patterns * k * (gold_size + 3)
    return "counting" if cost_counting <= cost_mining else "mining"


def loo_tables_by_counting(humans: np.ndarray, noise: np.ndarray, threshold: int, max_len: int
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the leave-one-out tables (den, num(O_i), num(rev O_i)), each (n, g + 1, k + 1), by counting.

    The counting runs over the judge subsets of each gold set (the other humans + noise) in turn.
    """
    n, k = humans.shape
    g = n - 1 + len(noise)
    den, num, num_rev = (np.zeros((n, g + 1, k + 1)) for _ in range(3))
    reversed_humans = reverse_ranks(humans)
    for i in range(n):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        d, c = tables_by_counting(gold, np.vstack([humans[i], reversed_humans[i]]), threshold, max_len)
        den[i], num[i], num_rev[i] = d, c[0], c[1]
    return den, num, num_rev


def loo_tables_by_mining(humans: np.ndarray, noise: np.ndarray, threshold: int, max_len: int
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the same tables from one growth of every pattern frequent among all orderings.

    A pattern's support without O_i is its support minus [p ⊑ O_i].
    """
    n, k = humans.shape
    g = n - 1 + len(noise)
    den, num, num_rev = (np.zeros((n, g + 1, k + 1)) for _ in range(3))
    # reversed humans ride along with zero support weight: their containment column is p ⊑ rev(O_i)
    ranks = np.vstack([humans, noise, reverse_ranks(humans)])
    rows = np.r_[np.ones(n + len(noise), dtype=np.int32), np.zeros(n, dtype=np.int32)]
    offsets = np.arange(n)[:, None] * (g + 1)
    size = n * (g + 1)
    for length, _, cont in grow_patterns(ranks, rows, threshold, max_len):
        held = cont[:, :n].T  # (n, P): pattern in O_i
        rev = cont[:, n + len(noise) :].T  # (n, P): pattern in rev(O_i)
        sup = cont[:, : n + len(noise)].sum(axis=1)[None, :] - held  # support among the others
        ok = sup >= threshold
        idx = (offsets + np.minimum(sup, g)).ravel()
        den[:, :, length] += np.bincount(idx, weights=ok.ravel(), minlength=size).reshape(n, g + 1)
        num[:, :, length] += np.bincount(idx, weights=(ok & held).ravel(), minlength=size).reshape(n, g + 1)
        num_rev[:, :, length] += np.bincount(idx, weights=(ok & rev).ravel(), minlength=size).reshape(n, g + 1)
    return den, num, num_rev
