"""The crowd aggregator interface (scikit-learn / crowd-kit style estimators).

An aggregator is built with its parameters, ``fit(topic)`` on one topic's
:class:`~manyjudges.crowd.judgments.TopicJudgments`, and then has

- ``scores_`` : (n,) float array, higher = ranked higher (aligned with ``topic.items``);
- ``quality_`` : (m,) float array of per-worker quality (aligned with ``topic.workers``;
  NaN for a worker the method could not rate), or None when the method has no quality;
- ``ranking_`` : (n,) item indices, best first: scores descending, ties by item index.
"""
from __future__ import annotations

import numpy as np

from .judgments import TopicJudgments


def ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """Item indices by score descending; equal scores keep item order (stable, deterministic)."""
    scores = np.asarray(scores, dtype=float)
    return np.lexsort((np.arange(len(scores)), -scores))


class CrowdAggregator:
    """Base class: subclasses implement ``_fit(topic) -> (scores, quality or None)``."""

    name: str = "aggregator"
    scores_: np.ndarray
    quality_: np.ndarray | None

    def fit(self, topic: TopicJudgments) -> "CrowdAggregator":
        scores, quality = self._fit(topic)
        scores = np.asarray(scores, dtype=float)
        if scores.shape != (topic.n_items,):
            raise ValueError(f"{type(self).__name__} returned {scores.shape} scores for {topic.n_items} items")
        self.scores_ = scores
        self.quality_ = None if quality is None else np.asarray(quality, dtype=float)
        return self

    @property
    def ranking_(self) -> np.ndarray:
        return ranking_from_scores(self.scores_)

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:  # pragma: no cover
        raise NotImplementedError
