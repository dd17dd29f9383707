"""Position bias of each judge.

How often the answer shown first wins, and how often a verdict changes when the two answers are
shown in the other order.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from manyjudges.arena.judges.wilson import _wilson_interval

__all__ = ["position_bias"]


def _class_shares(judge: np.ndarray, unit: np.ndarray, classes: np.ndarray, n_units: int,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count each judge's verdicts per unit, by class.

    Returns (judge code, unit code, counts (groups x 3)) of every (judge, unit) group, sorted by
    judge then unit. ``weights`` (default 1) select or weigh the rows.
    """
    key = judge.astype(np.int64) * n_units + unit
    groups, group = np.unique(key, return_inverse=True)
    w = np.ones(len(judge)) if weights is None else np.asarray(weights, dtype=float)
    counts = np.bincount(group * 3 + classes, weights=w, minlength=3 * len(groups)).reshape(-1, 3)
    return groups // n_units, groups % n_units, counts


def position_bias(judge: np.ndarray, unit: np.ndarray, shown: np.ndarray, swapped: np.ndarray,
                  canonical: np.ndarray, n_judges: int, n_units: int, level: float = 0.95) -> pd.DataFrame:
    """Per judge: verdicts, the shown-first answer's win rate with its Wilson interval, flips and ties.

    Parameters
    ----------
    judge, unit : numpy.ndarray
        Each verdict's judge code (0..n_judges-1) and unit code (prompt, unordered pair).
    shown : numpy.ndarray
        0 = the answer shown first wins, 1 = the second, 2 = tie.
    swapped : numpy.ndarray
        Whether the unit's model_2 was shown first (the verdict's order).
    canonical : numpy.ndarray
        0 = model_1 wins, 1 = model_2 wins, 2 = tie (:mod:`manyjudges.arena.verdict_codes`).
    n_judges, n_units : int
    level : float
        Level of the Wilson interval.

    Returns
    -------
    pandas.DataFrame
        One row per judge code, columns

        - ``verdicts``: the judge's verdicts; ``decisive``: those that are not ties;
        - ``first_win_rate`` = (verdicts won by the answer shown first) / ``decisive``, NaN without a
          decisive verdict; 0.5 is no position bias; ``first_win_low``, ``first_win_high``: its Wilson
          score interval at ``level`` (:func:`~manyjudges.arena.judges.wilson._wilson_interval`);
        - ``flip_pairs``: the units the judge saw in both orders (at least one verdict with model_1
          shown first and one with model_2 shown first);
        - ``flip_rate``: the mean over those units of 1 - sum_c f_c r_c / (F R), with f_c (r_c) the
          judge's verdicts of canonical class c with model_1 (model_2) shown first and F, R their totals:
          the share of (one order, other order) verdict pairs that name different winners, a tie being
          a winner of its own. With one verdict in each order a unit is consistent (0) when both name
          the same model or both are ties, and flipped (1) otherwise, as the consistency under swapped positions of
          Zheng et al. (2023); NaN when the judge has no such unit;
        - ``tie_rate``: the share of the judge's verdicts that are ties.
    """
    verdicts = np.bincount(judge, minlength=n_judges).astype(float)
    decisive = np.bincount(judge, weights=shown < 2, minlength=n_judges)
    first = np.bincount(judge, weights=shown == 0, minlength=n_judges)
    ties = np.bincount(judge, weights=shown == 2, minlength=n_judges)
    low, high = _wilson_interval(first, decisive, level)
    forward_judge, _, forward = _class_shares(judge, unit, canonical, n_units, weights=~swapped)
    _, _, reverse = _class_shares(judge, unit, canonical, n_units, weights=swapped)
    f_total, r_total = forward.sum(axis=1), reverse.sum(axis=1)
    both = (f_total > 0) & (r_total > 0)
    consistent = (forward[both] * reverse[both]).sum(axis=1) / (f_total[both] * r_total[both])
    flip_pairs = np.bincount(forward_judge[both], minlength=n_judges)
    flips = np.bincount(forward_judge[both], weights=1.0 - consistent, minlength=n_judges)
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "verdicts": verdicts.astype(np.int64), "decisive": decisive.astype(np.int64),
            "first_win_rate": np.where(decisive > 0, first / decisive, np.nan),
            "first_win_low": low, "first_win_high": high,
            "flip_pairs": flip_pairs.astype(np.int64),
            "flip_rate": np.where(flip_pairs > 0, flips / flip_pairs, np.nan),
            "tie_rate": ties / verdicts,
        })
