"""FreSPA: frequent sequential pattern-based aggregation (Kim, Zhai, Han, ECIR 2010).

A pattern p is a sequence of distinct items; p is contained in an ordering O (p ⊑ O)
when its items appear in O in that order, gaps allowed (tied items: not in order).
sup(p) = number of gold orderings containing p (a count), and

    P = {p : minLen <= |p| <= maxLen, sup(p) >= max(1, minSup * n)}
    w(p) = (1 + wLen (|p| - 1)) (1 + wSup (sup(p) - 1))          (paper, section 3.2)
    score(O) = sum_{p in P, p ⊑ O} w(p) / sum_{p in P} w(p)      (0 when P is empty)

(docs/methods.md, "FreSPA"). Patterns are never enumerated for large k. Because w factorises
into a(length) b(support), only N(s, L) = number of patterns of length L with
support exactly s is needed (and N_O(s, L), the same restricted to patterns in O).
The default ``classes`` engine (``manyjudges.orderings.pattern_classes``) grows patterns
level by level, grouped by (last item, set of orderings containing them): one class stands
for every pattern that extends the same way, so agreeing judges' 2^k shared patterns cost
at most k classes per containment set. The older exact ``counting`` (inclusion-exclusion
over judge subsets) and ``mining`` (Apriori) engines are in ``frespa_engines``. All fill the
same table N(s, L), from which any weights, lengths and support threshold at or above the
one counted are scored without recounting (paper Tables 2-4).

Leave one judge out (ED): one count over all orderings F serves every held-out judge, since
without O_i a pattern's support is sup_F(p) - [p ⊑ O_i] (``_loo_tables_by_classes``). At
threshold 1 with wSup = 1, w(p) = a(|p|) sup(p) and only support sums are needed:

    sum_p sup(p) [p ⊑ c, |p| = L] = sum_{o in gold} C_{c,o}(L)

(patterns common to pairs of orderings), so such settings need no class count.
**Choice**: a pattern must occur in at least one gold ordering (minSup = 0 means "every
pattern the judges produced").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from manyjudges.orderings.base import OrderingScorer
from manyjudges.orderings.frespa_engines import (
    loo_tables_by_counting,
    loo_tables_by_mining,
    tables_by_counting,
    tables_by_mining,
)
from manyjudges.orderings.pattern_classes import (
    common_pattern_counts,
    own_pattern_counts,
    support_class_tables,
    unique_orderings,
)
from manyjudges.ranks import as_rank_matrix, reverse_ranks

ENGINES = ("classes", "counting", "mining")


@dataclass(frozen=True)
class FreSPAParams:
    """FreSPA's five parameters (paper defaults). Length ratios override lengths.

    len = max(2, floor(ratio * k)) for a ratio (paper Table 3).

    ``support_base`` says what n is in sup(p) >= minSup * n when noise orderings are
    added to the gold set (ED experiments): ``gold`` (default: every gold
    ordering, random ones included) or ``judges`` (the human judges only; the random
    orderings still add support). Outside the noise experiments the two are the same.
    """

    w_len: float = 1.0
    w_sup: float = 1.0
    min_sup: float = 0.75
    min_len: int = 2
    max_len: int | None = None
    min_len_ratio: float | None = None
    max_len_ratio: float | None = None
    support_base: str = "gold"

    def __post_init__(self) -> None:
        if self.support_base not in ("gold", "judges"):
            raise ValueError(f"support_base must be 'gold' or 'judges', got {self.support_base!r}")
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


def _affine_weights(weight: float, top: int) -> np.ndarray:
    """1 + weight (x - 1) for x = 0..top: the support factor (wSup) or length factor (wLen) of w(p)."""
    return 1.0 + weight * (np.arange(top + 1, dtype=float) - 1.0)


# ---------------------------------------------------------------------------
# Support x length tables: the sufficient statistics of every FreSPA setting


def score_from_tables(den: np.ndarray, num: np.ndarray, params: FreSPAParams, gold_size: int, k: int,
                      threshold_base: int | None = None) -> np.ndarray:
    """FreSPA scores from pattern-count tables.

    den[s, L] = number of patterns of length L with support s among the gold orderings;
    num[..., s, L] = the same restricted to patterns contained in a candidate. Rows with
    s below the support threshold the tables were counted at must be zero or unused.
    """
    lo, hi = params.length_bounds(k)
    t = params.support_threshold(gold_size if threshold_base is None else threshold_base)
    w = np.zeros((gold_size + 1, k + 1))
    if t <= gold_size and lo <= hi:
        w[t:, lo : hi + 1] = np.outer(_affine_weights(params.w_sup, gold_size)[t:],
                                           _affine_weights(params.w_len, k)[lo : hi + 1])
    d = np.tensordot(den, w, axes=([-2, -1], [0, 1]))
    n_ = np.tensordot(num, w, axes=([-2, -1], [0, 1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, n_ / np.where(d > 0, d, 1.0), 0.0)


def _check_engine(engine: str | None) -> str:
    """The engine to use: ``classes`` by default; an unknown name is an error."""
    engine = engine or "classes"
    if engine not in ENGINES:
        raise ValueError(f"unknown FreSPA engine {engine!r}; use one of {', '.join(ENGINES)}")
    return engine


def _tables_by_classes(gold: np.ndarray, candidates: np.ndarray, threshold: int, max_len: int) -> tuple[np.ndarray,
                                                                                                       np.ndarray]:
    """N(s, L) tables by pattern classes (``manyjudges.orderings.pattern_classes``).

    Identical orderings are counted once with their multiplicity as support weight; the
    candidates ride along with weight 0.
    """
    n = len(gold)
    columns, inverse = unique_orderings(np.vstack([gold, candidates]))
    weights = np.bincount(inverse[:n], minlength=len(columns))
    wanted, back = np.unique(inverse[n:], return_inverse=True)
    den, per = support_class_tables(columns, weights, threshold, max_len, wanted)
    return den, per[back.reshape(-1)]


def frespa_tables(gold: np.ndarray, candidates: np.ndarray, threshold: int, max_len: int | None = None,
                  engine: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pattern-count tables (den (n+1, k+1), num (c, n+1, k+1)) at support >= threshold."""
    gold, candidates = as_rank_matrix(gold), as_rank_matrix(candidates)
    n, k = gold.shape
    max_len = k if max_len is None else min(max_len, k)
    threshold = max(1, int(threshold))
    engine = _check_engine(engine)
    if engine == "counting":
        return tables_by_counting(gold, candidates, threshold, max_len)
    if engine == "mining":
        return tables_by_mining(gold, candidates, threshold, max_len)
    return _tables_by_classes(gold, candidates, threshold, max_len)


