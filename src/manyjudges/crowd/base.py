"""The crowd aggregator interface (scikit-learn / crowd-kit style estimators).

An aggregator is built with its parameters, ``fit(topic)`` on one topic's
:class:`~manyjudges.crowd.judgments.TopicJudgments`, and then has

- ``scores_`` : (n,) float array, higher = ranked higher (aligned with ``topic.items``);
- ``skills_`` : (m,) float array of per-judge skill (aligned with ``topic.judges``;
  NaN for a judge the method could not rate), or None when the method has no skill;
- ``ranking_`` : (n,) item indices, best first: scores descending (at 12 significant digits),
  ties by item index. The experiments break ties by a hash of the item id instead
  (:func:`manyjudges.crowd.experiment.item_tiebreak`), so that id order, which can correlate
  with relevance (trec_rf10 doc ids do), cannot favour a method with many ties.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from manyjudges.core.estimator import Estimator, check_is_fitted
from manyjudges.crowd.judgments import TopicJudgments


def comparable_scores(scores: np.ndarray, digits: int = 12) -> np.ndarray:
    """Scores rounded to ``digits`` significant digits of the largest |score|.

    Scores that are equal in exact arithmetic can differ by ~1e-16 after FFTs and sums; ranking
    on the rounded values lets such ties be broken by the stated rule, not by round-off.
    """
    scores = np.asarray(scores, dtype=float)
    scale = float(np.max(np.abs(scores))) if scores.size else 0.0
    if not np.isfinite(scale) or scale == 0.0:
        return scores
    return np.round(scores / scale, digits)


def ranking_from_scores(scores: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Item indices by score descending (scores compared at 12 significant digits).

    Equal scores are ordered by ``tiebreak`` (ascending; default the item index).
    """
    scores = comparable_scores(scores)
    key = np.arange(len(scores)) if tiebreak is None else np.asarray(tiebreak)
    return np.lexsort((np.arange(len(scores)), key, -scores))


class CrowdAggregator(Estimator):
    """Base class: subclasses implement ``_fit(topic) -> (scores, skill or None)``."""

    name: str = "aggregator"
    scores_: np.ndarray
    skills_: np.ndarray | None

    def fit(self, topic: TopicJudgments) -> CrowdAggregator:
        """Aggregate one topic: sets ``scores_``, ``skills_`` (and ``ranking_``); returns self."""
        self._check_params()
        scores, skill = self._fit(topic)
        scores = np.asarray(scores, dtype=float)
        if scores.shape != (topic.n_items,):
            raise ValueError(f"{type(self).__name__} returned {scores.shape} scores for {topic.n_items} items")
        self.scores_ = scores
        self.skills_ = None if skill is None else np.asarray(skill, dtype=float)
        return self

    @property
    def quality_(self) -> np.ndarray | None:
        """The former name of :attr:`skills_` (the truth family's name for the same concept); deprecated."""
        warnings.warn("quality_ is now skills_ (one name for a judge's skill in every family)", DeprecationWarning,
                      stacklevel=2)
        check_is_fitted(self, "skills_")
        return self.skills_

    def fit_predict(self, topic: TopicJudgments) -> pd.Series:
        """Run ``fit(topic)``, then return the scores as a Series indexed by the topic's item ids.

        The Series is named ``score``, higher = better (crowd-kit's ``fit_predict`` of its ranking
        aggregators).
        """
        self.fit(topic)
        return pd.Series(self.scores_, index=pd.Index(topic.items, name="item"), name="score")

    @property
    def ranking_(self) -> np.ndarray:
        """(n,) item indices, best first (see the module docstring); NotFittedError before ``fit``."""
        check_is_fitted(self, "scores_")
        return ranking_from_scores(self.scores_)

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:  # pragma: no cover
        raise NotImplementedError
