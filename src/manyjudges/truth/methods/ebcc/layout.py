"""The inputs of EBCC's mean-field runs: what every random start of one fit shares, and the starts.

What they share (the labels as a sparse item x (judge, label) count matrix, its distinct rows, the gold
items' classes) is computed once per fit.

From the second iteration on, items with identical labels have identical responsibilities, so
:func:`manyjudges.truth.methods.ebcc.estimator.ebcc_mean_field` computes one row per distinct pattern and weights it by
its number of items (the module docstring of :mod:`manyjudges.truth.methods.ebcc.estimator`). A gold item (known class)
only shares a pattern with gold items of the same labels and the same class: its responsibilities are
held to that class, another item's are not.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from manyjudges.core.coded_labels import CrowdLabels

__all__ = ["EBCCLayout", "ebcc_layout", "ebcc_start", "soft_vote"]


@dataclass(frozen=True)
class EBCCLayout:
    """What every start of one fit shares: the labels as sparse counts.

    Items of identical labels (the same judges saying the same classes) are merged into one pattern row after
    the first iteration.
    """

    #: (n_items, W K + 1) CSR: column j K + l counts item i's labels l from judge j; the last column is 1
    #: for every item (it adds the prior row of the score table, and sums r over the items in the counts)
    by_item: sparse.csr_matrix
    #: (n_patterns, W K + 1) the distinct rows of ``by_item``, in order of first appearance
    by_pattern: sparse.csr_matrix
    #: (W K + 1, n_patterns) CSC: ``by_pattern`` transposed, each row's entries times its item count
    by_pattern_weighted: sparse.csc_matrix
    #: (n_items,) the pattern of each item; (n_patterns,) how many items have it
    pattern: np.ndarray
    multiplicity: np.ndarray
    #: (n_patterns, K) how many labels of each class a pattern has (repeated rows counted)
    class_counts: np.ndarray
    n_judges: int
    n_classes: int
    #: (n_patterns, K) log of 1 where a pattern's class is open, log 0 = -inf where it is closed (a gold
    #: pattern's classes but its known one); None without gold items
    class_mask: np.ndarray | None = None
    #: the gold patterns (rows of ``class_mask`` with a closed class); None without gold items
    gold_patterns: np.ndarray | None = None


def ebcc_layout(data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> EBCCLayout:
    """Build the sparse item x (judge, label) count matrix and its distinct rows, once per fit.

    ``gold`` (item codes, class codes): items of known class, grouped only with gold items of the same class.
    """
    n, k, w = data.n_items, data.n_classes, data.n_judges
    rows = np.concatenate([data.item, np.arange(n)])
    cols = np.concatenate([data.judge * k + data.label, np.full(n, w * k)])
    by_item = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, w * k + 1))
    by_item.sum_duplicates()  # sorted column indices, repeated labels summed
    if gold is None:
        pattern, first = _identical_rows(by_item)
    else:  # the rows compared with one more column, class + 1 for a gold item (absent for the others)
        items, classes = (np.asarray(a, dtype=np.int64) for a in gold)
        tag = sparse.csr_matrix((classes + 1.0, (items, np.zeros_like(items))), shape=(n, 1))
        keyed = sparse.hstack([by_item, tag], format="csr")
        keyed.sort_indices()
        pattern, first = _identical_rows(keyed)
    by_pattern = by_item[first]
    multiplicity = np.bincount(pattern).astype(float)
    weighted = sparse.csr_matrix((by_pattern.data * np.repeat(multiplicity, np.diff(by_pattern.indptr)),
                                  by_pattern.indices, by_pattern.indptr), shape=by_pattern.shape)
    class_mask = gold_patterns = None
    if gold is not None:
        gold_patterns, at = np.unique(pattern[items], return_index=True)
        class_mask = np.zeros((len(first), k))
        class_mask[gold_patterns] = -np.inf
        class_mask[gold_patterns, classes[at]] = 0.0
    return EBCCLayout(by_item, by_pattern, weighted.T, pattern, multiplicity,
                      data.class_counts[first].astype(float), w, k, class_mask, gold_patterns)


def soft_vote(data: CrowdLabels) -> np.ndarray:
    """(n_items, K) the share of each item's labels that say each class."""
    counts = data.class_counts.astype(float)
    return counts / counts.sum(axis=1, keepdims=True)


def ebcc_start(data: CrowdLabels, n_subtypes: int, rng: np.random.Generator,
               gold: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Draw a random start r[i, k, :] = (share of item i's labels saying k) * Dirichlet(1, ..., 1) draw.

    A gold item (``gold`` = (item codes, class codes)) has share 1 on its known class and 0 on the others.
    """
    draws = rng.dirichlet(np.ones(n_subtypes), size=(data.n_items, data.n_classes))
    share = soft_vote(data)
    if gold is not None:
        share[gold[0]] = 0.0
        share[gold[0], gold[1]] = 1.0
    return draws * share[:, :, None]


def _identical_rows(a: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(group of each row, first row of each group) of the rows of ``a``.

    Rows of ``a`` (sorted indices, no empty row) with the
    same columns and values share a group, numbered in order of first appearance. Rows are grouped by two
    random 64-bit hashes of their entries, then compared entry by entry (a row unlike its group's first
    row gets a group of its own).
    """
    n = a.shape[0]
    lengths = np.diff(a.indptr)
    rng = np.random.default_rng(20190609)
    keys = [lengths.astype(np.uint64)]
    for _ in range(2):
        code = rng.integers(0, 2**63, size=a.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        entry = code[a.indices] * (a.data.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15))
        keys.append(np.add.reduceat(entry, a.indptr[:-1]))
    _, first, group = np.unique(np.stack(keys, axis=1), axis=0, return_index=True, return_inverse=True)
    group = group.ravel()
    row = np.repeat(np.arange(n), lengths)
    same_as_first = np.arange(a.nnz) - a.indptr[row] + a.indptr[first[group[row]]]
    differs = np.unique(row[(a.indices != a.indices[same_as_first]) | (a.data != a.data[same_as_first])])
    if differs.size:  # a hash collision: those rows stand alone
        first = np.concatenate([first, differs])
        group[differs] = len(first) - differs.size + np.arange(differs.size)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[group], first[order]
