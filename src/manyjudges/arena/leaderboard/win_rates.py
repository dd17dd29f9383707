"""Expected win rates of the leaderboard's models: a plain-language reading of their scores.

A score difference d = s_i - s_ref becomes the probability that model i beats a reference model, by
the curve of the method's own model:

- log-strengths (``bradley_terry``, ``crowd_bt``, ``judge_aware`` and any other rating): the
  Bradley-Terry curve sigma(d) = 1 / (1 + e^{-d}) (Bradley and Terry 1952);
- Elo points (``elo``): the Elo curve 1 / (1 + 10^{-d / scale}), scale 400 by default (Elo 1978);
- ``davidson``: the win probability with ties counted half,
  (e^{d/2} + nu / 2) / (e^{d/2} + e^{-d/2} + nu) (Davidson 1970, nu = e^theta the fitted tie parameter).

Every curve gives 0.5 at d = 0. The reference is the pool's average model, a model whose score is the
mean score of the models (0: the scores are centred), or a baseline model of the pool. Bootstrap
intervals of the win rate are the percentiles of the replicates' win rates: against the average model
the replicate's score minus the full-data mean (the replicates keep the full data's centring), against
a baseline the replicate's score minus the baseline's score in the same replicate; Davidson's nu is the
full-data fit's in every replicate.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import expit

from manyjudges.arena.leaderboard.davidson import Davidson
from manyjudges.arena.leaderboard.ratings import ArenaElo, ArenaRating, RatingFit

__all__ = ["WinCurve", "win_curve", "win_rates"]

#: a curve from score differences to expected win rates
WinCurve = Callable[[np.ndarray], np.ndarray]


def _logistic_win_rate(d: np.ndarray) -> np.ndarray:
    """Return sigma(d) = 1 / (1 + e^{-d}): P(i beats j) of Bradley-Terry with d = s_i - s_j (log-strengths)."""
    return np.asarray(expit(np.asarray(d, dtype=float)), dtype=float)


def _elo_win_rate(d: np.ndarray, scale: float = 400.0) -> np.ndarray:
    """Return the Elo curve 1 / (1 + 10^{-d / scale}) with d = R_i - R_j in Elo points."""
    return _logistic_win_rate(np.asarray(d, dtype=float) * np.log(10.0) / scale)


def _davidson_win_rate(d: np.ndarray, theta: float) -> np.ndarray:
    """Return Davidson's P(i beats j) + P(tie) / 2 = (e^{d/2} + nu / 2) / (e^{d/2} + e^{-d/2} + nu), nu = e^theta.

    Computed in logs (log-sum-exp), so a huge nu (ties only) gives 0.5, not NaN.
    """
    half = 0.5 * np.asarray(d, dtype=float)
    with np.errstate(invalid="ignore"):  # NaN (an absent model) stays NaN
        numerator = np.logaddexp(half, theta - np.log(2.0))
        denominator = np.logaddexp(np.logaddexp(half, -half), theta)
    return np.asarray(np.exp(numerator - denominator), dtype=float)


def win_curve(rating: ArenaRating, fit: RatingFit) -> WinCurve:
    """Return the win-rate curve of a rating's scores (module docstring): Elo, Davidson or Bradley-Terry."""
    if isinstance(rating, ArenaElo):
        scale = float(rating.scale)
        return lambda d: _elo_win_rate(d, scale)
    if isinstance(rating, Davidson) and fit.extra is not None:
        theta = float(fit.extra[0])
        return lambda d: _davidson_win_rate(d, theta)
    return _logistic_win_rate


def win_rates(scores: np.ndarray, replicates: np.ndarray, curve: WinCurve, ci: float,
              baseline: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(win_rate, win_low, win_high)`` per model against the average model or model ``baseline``.

    ``win_rate = curve(s_i - ref)`` with ref = mean(s) or s_baseline; the interval is the (1 - ci) / 2
    and (1 + ci) / 2 quantiles (numpy's linear interpolation) of the replicates' win rates (module
    docstring), NaN replicates (the model or the baseline absent) left out; NaN without replicates.
    """
    scores = np.asarray(scores, dtype=float)
    replicates = np.asarray(replicates, dtype=float).reshape(-1, len(scores))
    if baseline is None:
        rate, rep = curve(scores - scores.mean()), curve(replicates - scores.mean())
    else:
        rate, rep = curve(scores - scores[baseline]), curve(replicates - replicates[:, [baseline]])
        rate[baseline] = 0.5
        rep[:, baseline] = np.where(np.isnan(replicates[:, baseline]), np.nan, 0.5)
    low = np.full(len(scores), np.nan)
    high = np.full(len(scores), np.nan)
    seen = ~np.isnan(rep)
    some = seen.any(axis=0)
    if some.any():
        lo_q, hi_q = (1.0 - ci) / 2.0, (1.0 + ci) / 2.0
        low[some], high[some] = np.nanquantile(rep[:, some], [lo_q, hi_q], axis=0)
    return rate, low, high
