"""The toy family's methods: estimators with the library's contract (parameters from the constructor,
``fit_predict`` on a long table, results indexed by item id)."""
from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd

from manyjudges.core.estimator import Estimator
from manyjudges.core.natural_order import natural_sort
from manyjudges.core.parameters import Interval

__all__ = ["ItemMean", "ItemMedian", "in_natural_order", "read_scores"]


def read_scores(path) -> pd.DataFrame:
    """``item, judge, score`` (TSV); a score that is not a number is a ValueError naming file, line and value."""
    table = pd.read_csv(path, sep="\t", dtype={"item": str, "judge": str, "score": str})
    missing = {"item", "judge", "score"} - set(table.columns)
    if missing:
        raise ValueError(f"{path}: line 1: the header lacks {sorted(missing)}")
    score = pd.to_numeric(table["score"], errors="coerce")
    bad = np.flatnonzero(score.isna().to_numpy())
    if len(bad):
        raise ValueError(f"{path}: line {bad[0] + 2}: score is not a number: {table['score'].iloc[bad[0]]!r}")
    return table.assign(score=score)


def in_natural_order(scores: pd.Series) -> pd.Series:
    """Scores by item, in the order of every table of manyjudges (natural_sort: 2 before 10 when every id
    is a number, else as text)."""
    return scores.loc[natural_sort(scores.index)].rename("score")


class ItemMean(Estimator):
    """Each item's trimmed mean: the ``trim`` share of its scores at each end left out (scipy.stats.trim_mean)."""

    _parameter_constraints = {"trim": [Interval(Real, 0, 0.5, closed="left")]}

    def __init__(self, trim: float = 0.0) -> None:
        self.trim = trim

    def fit_predict(self, table: pd.DataFrame) -> pd.Series:
        from scipy.stats import trim_mean

        self._check_params()
        self.scores_ = in_natural_order(table.groupby("item")["score"].agg(lambda s: trim_mean(s, self.trim)))
        return self.scores_


class ItemMedian(Estimator):
    """Each item's median score."""

    def fit_predict(self, table: pd.DataFrame) -> pd.Series:
        self.scores_ = in_natural_order(table.groupby("item")["score"].median())
        return self.scores_
