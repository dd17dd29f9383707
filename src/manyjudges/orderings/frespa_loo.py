"""FreSPA's leave-one-judge-out scores (ED), every held-out judge from one count (Kim, Zhai, Han 2010).

One count over all orderings F serves every held-out judge, since without O_i a pattern's support
is sup_F(p) - [p ⊑ O_i] (``_loo_tables_by_classes``). At threshold 1 with wSup = 1,
w(p) = a(|p|) sup(p) and only support sums are needed:

    sum_p sup(p) [p ⊑ c, |p| = L] = sum_{o in gold} C_{c,o}(L)

(patterns common to pairs of orderings), so such settings need no class count.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from manyjudges.core.ranks import as_rank_matrix, reverse_ranks
from manyjudges.orderings.frespa_engines import loo_tables_by_counting, loo_tables_by_mining
from manyjudges.orderings.frespa_params import FreSPAParams, _affine_weights, _check_engine, score_from_tables
from manyjudges.orderings.pattern_classes import (
    common_pattern_counts,
    own_pattern_counts,
    support_class_tables,
    unique_orderings,
)

__all__ = ["leave_one_out_tables", "loo_differences_for_settings"]


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
    """Sum the support over ALL patterns (threshold 1), by length, per distinct held-out ordering.

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
