"""FreSPA: frequent sequential pattern-based aggregation (Kim, Zhai, Han, ECIR 2010).

A pattern p is a sequence of distinct items; p is contained in an ordering O (p ⊑ O)
when its items appear in O in that order, gaps allowed (tied items: not in order).
sup(p) = number of gold orderings containing p (a count), and

    P = {p : minLen <= |p| <= maxLen, sup(p) >= max(1, minSup * n)}
    w(p) = (1 + wLen (|p| - 1)) (1 + wSup (sup(p) - 1))          (paper, section 3.2)
    score(O) = sum_{p in P, p ⊑ O} w(p) / sum_{p in P} w(p)      (0 when P is empty)

(METHODS.md s.1). Patterns are never enumerated for large k. Because w factorises
into a(length) b(support), only N(s, L) = number of patterns of length L with
support exactly s is needed (and N_O(s, L), the same restricted to patterns in O).
With C_S(L) = number of common subsequences of length L of the orderings in S
(a path count in their common-precedence DAG, ``manyjudges.counting``),

    A_j(L) = sum_{|S| = j} C_S(L) = sum_s N(s, L) binom(s, j)
    N(s, L) = sum_{j >= s} (-1)^(j - s) binom(j, s) A_j(L)      (inclusion-exclusion)

and only subsets with |S| >= minSup * n are needed. N_O uses C_{S ∪ {O}}.
When the items are few and the judges many (k <= 6, hundreds of judges) patterns are
enumerated instead; both paths are exact. **Choice**: a pattern must occur in at
least one gold ordering (minSup = 0 means "every pattern the judges produced").
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..counting import common_precedence, count_paths_by_length
from .ranks import as_rank_matrix, precedence_matrices, reverse_ranks

MAX_SUBSETS = 400_000
MAX_ENUMERATED_PATTERNS = 5_000


@dataclass(frozen=True)
class FreSPAParams:
    """FreSPA's five parameters (paper defaults). Length ratios override lengths.

    len = max(2, floor(ratio * k)) for a ratio (paper Table 3).
    """

    w_len: float = 1.0
    w_sup: float = 1.0
    min_sup: float = 0.75
    min_len: int = 2
    max_len: int | None = None
    min_len_ratio: float | None = None
    max_len_ratio: float | None = None

    def __post_init__(self) -> None:
        if self.w_len < 0 or self.w_sup < 0:
            raise ValueError(f"w_len and w_sup must be >= 0, got {self.w_len}, {self.w_sup}")
        if not 0.0 <= self.min_sup <= 1.0:
            raise ValueError(f"min_sup must be in [0, 1], got {self.min_sup}")
        if self.min_len < 2:
            raise ValueError(f"min_len must be >= 2, got {self.min_len}")
        if self.max_len is not None and self.max_len < 2:
            raise ValueError(f"max_len must be >= 2, got {self.max_len}")

    def length_bounds(self, k: int) -> tuple[int, int]:
        """(minLen, maxLen) for k items, after ratios; both clipped to [2, k]."""

        def from_ratio(ratio: float) -> int:
            return max(2, math.floor(ratio * k + 1e-9))

        lo = from_ratio(self.min_len_ratio) if self.min_len_ratio is not None else self.min_len
        hi = k if self.max_len is None else self.max_len
        if self.max_len_ratio is not None:
            hi = from_ratio(self.max_len_ratio)
        return min(lo, k), min(hi, k)

    def support_threshold(self, n: int) -> int:
        """Smallest integer support s with s >= minSup * n, and at least 1."""
        return max(1, math.ceil(self.min_sup * n - 1e-9))


def _support_weights(params: FreSPAParams, n: int) -> np.ndarray:
    s = np.arange(n + 1, dtype=float)
    return 1.0 + params.w_sup * (s - 1.0)


def _length_weights(params: FreSPAParams, k: int) -> np.ndarray:
    length = np.arange(k + 1, dtype=float)
    return 1.0 + params.w_len * (length - 1.0)


def _subsets_of_size_at_least(n: int, threshold: int) -> np.ndarray:
    count = sum(math.comb(n, j) for j in range(threshold, n + 1))
    if count > MAX_SUBSETS:
        raise ValueError(
            f"FreSPA would need {count} judge subsets (n={n} gold orderings, support >= {threshold}); "
            f"raise min_sup or use fewer gold orderings (limit {MAX_SUBSETS})"
        )
    rows = np.zeros((count, n), dtype=bool)
    r = 0
    for j in range(threshold, n + 1):
        for combo in itertools.combinations(range(n), j):
            rows[r, list(combo)] = True
            r += 1
    return rows


def _exact_support_counts(subset_counts: np.ndarray, sizes: np.ndarray, n: int, threshold: int) -> list[list[int]]:
    """N(s, L) for s = threshold..n from per-subset counts C_S(L) by inclusion-exclusion."""
    n_len = subset_counts.shape[1]
    a = [[0] * n_len for _ in range(n + 1)]
    for j in range(threshold, n + 1):
        rows = subset_counts[sizes == j]
        if rows.size:
            a[j] = [int(v) for v in rows.astype(object).sum(axis=0)]
    exact = [[0] * n_len for _ in range(n + 1)]
    for s in range(threshold, n + 1):
        for length in range(n_len):
            exact[s][length] = sum(
                (-1) ** (j - s) * math.comb(j, s) * a[j][length] for j in range(s, n + 1)
            )
    return exact


def _weighted_total(exact: list[list[int]], sup_w: np.ndarray, len_w: np.ndarray, lo: int, hi: int, threshold: int) -> float:
    total = 0.0
    for s in range(threshold, len(exact)):
        for length in range(lo, hi + 1):
            if exact[s][length]:
                total += float(exact[s][length]) * sup_w[s] * len_w[length]
    return total


def frespa_totals_by_counting(gold: np.ndarray, candidates: np.ndarray, params: FreSPAParams) -> tuple[np.ndarray, float]:
    """(numerator per candidate, denominator) of FreSPA by DAG counting + inclusion-exclusion."""
    gold = as_rank_matrix(gold)
    candidates = as_rank_matrix(candidates)
    n, k = gold.shape
    lo, hi = params.length_bounds(k)
    threshold = params.support_threshold(n)
    if threshold > n:
        return np.zeros(len(candidates)), 0.0
    subsets = _subsets_of_size_at_least(n, threshold)
    sizes = subsets.sum(axis=1)
    prec = precedence_matrices(np.vstack([gold, candidates]))
    c = len(candidates)
    blocks = [subsets]
    for i in range(c):
        with_candidate = np.zeros((len(subsets), n + c), dtype=bool)
        with_candidate[:, :n] = subsets
        with_candidate[:, n + i] = True
        blocks.append(with_candidate)
    padded = np.zeros((len(subsets), n + c), dtype=bool)
    padded[:, :n] = subsets
    blocks[0] = padded
    all_masks = np.vstack(blocks)
    counts = count_paths_by_length(common_precedence(prec, all_masks), hi)
    sup_w, len_w = _support_weights(params, n), _length_weights(params, k)
    m = len(subsets)
    den = _weighted_total(_exact_support_counts(counts[:m], sizes, n, threshold), sup_w, len_w, lo, hi, threshold)
    nums = np.array(
        [
            _weighted_total(
                _exact_support_counts(counts[(i + 1) * m : (i + 2) * m], sizes, n, threshold),
                sup_w, len_w, lo, hi, threshold,
            )
            for i in range(c)
        ]
    )
    return nums, den


def _all_patterns(k: int, lo: int, hi: int) -> list[np.ndarray]:
    return [np.array(list(itertools.permutations(range(k), length)), dtype=int).reshape(-1, length) for length in range(lo, hi + 1)]


def _containment(ranks: np.ndarray, patterns: np.ndarray) -> np.ndarray:
    """(orderings, patterns) bool: pattern items strictly increasing in rank."""
    seq = ranks[:, patterns]  # (o, P, L)
    return np.all(np.diff(seq, axis=2) > 0, axis=2)


def count_patterns(k: int, lo: int, hi: int) -> int:
    """Number of sequences of distinct items of length lo..hi out of k."""
    return sum(math.perm(k, length) for length in range(lo, hi + 1))


def frespa_totals_by_enumeration(gold: np.ndarray, candidates: np.ndarray, params: FreSPAParams) -> tuple[np.ndarray, float]:
    """(numerator per candidate, denominator) of FreSPA by enumerating every pattern (small k)."""
    gold = as_rank_matrix(gold)
    candidates = as_rank_matrix(candidates)
    n, k = gold.shape
    lo, hi = params.length_bounds(k)
    threshold = params.support_threshold(n)
    sup_w, len_w = _support_weights(params, n), _length_weights(params, k)
    nums = np.zeros(len(candidates))
    den = 0.0
    for pats in _all_patterns(k, lo, hi):
        length = pats.shape[1]
        sup = _containment(gold, pats).sum(axis=0)
        w = np.where(sup >= threshold, sup_w[np.minimum(sup, n)] * len_w[length], 0.0)
        den += w.sum()
        nums += _containment(candidates, pats).astype(float) @ w
    return nums, den


def _use_enumeration(n: int, k: int, params: FreSPAParams) -> bool:
    lo, hi = params.length_bounds(k)
    threshold = params.support_threshold(n)
    n_subsets = sum(math.comb(n, j) for j in range(threshold, n + 1))
    n_patterns = count_patterns(k, lo, hi)
    if n_patterns > MAX_ENUMERATED_PATTERNS:
        return False
    return n_patterns * n <= n_subsets * k * k * max(1, hi)


def frespa_totals(gold: np.ndarray, candidates: np.ndarray, params: FreSPAParams) -> tuple[np.ndarray, float]:
    """FreSPA (numerators, denominator), by whichever exact method is cheaper."""
    gold = as_rank_matrix(gold)
    n, k = gold.shape
    if _use_enumeration(n, k, params):
        return frespa_totals_by_enumeration(gold, candidates, params)
    return frespa_totals_by_counting(gold, candidates, params)


def frespa_score(gold: np.ndarray, candidates: np.ndarray, params: FreSPAParams | None = None) -> np.ndarray:
    """FreSPA score in [0, 1] of each candidate ordering against the gold orderings."""
    params = params or FreSPAParams()
    nums, den = frespa_totals(gold, candidates, params)
    if den == 0:
        return np.zeros(len(nums))
    return nums / den


class FreSPA:
    """Ordering scorer: ``FreSPA(**params)(gold)`` returns a function scoring candidates."""

    def __init__(self, **params: float) -> None:
        self.params = FreSPAParams(**params)

    def __call__(self, gold: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        gold = as_rank_matrix(gold)
        return lambda candidates: frespa_score(gold, candidates, self.params)

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """s(O_i; others) - s(reverse(O_i); others) for each human ordering O_i."""
        humans = as_rank_matrix(humans)
        noise = as_rank_matrix(noise) if len(noise) else np.empty((0, humans.shape[1]))
        n, k = humans.shape
        gold_size = n - 1 + len(noise)
        if _use_enumeration(gold_size, k, self.params):
            return self._loo_by_enumeration(humans, noise)
        out = np.empty(n)
        reversed_humans = reverse_ranks(humans)
        for i in range(n):
            gold = np.vstack([np.delete(humans, i, axis=0), noise])
            nums, den = frespa_totals_by_counting(gold, np.vstack([humans[i], reversed_humans[i]]), self.params)
            out[i] = 0.0 if den == 0 else (nums[0] - nums[1]) / den
        return out

    def _loo_by_enumeration(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Vectorised leave-one-out: supports of all patterns once, minus the held-out judge."""
        n, k = humans.shape
        gold_size = n - 1 + len(noise)
        lo, hi = self.params.length_bounds(k)
        threshold = self.params.support_threshold(gold_size)
        sup_w, len_w = _support_weights(self.params, gold_size), _length_weights(self.params, k)
        nums = np.zeros(n)
        nums_rev = np.zeros(n)
        den = np.zeros(n)
        for pats in _all_patterns(k, lo, hi):
            length = pats.shape[1]
            held = _containment(humans, pats)  # (n, P)
            held_rev = _containment(humans, pats[:, ::-1])  # p in reverse(O) iff reverse(p) in O
            total = held.sum(axis=0) + (_containment(noise, pats).sum(axis=0) if len(noise) else 0)
            sup = total[None, :] - held  # (n, P): support among the others
            w = np.where(sup >= threshold, sup_w[np.minimum(sup, gold_size)] * len_w[length], 0.0)
            den += w.sum(axis=1)
            nums += (w * held).sum(axis=1)
            nums_rev += (w * held_rev).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (nums - nums_rev) / np.where(den > 0, den, 1.0), 0.0)
