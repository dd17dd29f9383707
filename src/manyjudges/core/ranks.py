"""Rank helpers shared by every family: rank matrices, rank-sum order, pairwise-majority sort.

An ordering of k items is stored as a row of ranks: ``ranks[o, x]`` is the rank of
item x in ordering o, 1 = best, tied items share the lowest ("1224") rank.
A panel is an ``(n, k)`` float array, items in a fixed column order.
"""
from __future__ import annotations

import numpy as np


def as_rank_matrix(ranks: np.ndarray) -> np.ndarray:
    """Return ``ranks`` as a 2-D float array (a single ordering becomes one row)."""
    arr = np.asarray(ranks, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"expected an (orderings, items) rank matrix, got shape {arr.shape}")
    return arr


def reverse_ranks(ranks: np.ndarray) -> np.ndarray:
    """Reverse orderings: rank'(x) = 1 + #{y : rank(y) > rank(x)}; tie groups stay tied."""
    r = as_rank_matrix(ranks)
    worse = (r[:, None, :] > r[:, :, None]).sum(axis=2)
    return 1.0 + worse


def average_ranks(ranks: np.ndarray) -> np.ndarray:
    """Fractional (average) ranks of each row, as scipy.stats.rankdata(method='average', axis=1).

    After a stable sort of a row, the values at sorted positions first..last (0-based) are
    equal and each gets rank (first + last) / 2 + 1. A row holding NaN is all NaN. Plain
    numpy, so that importing this module (every job does) does not import scipy.stats.
    """
    a = as_rank_matrix(ranks)
    n, k = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    ordered = np.take_along_axis(a, order, axis=1)
    starts = np.ones((n, k), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    pos = np.arange(k)
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = k - 1 - np.maximum.accumulate(np.where(ends, k - 1 - pos, 0)[:, ::-1], axis=1)[:, ::-1]
    out = np.empty_like(a)
    np.put_along_axis(out, order, (first + last) / 2.0 + 1.0, axis=1)
    out[np.isnan(a).any(axis=1)] = np.nan
    return out


def ranks_from_orders(orders: np.ndarray) -> np.ndarray:
    """Convert strict orders (row = item indices, best first) into rank rows."""
    orders = np.asarray(orders, dtype=int)
    n, k = orders.shape
    ranks = np.empty((n, k), dtype=float)
    ranks[np.arange(n)[:, None], orders] = np.arange(1, k + 1, dtype=float)[None, :]
    return ranks


def precedence_matrices(ranks: np.ndarray) -> np.ndarray:
    """Boolean ``(n, k, k)`` array: ``P[o, a, b]`` is True iff a is strictly before b in o."""
    r = as_rank_matrix(ranks)
    return r[:, :, None] < r[:, None, :]


def rank_sum_order(ranks: np.ndarray) -> np.ndarray:
    """Return column indices by the sum of their ranks over the rows (ascending).

    Ties by the best single rank, then by column index: the rank-sum consensus of RBA (Kim, Zhai, Han
    2010) and the rank-sum aggregator of lists (an absent item given rank L + 1 by its caller).
    """
    ranks = as_rank_matrix(ranks)
    return np.lexsort((np.arange(ranks.shape[1]), ranks.min(axis=0), ranks.sum(axis=0)))


def majority_merge_sort(items: list[int], beats: list[list[bool]]) -> list[int]:
    """Top-down merge sort with the comparator "b goes before a iff ``beats[b][a]``".

    The halves are ``items[:n // 2]`` and ``items[n // 2:]``; when merging, the head of the
    right half is taken only if it strictly beats the head of the left half, so ties keep the
    input order (stable). Written out rather than ``sorted(key=cmp_to_key(...))`` because the
    majority relation may be cyclic, and then the result depends on the algorithm: this one
    is fixed and does not change with the Python version. Every two neighbours of the result
    agree with the relation (a Hamiltonian path of the Condorcet graph, as with the paper's
    QuickSort): a neighbour pair is either a neighbour pair of a sorted half or a pair just
    compared by the merge.
    """
    if len(items) <= 1:
        return list(items)
    mid = len(items) // 2
    left = majority_merge_sort(items[:mid], beats)
    right = majority_merge_sort(items[mid:], beats)
    out: list[int] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if beats[right[j]][left[i]]:
            out.append(right[j])
            j += 1
        else:
            out.append(left[i])
            i += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def distinct_rows(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the distinct orderings of a rank matrix with their multiplicities.

    Returns ``(unique, inverse, counts)``: ``unique[inverse]`` is ``ranks`` row for row and
    ``counts[u]`` (float) is how often row ``u`` of ``unique`` occurs. A panel of many judges
    over few items (4 items have 75 weak orders) shrinks to a few distinct rows.
    """
    r = as_rank_matrix(ranks)
    order = np.lexsort(r.T[::-1])  # rows in lexicographic order (np.unique's, without its structured view)
    rows = r[order]
    first = np.r_[True, np.any(rows[1:] != rows[:-1], axis=1)] if len(r) else np.zeros(0, dtype=bool)
    group = np.cumsum(first) - 1
    inverse = np.empty(len(r), dtype=np.int64)
    inverse[order] = group
    return rows[first], inverse, np.bincount(group, minlength=int(first.sum())).astype(float)