def frespa_score(gold: np.ndarray, candidates: np.ndarray, params: FreSPAParams | None = None,
                 engine: str | None = None) -> np.ndarray:
    """FreSPA score in [0, 1] of each candidate ordering against the gold orderings."""
    params = params or FreSPAParams()
    gold = as_rank_matrix(gold)
    n, k = gold.shape
    _, hi = params.length_bounds(k)
    den, num = frespa_tables(gold, candidates, params.support_threshold(n), hi, engine)
    return score_from_tables(den, num, params, n, k)


@dataclass(frozen=True)
class _LooColumns:
    """The distinct orderings of one leave-one-out panel (F = humans + noise, N orderings)."""

    columns: np.ndarray  # (B, k) distinct orderings among humans, noise and reversed humans (dense ranks)
    weights: np.ndarray  # (B,) multiplicity of each among F (0: only a reversed human)
    own: np.ndarray  # (U,) column of each distinct human ordering
    rev: np.ndarray  # (U,) column of its reverse
    which: np.ndarray  # (n,) distinct human ordering of each human


def _loo_columns(humans: np.ndarray, noise: np.ndarray) -> _LooColumns:
    """Distinct orderings and multiplicities of a leave-one-out panel (identical judges counted once)."""
    n = len(humans)
    total = n + len(noise)
    columns, inverse = unique_orderings(np.vstack([humans, noise, reverse_ranks(humans)]))
    weights = np.bincount(inverse[:total], minlength=len(columns))
    own, first, which = np.unique(inverse[:n], return_index=True, return_inverse=True)
    return _LooColumns(columns, weights, own, inverse[total + first], which.reshape(-1))


