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

The parameters and the score from the tables are in ``frespa_params``; leave one judge out (ED),
every held-out judge from one count, in ``frespa_loo``.
**Choice**: a pattern must occur in at least one gold ordering (minSup = 0 means "every
pattern the judges produced").
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.parameters import Options
from manyjudges.core.ranks import as_rank_matrix
from manyjudges.orderings.base import OrderingScorer
from manyjudges.orderings.frespa_engines import tables_by_counting, tables_by_mining
from manyjudges.orderings.frespa_loo import leave_one_out_tables, loo_differences_for_settings
from manyjudges.orderings.frespa_params import (
    ENGINES,
    FRESPA_CONSTRAINTS,
    FreSPAParams,
    _check_engine,
    score_from_tables,
)
from manyjudges.orderings.pattern_classes import support_class_tables, unique_orderings

__all__ = [
    "ENGINES", "FreSPA", "FreSPAParams", "frespa_score", "leave_one_out_tables", "loo_differences_for_settings",
    "score_from_tables",
]


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


def _frespa_tables(gold: np.ndarray, candidates: np.ndarray, threshold: int, max_len: int | None = None,
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
    den, num = _frespa_tables(gold, candidates, params.support_threshold(n), hi, engine)
    return score_from_tables(den, num, params, n, k)



class FreSPA(OrderingScorer):
    """FreSPA ordered-list scorer (Kim, Zhai, Han 2010, s.3.2): ``FreSPA(**params).fit(gold).score(candidates)``.

    Parameters
    ----------
    w_len, w_sup : float
        Weights of pattern length and support in w(p) (paper default 1, 1).
    min_sup : float
        Minimum support as a share of the gold orderings, in [0, 1] (default 0.75).
    min_len, max_len : int, optional
        Pattern lengths counted (default 2 .. k).
    min_len_ratio, max_len_ratio : float, optional
        Lengths as a ratio of k; override min_len / max_len.
    support_base : {"gold", "judges"}
        ``"gold"`` (default) or ``"judges"``: what n is in sup(p) >= minSup n when random orderings
        are added as noise (docs/methods.md, "FreSPA").
    engine : {"classes", "counting", "mining"}, optional
        ``"classes"`` (the default, also for None), ``"counting"`` or ``"mining"``; all three give
        the same exact counts (docs/methods.md, "FreSPA").
    length_rounding : {"floor", "half_up"}
        How a ratio becomes a length: ``"floor"`` (default), max(2, floor(ratio k)), or
        ``"half_up"``, max(2, floor(ratio k + 0.5)); k = 7, ratio 0.5 gives 3 or 4
        (docs/methods.md, "Reading (length ratios)").
    """

    _parameter_constraints = {**FRESPA_CONSTRAINTS, "engine": [Options(ENGINES), None]}

    def __init__(self, w_len: float = 1.0, w_sup: float = 1.0, min_sup: float = 0.75, min_len: int = 2,
                 max_len: int | None = None, min_len_ratio: float | None = None, max_len_ratio: float | None = None,
                 support_base: str = "gold", engine: str | None = None, length_rounding: str = "floor") -> None:
        self.w_len, self.w_sup, self.min_sup = w_len, w_sup, min_sup
        self.min_len, self.max_len = min_len, max_len
        self.min_len_ratio, self.max_len_ratio = min_len_ratio, max_len_ratio
        self.support_base, self.engine, self.length_rounding = support_base, engine, length_rounding

    def _parameters(self) -> FreSPAParams:
        """Return the five parameters (and length ratios and their rounding, support base), validated."""
        return FreSPAParams(w_len=self.w_len, w_sup=self.w_sup, min_sup=self.min_sup, min_len=self.min_len,
                            max_len=self.max_len, min_len_ratio=self.min_len_ratio, max_len_ratio=self.max_len_ratio,
                            support_base=self.support_base, length_rounding=self.length_rounding)

    def fit(self, gold: np.ndarray) -> FreSPA:
        """Validate the parameters (``parameters_``) and store the gold orderings (``gold_``)."""
        super().fit(gold)
        self.parameters_ = self._parameters()
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:
        """Return the FreSPA score of each candidate ordering against the fitted gold orderings."""
        return frespa_score(self._fitted_gold(), candidates, self.parameters_, self.engine)

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray, judges_in_gold: int | None = None
                                  ) -> np.ndarray:
        """s(O_i; others) - s(reverse(O_i); others) for each O_i of ``humans`` (see loo_differences_for_settings)."""
        return loo_differences_for_settings(humans, noise, [self._parameters()], self.engine, judges_in_gold)[0]
