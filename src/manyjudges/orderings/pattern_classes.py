"""Support tables of sequential patterns, counted by classes of patterns (FreSPA's ``classes`` engine).

A pattern p = (x_1, ..., x_L) of distinct items is contained in an ordering o iff each item
is strictly before the next one in o, so its *containment set*, the set of orderings that
contain it, is an intersection over consecutive pairs:

    T(p) = E(x_1, x_2) ∩ ... ∩ E(x_{L-1}, x_L),   E(x, y) = {o : x strictly before y in o}.

Extending p by an item y gives T(p + y) = T(p) ∩ E(x_L, y): it depends on p only through
its last item and its containment set. All patterns of length L that share (last item x,
containment set T) therefore form one *class*, stored once with its number of patterns
c_L(x, T), and

    c_{L+1}(y, T') = sum over classes (x, T) with T ∩ E(x, y) = T' of c_L(x, T).

With w(o) >= 0 the support weight of ordering o (its multiplicity among the gold orderings,
0 for a candidate that only rides along), sup(T) = sum_{o in T} w(o), and

    N(s, L)     = sum_{x, T : sup(T) = s} c_L(x, T)           (patterns of length L, support s)
    N_o(s, L)   = sum_{x, T : sup(T) = s, o in T} c_L(x, T)   (the same, contained in o).

Support never grows when a pattern is extended, so classes below the threshold t are dropped
as they appear (as in Apriori). No pattern is ever listed: judges who agree share up to 2^k
patterns, which fall into at most k classes per containment set. Containment sets are bit
sets (one bit per distinct ordering) in 64-bit words; a class is grouped with its equals by
one sort per length.

Without a threshold, sums of the support need no classes: a pattern is counted once per
ordering that contains it, so sum_p sup(p) [p ⊑ c, |p| = L] = sum_o w(o) C_{c,o}(L), with
C_{c,o}(L) the patterns common to c and o (paths of the DAG P_c AND P_o) and
C_{o,o}(L) = e_L(tie-group sizes of o) (:func:`own_pattern_counts`, :func:`common_pattern_counts`).
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.counting import count_paths_by_length

MAX_CLASSES = 5_000_000
CHUNK_ELEMENTS = 4_000_000
FLOAT_EXACT = 2**53

_POPCOUNT_BYTE = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


def dense_ranks(ranks: np.ndarray) -> np.ndarray:
    """Each row's ranks as 0, 1, 2, ... in order (ties share one value): the same ordering, one spelling."""
    r = np.asarray(ranks, dtype=float)
    if r.shape[1] == 0:
        return r.astype(np.int64)
    order = np.argsort(r, axis=1, kind="stable")
    sorted_r = np.take_along_axis(r, order, axis=1)
    steps = np.concatenate([np.zeros((len(r), 1), dtype=np.int64), (np.diff(sorted_r, axis=1) > 0).astype(np.int64)],
                           axis=1)
    out = np.empty(r.shape, dtype=np.int64)
    np.put_along_axis(out, order, np.cumsum(steps, axis=1), axis=1)
    return out