def _loo_tables_by_classes(panel: _LooColumns, threshold: int, max_len: int) -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
    """Leave-one-out tables from ONE count over all the orderings, per distinct held-out ordering.

    With F = humans + noise (N orderings), sup_F the support over F, N_F(s, L) its table and
    N_c(s, L) the same restricted to patterns contained in c, the gold set without human i
    gives every pattern the support sup_F(p) - [p ⊑ O_i], so

        den_i(s)     = N_F(s) - N_{O_i}(s) + N_{O_i}(s + 1)
        num_i(s)     = N_{O_i}(s + 1)
        num_rev_i(s) = N_{rev O_i}(s)          (a pattern of rev O_i is never in O_i)

    for s >= t, and rows s < t are 0. Returns (den, num, num_rev) of shape (U, g + 1, k + 1),
    g = N - 1, for the U distinct human orderings (``panel.which`` maps humans to rows).
    """
    g = int(panel.weights.sum()) - 1
    n_own = len(panel.own)
    den_all, per = support_class_tables(panel.columns, panel.weights, threshold, max_len,
                                        np.r_[panel.own, panel.rev])
    inside, outside = per[:n_own], per[n_own:]
    den = den_all[None, : g + 1] - inside[:, : g + 1] + inside[:, 1:]
    num = inside[:, 1:].copy()
    num_rev = outside[:, : g + 1].copy()
    for table in (den, num, num_rev):
        table[:, :threshold] = 0.0
    return den, num, num_rev


