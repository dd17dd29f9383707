"""An example user scorer, loaded by the pipeline as `my_scorers:KendallToFirst`."""
import numpy as np
from scipy.stats import kendalltau

from manyjudges.orderings import OrderingScorer


class KendallToFirst(OrderingScorer):
    """Score = normalised Kendall tau to the first gold ordering, plus ``offset`` (a deliberately naive method)."""

    def __init__(self, offset: float = 0.0):
        self.offset = offset

    def score(self, candidates):
        first = self.gold_[0]
        return np.array([(kendalltau(c, first).statistic + 1) / 2 + self.offset for c in candidates])


class NotAScorer:
    """Has fit but no score: the registry rejects it."""

    def fit(self, gold):
        return self