def unique_orderings(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct orderings (B, k) as dense ranks, index of each input row among them (N,))."""
    dense = dense_ranks(ranks)
    if len(dense) == 0:
        return dense, np.zeros(0, dtype=np.int64)
    columns, inverse = np.unique(dense, axis=0, return_inverse=True)
    return columns, inverse.reshape(-1)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Count the set bits of each uint64 (int64 result)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.int64)
    as_bytes = np.ascontiguousarray(words).view(np.uint8).reshape(words.shape + (8,))
    return _POPCOUNT_BYTE[as_bytes].sum(axis=-1)


def _bits_to_words(bits: np.ndarray) -> np.ndarray:
    """Pack a boolean (..., B) array into uint64 words (..., W): bit b of word w is column 64 w + b."""
    n_bits = bits.shape[-1]
    n_words = max(1, -(-n_bits // 64))
    padded = np.zeros(bits.shape[:-1] + (n_words * 64,), dtype=np.uint64)
    padded[..., :n_bits] = bits
    shifts = np.arange(64, dtype=np.uint64)
    return (padded.reshape(bits.shape[:-1] + (n_words, 64)) << shifts).sum(axis=-1, dtype=np.uint64)


def precedence_words(columns: np.ndarray) -> np.ndarray:
    """E (k, k, W) uint64: bit o of E[x, y] is set iff ordering o puts x strictly before y."""
    prec = columns[:, :, None] < columns[:, None, :]  # (B, k, k)
    return _bits_to_words(np.moveaxis(prec, 0, -1))


def weight_planes(weights: np.ndarray) -> np.ndarray:
    """Bit planes of the support weights, (P, W) uint64: plane j holds the orderings whose weight has bit j.

    sup(T) = sum_j 2^j popcount(T AND plane_j), so a weighted support costs P popcounts.
    """
    w = np.asarray(weights, dtype=np.int64)
    n_planes = max(1, int(w.max(initial=0)).bit_length())
    bits = ((w[None, :] >> np.arange(n_planes)[:, None]) & 1).astype(bool)
    return _bits_to_words(bits)


def class_support(sets: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """sup(T) = sum_{o in T} w(o) for containment sets (..., W), from the weight planes (P, W)."""
    if sets.shape[-1] == 1:  # one word: no sum over words
        flat, flat_planes = sets[..., 0], planes[:, 0]
        out = _popcount(flat & flat_planes[0])
        for j in range(1, len(flat_planes)):
            out += _popcount(flat & flat_planes[j]) << j
        return out
    out = np.zeros(sets.shape[:-1], dtype=np.int64)
    for j, plane in enumerate(planes):
        out += _popcount(sets & plane).sum(axis=-1) << j
    return out


def _count_dtype(n_columns: int, k: int) -> type:
    """int64 when every class count fits (a count is at most B 2^k), else Python integers."""
    return np.int64 if n_columns * 2.0**k < 2.0**62 else object


def _sorted_keys(key: np.ndarray, key_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted keys, order) for uint64 keys below 2^key_bits.

    When the index fits beside the key in 64 bits the values are sorted with the index
    packed in the low bits (a plain sort, faster than argsort); else argsort.
    """
    idx_bits = max(1, (len(key) - 1).bit_length())
    if key_bits + idx_bits > 64:
        order = np.argsort(key)
        return key[order], order
    packed = np.sort((key << np.uint64(idx_bits)) | np.arange(len(key), dtype=np.uint64))
    return packed >> np.uint64(idx_bits), (packed & np.uint64((1 << idx_bits) - 1)).astype(np.int64)


def _group_classes(sets: np.ndarray, last: np.ndarray, counts: np.ndarray, support: np.ndarray, item_bits: int,
                   key_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge equal (last item, containment set) pairs: (sets, last, summed counts, support).

    ``key_bits`` > 0: the column bits and ``item_bits`` item bits fit in one 64-bit key of
    that many bits; 0: the rows (words, item) are sorted lexicographically.
    """
    if key_bits:
        key = (sets[:, 0] << np.uint64(item_bits)) | last.astype(np.uint64)
        key, order = _sorted_keys(key, key_bits)
        new = np.empty(len(key), dtype=bool)
        new[:1] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
    else:
        n_words = sets.shape[1]
        order = np.lexsort((last,) + tuple(sets[:, w] for w in range(n_words)))
        rows = np.column_stack([sets[order], last[order].astype(np.uint64)])
        new = np.empty(len(rows), dtype=bool)
        new[:1] = True
        np.any(rows[1:] != rows[:-1], axis=1, out=new[1:])
    starts = np.flatnonzero(new)
    first = order[starts]
    return sets[first], last[first], np.add.reduceat(counts[order], starts), support[first]


def _extend(sets: np.ndarray, last: np.ndarray, counts: np.ndarray, edges: np.ndarray, planes: np.ndarray,
            threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every class extended by every item, T' = T AND E[x, y], kept when sup(T') >= threshold (ungrouped)."""
    n_classes, n_words = sets.shape
    k = edges.shape[0]
    step = max(1, CHUNK_ELEMENTS // (k * n_words))
    if n_classes <= step:
        return _extend_block(sets, last, counts, edges, planes, threshold)
    parts = [_extend_block(sets[start : start + step], last[start : start + step], counts[start : start + step], edges,
                           planes, threshold) for start in range(0, n_classes, step)]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))  # type: ignore[return-value]