def _loo_support_sums(panel: _LooColumns, max_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sums of the support over ALL patterns (threshold 1), by length, per distinct held-out ordering.

    sum_p sup(p) [p ⊑ c] = sum_{o in gold} C_{c,o}(L) (each pattern counted once per gold
    ordering containing it), so without the held-out O_i, with C_o(L) = C_{o,o}(L):

        den_i(L)     = sum_{o in F} C_o(L) - C_{O_i}(L)
        num_i(L)     = sum_{o in F} C_{O_i,o}(L) - C_{O_i}(L)
        num_rev_i(L) = sum_{o in F} C_{rev O_i,o}(L)            (C_{rev O_i,O_i} = 0 for L >= 2)

    Returns three (U, k + 1) float arrays, lengths below 2 and above max_len 0.
    """
    k = panel.columns.shape[1]
    gold = np.flatnonzero(panel.weights)
    w = panel.weights[gold]
    own_counts = own_pattern_counts(panel.columns, max_len)
    common = common_pattern_counts(panel.columns[np.r_[panel.own, panel.rev]], panel.columns[gold], max_len)
    weighted = np.einsum("cgl,g->cl", common.astype(float), w.astype(float))
    inside, outside = weighted[: len(panel.own)], weighted[len(panel.own) :]
    own = own_counts[panel.own].astype(float)
    out = [np.zeros((len(panel.own), k + 1)) for _ in range(3)]
    top = own_counts.shape[1]
    out[0][:, 2:top] = (w.astype(float) @ own_counts[gold].astype(float))[None, 2:] - own[:, 2:]
    out[1][:, 2:top] = inside[:, 2:] - own[:, 2:]
    out[2][:, 2:top] = outside[:, 2:]
    return out[0], out[1], out[2]


def _score_from_support_sums(den: np.ndarray, num: np.ndarray, params: FreSPAParams, k: int) -> np.ndarray:
    """FreSPA at support threshold 1 with wSup = 1, where w(p) = a(|p|) sup(p): from support sums by length."""
    lo, hi = params.length_bounds(k)
    a = np.zeros(k + 1)
    if lo <= hi:
        a[lo : hi + 1] = _affine_weights(params.w_len, k)[lo : hi + 1]
    d, c = den @ a, num @ a
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, c / np.where(d > 0, d, 1.0), 0.0)


def _loo_inputs(humans: np.ndarray, noise: np.ndarray | None, max_len: int | None,
                threshold: int) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """(humans, noise (m, k), g, max_len, threshold) validated: g = n - 1 + m gold orderings per held-out judge."""
    humans = as_rank_matrix(humans)
    n, k = humans.shape
    noise = np.empty((0, k)) if noise is None or len(noise) == 0 else as_rank_matrix(noise)
    g = n - 1 + len(noise)
    max_len = k if max_len is None else min(max_len, k)
    return humans, noise, g, max_len, max(1, int(threshold))


def leave_one_out_tables(humans: np.ndarray, noise: np.ndarray, threshold: int, max_len: int | None = None,
                         engine: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each human i, tables over the gold set (others + noise): den, num(O_i), num(rev O_i).

    Returns three arrays of shape (n, g + 1, k + 1), g = n - 1 + len(noise).
    """
    humans, noise, g, max_len, threshold = _loo_inputs(humans, noise, max_len, threshold)
    n, k = humans.shape
    engine = _check_engine(engine)
    if threshold > g:
        return np.zeros((n, g + 1, k + 1)), np.zeros((n, g + 1, k + 1)), np.zeros((n, g + 1, k + 1))
    if engine == "classes":
        panel = _loo_columns(humans, noise)
        d, c, r = _loo_tables_by_classes(panel, threshold, max_len)
        return d[panel.which], c[panel.which], r[panel.which]
    loo_tables = loo_tables_by_counting if engine == "counting" else loo_tables_by_mining
    return loo_tables(humans, noise, threshold, max_len)


def _needs_support_sums_only(params: FreSPAParams, base: int) -> bool:
    """Threshold 1 and wSup = 1: w(p) = a(|p|) sup(p), so the score needs support sums, not counts."""
    return params.support_threshold(base) == 1 and params.w_sup == 1.0


def loo_differences_for_settings(humans: np.ndarray, noise: np.ndarray, settings: list[FreSPAParams],
                                 engine: str | None = None, judges_in_gold: int | None = None) -> np.ndarray:
    """ED terms (settings x judges) for several FreSPA settings from one count.

    ``judges_in_gold``: the n of ``support_base="judges"``, the human judges in each held-out
    ordering's gold set (default n - 1; n when random orderings are held out against the judges).

    Counts once at the lowest support threshold and the longest maxLen any setting needs.
    With the ``classes`` engine (default) the count is made once for the whole panel and
    each setting is scored once per distinct held-out ordering; a setting at threshold 1 with
    wSup = 1 is scored from support sums over single orderings and pairs instead, so the
    count runs at the lowest threshold of the other settings.
    """
    humans = as_rank_matrix(humans)
    n, k = humans.shape
    g = n - 1 + (0 if noise is None else len(noise))
    bases = [g if p.support_base == "gold" else (n - 1 if judges_in_gold is None else judges_in_gold)
             for p in settings]
    if _check_engine(engine) != "classes":
        threshold = max(1, min(p.support_threshold(b) for p, b in zip(settings, bases)))
        max_len = max(p.length_bounds(k)[1] for p in settings)
        den, num, num_rev = leave_one_out_tables(humans, noise, threshold, max_len, engine)
        return np.array([score_from_tables(den, num, p, g, k, b) - score_from_tables(den, num_rev, p, g, k, b)
                         for p, b in zip(settings, bases)]).reshape(len(settings), n)
    humans, noise, g, _, _ = _loo_inputs(humans, noise, None, 1)
    panel = _loo_columns(humans, noise)
    sums_only = [_needs_support_sums_only(p, b) for p, b in zip(settings, bases)]
    out = np.empty((len(settings), n))
    counted = [(j, p, b) for j, (p, b, s) in enumerate(zip(settings, bases, sums_only)) if not s]
    if counted:
        threshold = min(p.support_threshold(b) for _, p, b in counted)
        max_len = max(p.length_bounds(k)[1] for _, p, _ in counted)
        if threshold <= g:
            den, num, num_rev = _loo_tables_by_classes(panel, threshold, max_len)
        else:
            den = num = num_rev = np.zeros((len(panel.own), g + 1, k + 1))
        for j, p, b in counted:
            diff = score_from_tables(den, num, p, g, k, b) - score_from_tables(den, num_rev, p, g, k, b)
            out[j] = diff[panel.which]
    summed = [(j, p) for j, (p, s) in enumerate(zip(settings, sums_only)) if s]
    if summed:
        max_len = max(p.length_bounds(k)[1] for _, p in summed)
        den_s, num_s, rev_s = _loo_support_sums(panel, max_len)
        for j, p in summed:
            diff = _score_from_support_sums(den_s, num_s, p, k) - _score_from_support_sums(den_s, rev_s, p, k)
            out[j] = diff[panel.which]
    return out


class FreSPA(OrderingScorer):
    """FreSPA ordered-list scorer (Kim, Zhai, Han 2010, s.3.2): ``FreSPA(**params).fit(gold).score(candidates)``.

    Parameters
    ----------
    w_len, w_sup : weights of pattern length and support in w(p) (paper default 1, 1).
    min_sup : minimum support as a share of the gold orderings, in [0, 1] (default 0.75).
    min_len, max_len : pattern lengths counted (default 2 .. k).
    min_len_ratio, max_len_ratio : lengths as max(2, floor(ratio k)); override min_len / max_len.
    support_base : ``"gold"`` (default) or ``"judges"``: what n is in sup(p) >= minSup n when
        random orderings are added as noise (docs/methods.md, "FreSPA").
    engine : ``"classes"`` (the default, also for None), ``"counting"`` or ``"mining"``; all
        three give the same exact counts (docs/methods.md, "FreSPA").
    """

    def __init__(self, w_len: float = 1.0, w_sup: float = 1.0, min_sup: float = 0.75, min_len: int = 2,
                 max_len: int | None = None, min_len_ratio: float | None = None, max_len_ratio: float | None = None,
                 support_base: str = "gold", engine: str | None = None) -> None:
        self.w_len, self.w_sup, self.min_sup = w_len, w_sup, min_sup
        self.min_len, self.max_len = min_len, max_len
        self.min_len_ratio, self.max_len_ratio = min_len_ratio, max_len_ratio
        self.support_base, self.engine = support_base, engine

    def _parameters(self) -> FreSPAParams:
        """The five parameters (and length ratios, support base), validated."""
        return FreSPAParams(w_len=self.w_len, w_sup=self.w_sup, min_sup=self.min_sup, min_len=self.min_len,
                            max_len=self.max_len, min_len_ratio=self.min_len_ratio, max_len_ratio=self.max_len_ratio,
                            support_base=self.support_base)

    def _check_params(self) -> None:
        self._parameters()
        if self.engine is not None and self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)} or None, got {self.engine!r}")

    def fit(self, gold: np.ndarray) -> FreSPA:
        """Validate the parameters (``parameters_``) and store the gold orderings (``gold_``)."""
        super().fit(gold)
        self.parameters_ = self._parameters()
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        return frespa_score(self._fitted_gold(), candidates, self.parameters_, self.engine)

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray, judges_in_gold: int | None = None
                                  ) -> np.ndarray:
        """s(O_i; others) - s(reverse(O_i); others) for each O_i of ``humans`` (see loo_differences_for_settings)."""
        return loo_differences_for_settings(humans, noise, [self._parameters()], self.engine, judges_in_gold)[0]
