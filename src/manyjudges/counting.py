"""Counting common subsequences of orderings through their precedence DAG.

The shared core of FreSPA (METHODS.md s.1) and the consensus measure (s.2).
A sequence of distinct items is contained in every ordering of a set iff it is a
path of the set's common-precedence DAG G (edge a -> b iff a is strictly before b
in every ordering; tied items get no edge). So the number of common subsequences
of length L is the number of L-vertex paths of G:

    c_1 = 1' 1 = k,   c_L = 1' G^(L-1) 1,

computed by a DP over lengths, ``v_L = v_{L-1} G`` (vectorised over a batch of DAGs),
never by enumerating subsequences.

Exactness: a node ends at most 2^(k-1) paths, so float64 arithmetic is exact for
k <= 53; beyond that the DP runs on Python integers (object arrays).
"""
from __future__ import annotations

import numpy as np

FLOAT_EXACT_MAX_ITEMS = 53


def common_precedence(precedence: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Common-precedence DAGs of several subsets of orderings.

    Parameters
    ----------
    precedence : (n, k, k) bool, ``precedence[o, a, b]`` = a strictly before b in o.
    subsets : (B, n) bool, one row per subset of orderings (non-empty).

    Returns
    -------
    (B, k, k) bool: edge a -> b iff a precedes b in every ordering of the subset.
    """
    n, k, _ = precedence.shape
    masks = np.asarray(subsets, dtype=np.float32)
    sizes = masks.sum(axis=1)
    if np.any(sizes == 0):
        raise ValueError("every subset must hold at least one ordering")
    # how many orderings of the subset put a before b; an edge iff all of them (exact in float32 for n < 2^24)
    counts = masks @ precedence.reshape(n, k * k).astype(np.float32)
    return (counts == sizes[:, None]).reshape(-1, k, k)


def count_paths_by_length(dags: np.ndarray, max_length: int | None = None) -> np.ndarray:
    """Number of paths with L vertices in each DAG, L = 0..max_length.

    ``out[b, 0] = 1`` (the empty sequence), ``out[b, 1] = k``, ``out[b, L] = 1' G^(L-1) 1``.
    Exact: returns int64 when every count fits, else an object array of Python ints.
    The DP drops a DAG from the batch as soon as it has no longer paths.
    """
    dags = np.asarray(dags, dtype=bool)
    if dags.ndim == 2:
        dags = dags[None]
    batch, k, _ = dags.shape
    max_length = k if max_length is None else min(int(max_length), k)
    exact_float = k <= FLOAT_EXACT_MAX_ITEMS
    out = np.zeros((batch, max_length + 1), dtype=np.int64 if k <= 62 else object)
    out[:, 0] = 1
    if max_length >= 1:
        out[:, 1] = k
    if max_length < 2 or batch == 0:
        return out
    weights = dags.astype(float) if exact_float else dags.astype(object)
    vec = np.ones((batch, k), dtype=float if exact_float else object)
    active = np.arange(batch)
    for length in range(2, max_length + 1):
        vec = np.matmul(vec[:, None, :], weights)[:, 0, :]
        totals = vec.sum(axis=1)
        if exact_float:
            out[active, length] = np.rint(totals).astype(np.int64)
        else:
            out[active, length] = totals
        alive = totals > 0
        if not np.all(alive):
            active, vec, weights = active[alive], vec[alive], weights[alive]
            if active.size == 0:
                break
    return out


def count_paths_total(dag: np.ndarray, order: np.ndarray | None = None) -> int:
    """Total number of paths (non-empty common subsequences) of one DAG, exactly.

    One forward substitution over a topological order: z_j = 1 + sum_{i<j} G_ij z_i,
    total = sum_j z_j (Python integers, so no overflow for any k).
    """
    dag = np.asarray(dag, dtype=bool)
    k = dag.shape[0]
    if order is None:
        order = np.argsort(-dag.sum(axis=1) + dag.sum(axis=0), kind="stable")
    g = dag[np.ix_(order, order)]
    if np.any(np.tril(g)):
        raise ValueError("order is not a topological order of the DAG")
    z: list[int] = []
    for j in range(k):
        preds = np.flatnonzero(g[:j, j])
        z.append(1 + sum(z[i] for i in preds))
    return int(sum(z))