def _extend_block(sets: np.ndarray, last: np.ndarray, counts: np.ndarray, edges: np.ndarray, planes: np.ndarray,
                  threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_extend` on one block of classes."""
    grown = sets[:, None, :] & edges[last]  # (C, k, W)
    support = class_support(grown, planes)
    keep = np.flatnonzero(support >= threshold)
    cls, item = np.divmod(keep, edges.shape[0])
    return grown.reshape(-1, sets.shape[1])[keep], item, counts[cls], support.reshape(-1)[keep]


def _column_bits(sets: np.ndarray, table_columns: np.ndarray) -> np.ndarray:
    """(C, J) 0/1 uint64: whether each class's containment set holds each wanted column."""
    shifts = (table_columns % 64).astype(np.uint64)
    words = sets[:, :1] if sets.shape[1] == 1 else sets[:, table_columns // 64]
    return (words >> shifts) & np.uint64(1)


def _add_to_tables(den: np.ndarray, per: np.ndarray, length: int, sets: np.ndarray, counts: np.ndarray,
                   support: np.ndarray, table_columns: np.ndarray) -> None:
    """den[s, L] += counts of classes with support s; per[j, s, L] += the same for classes holding column j."""
    n_rows, n_cols = den.shape[0], len(table_columns)
    if counts.dtype != object and counts.sum() < FLOAT_EXACT:
        den[:, length] += np.bincount(support, weights=counts, minlength=n_rows)
        offsets = np.arange(n_cols) * n_rows
        step = max(1, CHUNK_ELEMENTS // max(1, n_cols))
        for start in range(0, len(sets), step):
            block = slice(start, start + step)
            held = _column_bits(sets[block], table_columns) * counts[block, None].astype(float)
            index = support[block, None] + offsets[None, :]
            per[:, :, length] += np.bincount(index.ravel(), weights=held.ravel(),
                                             minlength=n_cols * n_rows).reshape(n_cols, n_rows)
        return
    # beyond 2^53: sum as Python integers, then store as the nearest float
    cls, col = np.nonzero(_column_bits(sets, table_columns))
    d = np.zeros(n_rows, dtype=object)
    np.add.at(d, support, counts.astype(object))
    p = np.zeros(n_cols * n_rows, dtype=object)
    np.add.at(p, col * n_rows + support[cls], counts[cls].astype(object))
    den[:, length] += d.astype(float)
    per[:, :, length] += p.reshape(n_cols, n_rows).astype(float)


def support_class_tables(columns: np.ndarray, weights: np.ndarray, threshold: int, max_len: int,
                         table_columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pattern-count tables over distinct orderings with support weights, by pattern classes.

    Parameters
    ----------
    columns : ndarray, shape (B, k)
        Distinct orderings (ranks; ties allowed).
    weights : ndarray, shape (B,)
        Non-negative integer support weight of each (its multiplicity among the gold orderings;
        0 for an ordering that is only a candidate).
    threshold : int
        t >= 1; only patterns with sup(p) = sum_{o ∋ p} w(o) >= t are counted.
    max_len : int
        Longest pattern length counted (patterns of length 2..max_len).
    table_columns : ndarray, shape (J,)
        Indices of the orderings o whose N_o table is wanted.

    Returns
    -------
    den : ndarray
        (S + 1, k + 1) with den[s, L] = N(s, L), S = sum of the weights; rows s < t are 0.
    per : ndarray
        (J, S + 1, k + 1) with per[j, s, L] = N_{o_j}(s, L); rows s < t are 0. Both tables are
        float64, exact while the counts stay below 2^53.
    """
    columns = np.asarray(columns)
    weights = np.asarray(weights, dtype=np.int64)
    table_columns = np.asarray(table_columns, dtype=np.int64).reshape(-1)
    n_columns, k = columns.shape
    total = int(weights.sum())
    den = np.zeros((total + 1, k + 1))
    per = np.zeros((len(table_columns), total + 1, k + 1))
    max_len = min(int(max_len), k)
    if threshold > total or max_len < 2 or k < 2:
        return den, per
    edges = precedence_words(columns)
    planes = weight_planes(weights)
    item_bits = max(1, (k - 1).bit_length())
    key_bits = n_columns + item_bits if n_columns + item_bits <= 64 else 0
    all_columns = _bits_to_words(np.ones(n_columns, dtype=bool))
    sets = np.repeat(all_columns[None, :], k, axis=0)
    last = np.arange(k)
    counts: np.ndarray = np.ones(k, dtype=_count_dtype(n_columns, k))
    for length in range(2, max_len + 1):
        sets, last, counts, support = _extend(sets, last, counts, edges, planes, threshold)
        if len(sets) == 0:
            break
        sets, last, counts, support = _group_classes(sets, last, counts, support, item_bits, key_bits)
        if len(sets) > MAX_CLASSES:
            raise ValueError(
                f"FreSPA: more than {MAX_CLASSES} pattern classes of length {length} "
                f"({k} items, support >= {threshold}); raise min_sup"
            )
        _add_to_tables(den, per, length, sets, counts, support, table_columns)
    return den, per


# ---------------------------------------------------------------------------
# Support sums without a threshold: closed forms over single orderings and pairs


def own_pattern_counts(columns: np.ndarray, max_len: int) -> np.ndarray:
    """C_o(L), the number of patterns of length L contained in ordering o, L = 0..max_len.

    A pattern of o takes at most one item from each tie group and keeps o's order of the
    groups, so with g_1..g_r the group sizes C_o(L) = e_L(g_1, ..., g_r), the elementary
    symmetric polynomial (the coefficient of z^L in prod_j (1 + g_j z)); C(k, L) without ties.
    Exact (int64, or Python integers beyond k = 62).
    """
    dense = dense_ranks(columns)
    n_columns, k = dense.shape
    max_len = min(int(max_len), k)
    sizes = np.bincount((np.arange(n_columns)[:, None] * k + dense).ravel(), minlength=n_columns * k)
    sizes = sizes.reshape(n_columns, k).astype(np.int64 if k <= 62 else object)
    out = np.zeros((n_columns, max_len + 1), dtype=sizes.dtype)
    out[:, 0] = 1
    for j in range(k):  # multiply by (1 + g_j z), truncated at z^max_len
        out[:, 1:] = out[:, 1:] + out[:, :-1] * sizes[:, j : j + 1]
    return out


def common_pattern_counts(candidates: np.ndarray, gold: np.ndarray, max_len: int) -> np.ndarray:
    """C_{c,o}(L), the number of patterns of length L contained in both c and o: (C, G, max_len + 1).

    The L-vertex paths of the DAG P_c AND P_o (``manyjudges.core.counting.count_paths_by_length``).
    """
    n_cand, k = candidates.shape
    n_gold = len(gold)
    max_len = min(int(max_len), k)
    prec_c = candidates[:, :, None] < candidates[:, None, :]
    prec_g = gold[:, :, None] < gold[:, None, :]
    out = np.zeros((n_cand, n_gold, max_len + 1), dtype=np.int64 if k <= 62 else object)
    step = max(1, CHUNK_ELEMENTS // max(1, n_gold * k * k))
    for start in range(0, n_cand, step):
        block = prec_c[start : start + step, None] & prec_g[None]
        out[start : start + step] = count_paths_by_length(block.reshape(-1, k, k), max_len).reshape(
            len(block), n_gold, max_len + 1)
    return out
