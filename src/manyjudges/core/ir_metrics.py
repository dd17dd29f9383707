"""IR evaluation measures of one ranking against graded truth, with trec_eval conventions.

Used for Table 2 of Niu et al. (WSDM 2015): P@k, NDCG@k, MAP and RBP (eqs 2-4, s.6.1).

Inputs of every function:

- ``ranking``: the ranked items, best first: item ids (looked up in a grades mapping) or
  integer indices (into a grades array).
- ``grades``: the truth, a mapping ``item -> integer grade`` or a ``(n,)`` integer array
  aligned with the item indices. Grades are non-negative integers.

Only judged items are scored: the caller restricts the ranking to the items that have a
truth grade (keeping their order) before calling; a ranked item missing from the mapping
raises ValueError. Judged items absent from the ranking still count in the ideal DCG and
in the number of relevant items (as in trec_eval, where they are simply not retrieved).
Binary relevance (P@k, MAP, RBP) is ``grade >= relevant_grade``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

Grades = Mapping[Any, int] | Sequence[int] | np.ndarray  # Any: a Mapping's key type is invariant
Ranking = Sequence[object] | np.ndarray


def _ranked_and_all(ranking: Ranking, grades: Grades) -> tuple[np.ndarray, np.ndarray]:
    """(grades of the ranked items in rank order, grades of all judged items), as int arrays."""
    if isinstance(grades, Mapping):
        missing = [item for item in ranking if item not in grades]
        if missing:
            raise ValueError(f"ranked items without a truth grade: {missing[:5]!r}; restrict the ranking "
                             "to judged items first")
        ranked = np.fromiter((int(grades[item]) for item in ranking), dtype=np.int64, count=len(ranking))
        every = np.fromiter((int(g) for g in grades.values()), dtype=np.int64, count=len(grades))
        if len(set(ranking)) != len(ranking):
            raise ValueError("the ranking lists an item more than once")
    else:
        every = np.asarray(grades, dtype=np.int64)
        index = np.asarray(ranking, dtype=np.int64)
        if index.size and (index.min() < 0 or index.max() >= len(every)):
            raise ValueError(f"ranking indices must lie in [0, {len(every)})")
        if len(np.unique(index)) != len(index):
            raise ValueError("the ranking lists an item more than once")
        ranked = every[index]
    return ranked, every


def _precision(ranked: np.ndarray, k: int, relevant_grade: int) -> float:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return float((ranked[:k] >= relevant_grade).sum() / k)


def _dcg(gains: np.ndarray) -> float:
    return float((gains / np.log2(np.arange(2, len(gains) + 2))).sum())


def ideal_dcg(every: np.ndarray, k: int | None) -> float:
    """Return the ideal DCG@k: all judged grades sorted descending, gains ``2^y - 1``."""
    return _dcg(np.exp2(np.sort(every)[::-1][:k]) - 1.0)


def _ndcg(ranked: np.ndarray, every: np.ndarray, k: int | None, best: float | None = None) -> float:
    if k is not None and k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    best = ideal_dcg(every, k) if best is None else best
    return _dcg(np.exp2(ranked[:k]) - 1.0) / best if best > 0 else 0.0


def _average_precision(ranked: np.ndarray, every: np.ndarray, relevant_grade: int) -> float:
    n_relevant = int((every >= relevant_grade).sum())
    if n_relevant == 0:
        return 0.0
    rel = ranked >= relevant_grade
    precision = np.cumsum(rel) / np.arange(1, len(rel) + 1)
    return float(precision[rel].sum() / n_relevant)


def _rbp(ranked: np.ndarray, p: float, relevant_grade: int) -> float:
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    rel = (ranked >= relevant_grade).astype(float)
    return float((1.0 - p) * (rel * p ** np.arange(len(rel))).sum())


def precision_at(ranking: Ranking, grades: Grades, k: int, relevant_grade: int = 1) -> float:
    """Precision at cut-off k (eq 3; trec_eval ``P_k``).

    ``P@k = |{relevant items at ranks 1..k}| / k``; the divisor is k even when fewer than
    k items are ranked.
    """
    ranked, _ = _ranked_and_all(ranking, grades)
    return _precision(ranked, k, relevant_grade)


def ndcg_at(ranking: Ranking, grades: Grades, k: int | None = None) -> float:
    """Normalised discounted cumulative gain at cut-off k (eq 2; trec_eval ``ndcg_cut_k`` with gains ``2^y - 1``).

    ``DCG@k = sum_{i<=k} (2^{y_i} - 1) / log2(1 + i)`` (rank i 1-based); the ideal DCG@k
    sorts all judged grades descending. 0 when the ideal DCG is 0. ``k=None``: the whole list.
    """
    ranked, every = _ranked_and_all(ranking, grades)
    return _ndcg(ranked, every, k)


def average_precision(ranking: Ranking, grades: Grades, relevant_grade: int = 1) -> float:
    """Average precision (trec_eval ``map`` for one query).

    ``AP = sum_{i: item at rank i relevant} P@i / R`` with R the number of relevant judged
    items (retrieved or not); 0 when R = 0.
    """
    ranked, every = _ranked_and_all(ranking, grades)
    return _average_precision(ranked, every, relevant_grade)


def rbp(ranking: Ranking, grades: Grades, p: float = 0.95, relevant_grade: int = 1) -> float:
    """Rank-biased precision (eq 4; Moffat and Zobel, TOIS 2008), binary relevance.

    ``RBP = (1 - p) sum_i rel_i p^{i-1}`` (rank i 1-based): the base value, no residual.
    """
    ranked, _ = _ranked_and_all(ranking, grades)
    return _rbp(ranked, p, relevant_grade)


def ranking_metrics(ranking: Ranking, grades: Grades, ks: Sequence[int] = (3, 5, 7, 9, 10),
                    p: float = 0.95, relevant_grade: int = 1) -> dict[str, float]:
    """Table 2's measures of one ranking: ``P@k`` and ``NDCG@k`` for k in ks, ``MAP``, ``RBP``.

    Keys in that order (``"P@3", ..., "NDCG@3", ..., "MAP", "RBP"``). P@k, MAP and RBP use
    binary relevance ``grade >= relevant_grade``; NDCG uses the grades.
    """
    ranked, every = _ranked_and_all(ranking, grades)
    return grade_metrics(ranked, every, ks, p, relevant_grade)


def grade_metrics(ranked: np.ndarray, every: np.ndarray, ks: Sequence[int] = (3, 5, 7, 9, 10), p: float = 0.95,
                  relevant_grade: int = 1, ideal: Mapping[int, float] | None = None) -> dict[str, float]:
    """Compute :func:`ranking_metrics` from int arrays.

    ``ranked`` the grades of the ranked judged items in rank order, ``every`` the grades of all judged
    items (any order); ``ideal`` optionally {k: :func:`ideal_dcg` (every, k)}, for callers scoring many
    rankings against one truth.
    """
    out = {f"P@{k}": _precision(ranked, k, relevant_grade) for k in ks}
    out.update({f"NDCG@{k}": _ndcg(ranked, every, k, None if ideal is None else ideal[k]) for k in ks})
    out["MAP"] = _average_precision(ranked, every, relevant_grade)
    out["RBP"] = _rbp(ranked, p, relevant_grade)
    return out
