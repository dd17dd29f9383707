"""Ranks and percentile intervals of bootstrap replicates of model scores.

Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 13 (percentile
intervals). The rank of a model in a replicate is computed in that replicate, so a rank
interval reflects how the whole order moves together, not each score alone.
"""
from __future__ import annotations

import numpy as np


def _competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Ranks of each row's scores, 1 = best: 1 + the number of models with a strictly higher score.

    Equal scores share the best rank of their group ("1, 2, 2, 4"). NaN (a model absent from
    the replicate) gets rank NaN and is not counted against the others: ranks are among the
    models present. ``scores``: (replicates, models) or (models,).
    """
    scores = np.asarray(scores, dtype=float)
    flat = np.atleast_2d(scores)
    present = ~np.isnan(flat)
    filled = np.where(present, flat, -np.inf)
    order = np.sort(filled, axis=1)  # ascending; absent models (-inf) first
    n = flat.shape[1]
    # models present with a strictly higher score = n - (position of the first value > x)
    above = n - np.array([np.searchsorted(row, x, side="right") for row, x in zip(order, filled)])
    ranks = np.where(present, 1.0 + above, np.nan)
    return ranks.reshape(scores.shape)


def _percentile_intervals(replicates: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ci_low, ci_high, rank_low, rank_high)`` per model from (replicates, models) scores.

    Scores: the (1 - ci) / 2 and (1 + ci) / 2 quantiles of the model's replicate scores (numpy's
    default linear interpolation, Hyndman and Fan's type 7). Ranks (:func:`_competition_ranks`,
    per replicate): the lower quantile rounded down to an observed rank (``method="lower"``) and
    the upper rounded up (``method="higher"``), so a rank interval is a pair of ranks seen in the
    replicates. A model's NaN replicates (absent from them) are left out of its quantiles; all
    NaN gives NaN.
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    replicates = np.asarray(replicates, dtype=float)
    n = replicates.shape[1]
    ranks = _competition_ranks(replicates)
    lo_q, hi_q = (1.0 - ci) / 2.0, (1.0 + ci) / 2.0
    out = np.full((4, n), np.nan)
    for j in range(n):
        seen = ~np.isnan(replicates[:, j])
        if not seen.any():
            continue
        col, rank = replicates[seen, j], ranks[seen, j]
        out[0, j], out[1, j] = np.quantile(col, [lo_q, hi_q])
        out[2, j] = np.quantile(rank, lo_q, method="lower")
        out[3, j] = np.quantile(rank, hi_q, method="higher")
    return out[0], out[1], out[2], out[3]
