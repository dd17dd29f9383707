"""Rank-matrix helpers shared by every ordering method.

An ordering of k items is stored as a row of ranks: ``ranks[o, x]`` is the rank of
item x in ordering o, 1 = best, tied items share the lowest ("1224") rank.
A panel is an ``(n, k)`` float array, items in a fixed column order.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


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
    """Fractional (average) ranks of each row, as scipy.stats.rankdata(method='average')."""
    return rankdata(as_rank_matrix(ranks), method="average", axis=1)


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
