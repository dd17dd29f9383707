"""The labels as one sparse count matrix: items x (judge * K + label), the form Dawid-Skene's EM sums over.

:func:`label_matrix` builds it (12 bytes a label); :func:`_item_class_counts` reads each item's count of each
class from it with one product; :func:`_row_block` gives a block of its rows.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["label_matrix"]


def label_matrix(item: np.ndarray, judge: np.ndarray, label: np.ndarray, n_items: int, n_judges: int,
                 n_classes: int) -> sparse.csr_matrix:
    """Build the (n_items, n_judges * K) CSR count matrix of the labels.

    Entry (i, j K + c) = how many times judge j said c about item i. Built by scipy's O(n) COO-to-CSR
    pass (repeats summed, each row's columns sorted, so the matrix, and every sum over it, does not
    depend on the order of the labels); 12 bytes a label (float64 count, int32 column). Labels in
    (item, judge, label) order without a repeat (as every fit sorts them) are already the CSR arrays
    and go in as they are, without that pass and its copies. Its transpose ``.T`` is a CSC view of the
    same arrays.
    """
    columns = judge * n_classes + label
    if columns.dtype != item.dtype:
        columns = columns.astype(np.int64)
    shape = (n_items, n_judges * n_classes)
    if _strictly_ascending(item, columns):  # labels in canonical order, no repeat: the CSR arrays as they are
        indptr = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(item, minlength=n_items), out=indptr[1:])
        return sparse.csr_matrix((np.ones(len(item)), columns, indptr), shape=shape)
    counts = sparse.coo_matrix((np.ones(len(item)), (item, columns)), shape=shape)
    del columns
    return counts.tocsr()


def _strictly_ascending(rows: np.ndarray, columns: np.ndarray) -> bool:
    """Tell whether the (row, column) pairs ascend strictly: sorted by row, then column, none repeated.

    Checked in blocks (a few MB of temporaries). Such pairs are a CSR matrix's index arrays already, the
    same arrays as scipy's COO-to-CSR pass and its sorting of each row's columns would make.
    """
    block = 1 << 20
    for start in range(0, max(len(rows) - 1, 0), block):
        r, c = rows[start:start + block + 1], columns[start:start + block + 1]
        if not ((r[1:] > r[:-1]) | ((r[1:] == r[:-1]) & (c[1:] > c[:-1]))).all():
            return False
    return True


def _item_class_counts(by_item: sparse.csr_matrix, k: int) -> np.ndarray:
    """Return n[t, i], how many of item i's labels are t ((K, n_items) float), from the labels' matrix.

    One product with the (judge * K + label) x K indicator of the label: counts of 1.0, exact in float64,
    and no array a label long. The result is the product's transpose, a view (Fortran order).
    """
    n_judges = by_item.shape[1] // k
    indicator = np.tile(np.eye(k), (n_judges, 1))  # row j K + c is one-hot on c
    return (by_item @ indicator).T


def _row_block(matrix: sparse.csr_matrix, start: int, stop: int) -> sparse.csr_matrix:
    """Return rows ``start .. stop - 1`` of a CSR matrix as a CSR matrix.

    Made from slices of its arrays (scipy's constructor copies them: the block's labels, not the matrix's).
    """
    low, high = int(matrix.indptr[start]), int(matrix.indptr[stop])
    return sparse.csr_matrix((matrix.data[low:high], matrix.indices[low:high], matrix.indptr[start:stop + 1] - low),
                             shape=(stop - start, matrix.shape[1]), copy=False)
