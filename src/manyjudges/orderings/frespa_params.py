"""FreSPA's parameters and its score from pattern-count tables (Kim, Zhai, Han, ECIR 2010, section 3.2).

The tables N(s, L) (patterns of length L with support s) and N_O(s, L) (those in O) are counted in
:mod:`manyjudges.orderings.frespa`; every weight, length and support setting is scored from them:

    score(O) = sum_{s, L} a(L) b(s) N_O(s, L) / sum_{s, L} a(L) b(s) N(s, L),
    a(L) = 1 + wLen (L - 1),  b(s) = 1 + wSup (s - 1)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from manyjudges.core.parameters import Constraint, Interval, Options, check_values

__all__ = ["ENGINES", "FreSPAParams", "score_from_tables"]

ENGINES = ("classes", "counting", "mining")

#: how a length ratio becomes a length: floor(ratio k) or floor(ratio k + 0.5), each at least 2
_LENGTH_ROUNDINGS = ("floor", "half_up")

#: what each of :class:`FreSPAParams`'s fields may be (FreSPA's parameters but its engine)
FRESPA_CONSTRAINTS: dict[str, list[Constraint]] = {
    "w_len": [Interval(Real, 0, None)],
    "w_sup": [Interval(Real, 0, None)],
    "min_sup": [Interval(Real, 0, 1)],
    "min_len": [Interval(Integral, 2, None)],
    "max_len": [Interval(Integral, 2, None), None],
    "min_len_ratio": [Interval(Real, 0, None), None],
    "max_len_ratio": [Interval(Real, 0, None), None],
    "support_base": [Options(("gold", "judges"))],
    "length_rounding": [Options(_LENGTH_ROUNDINGS)],
}


@dataclass(frozen=True)
class FreSPAParams:
    """FreSPA's five parameters (paper defaults). Length ratios override lengths.

    len = max(2, floor(ratio * k)) for a ratio (paper Table 3) with ``length_rounding="floor"``
    (default), max(2, floor(ratio * k + 0.5)) with ``"half_up"`` (k = 7, ratio 0.5: 3 or 4).

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
    length_rounding: str = "floor"

    def __post_init__(self) -> None:
        check_values(type(self).__name__, FRESPA_CONSTRAINTS, vars(self))

    def length_bounds(self, k: int) -> tuple[int, int]:
        """(minLen, maxLen) for k items, after ratios (rounded by ``length_rounding``); both clipped to [2, k]."""
        half = 0.5 if self.length_rounding == "half_up" else 0.0

        def from_ratio(ratio: float) -> int:
            return max(2, math.floor(ratio * k + half + 1e-9))

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
    """Return the engine to use: ``classes`` by default; an unknown name is an error."""
    engine = engine or "classes"
    if engine not in ENGINES:
        raise ValueError(f"unknown FreSPA engine {engine!r}; use one of {', '.join(ENGINES)}")
    return engine
