"""Counting common subsequences of orderings through their precedence DAG.

The shared core of FreSPA and the consensus measure (docs/methods.md, "Ordered lists" and
consensus sections).
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
    precedence : ndarray, shape (n, k, k)
        Boolean; ``precedence[o, a, b]`` = a strictly before b in o.
    subsets : ndarray, shape (B, n)
        Boolean, one row per subset of orderings (non-empty).

    Returns
    -------
    ndarray, shape (B, k, k)
        Boolean: edge a -> b iff a precedes b in every ordering of the subset.
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
    """Count the paths with L vertices in each DAG, L = 0..max_length.

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


def weighted_paths_by_length(weights: np.ndarray, max_length: int | None = None) -> np.ndarray:
    """Weighted path sums 1' G^(L-1) 1 for L = 1..max_length of one weighted DAG (float64).

    ``out[L - 1]``; stops at the longest path (later entries are 0). Same DP as
    :func:`count_paths_by_length`, on real edge weights (consensus measure, docs/methods.md, consensus section).
    """
    g = np.asarray(weights, dtype=float)
    k = g.shape[0]
    max_length = k if max_length is None else min(int(max_length), k)
    out = np.zeros(max_length)
    if max_length == 0:
        return out
    vec = np.ones(k)
    out[0] = k
    for length in range(2, max_length + 1):
        vec = vec @ g
        total = vec.sum()
        if total <= 0:
            break
        out[length - 1] = total
    return out


def weighted_paths_total(upper: np.ndarray) -> tuple[float, float]:
    """sum_{L>=1} 1' G^(L-1) 1 for a strictly upper-triangular weighted DAG, and its log.

    One forward substitution, z_j = 1 + sum_{i<j} G_ij z_i, total = sum_j z_j; run in
    log space (log z_j = log(1 + sum_i exp(log G_ij + log z_i))) so that totals beyond
    float64's range (about 2^1024) still give an exact-to-rounding log. Returns
    (total, log_total); total is inf when it overflows.
    """
    g = np.asarray(upper, dtype=float)
    k = g.shape[0]
    if np.any(np.tril(g) != 0):
        raise ValueError("weights must be strictly upper triangular (vertices in a topological order)")
    with np.errstate(divide="ignore"):
        log_g = np.log(g)
    log_z = np.zeros(k)
    for j in range(1, k):
        terms = log_g[:j, j] + log_z[:j]
        top = terms.max()
        if np.isfinite(top):
            log_z[j] = np.logaddexp(0.0, top + np.log(np.exp(terms - top).sum()))
    top = log_z.max() if k else 0.0
    log_total = top + np.log(np.exp(log_z - top).sum()) if k else -np.inf
    with np.errstate(over="ignore"):
        total = float(np.exp(log_total)) if k else 0.0
    return total, float(log_total)


def longest_path_vertices(dag: np.ndarray) -> int:
    """Return the number of vertices on a longest path of a strictly upper-triangular DAG (0 if empty)."""
    dag = np.asarray(dag, dtype=bool)
    k = dag.shape[0]
    if k == 0:
        return 0
    longest = np.ones(k, dtype=int)
    for j in range(1, k):
        preds = dag[:j, j]
        if preds.any():
            longest[j] = 1 + longest[:j][preds].max()
    return int(longest.max())
