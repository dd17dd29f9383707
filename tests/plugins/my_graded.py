"""Example user graded predictors, loaded as `my_graded:PriorOnly` (and a broken one for the tests)."""
import numpy as np

from manyjudges.graded.base import GradedMethod


class PriorOnly(GradedMethod):
    """Predicts the training panel's label shares (add-1/2 smoothed) for every item; no parameters."""

    name = "prior_only"

    def __init__(self, smoothing: float = 0.5):
        self.smoothing = smoothing

    def choose_parameters(self, train):
        return {}

    def predict(self, state, params):
        train = state
        counts = np.bincount(train.label, minlength=train.n_classes) + self.smoothing
        return np.tile(counts / counts.sum(), (train.n_items, 1))


class _NoPredict:
    def fit(self, panel):
        return self

    def prepare(self, train):
        return train


def no_predict():
    """A broken factory: its object has fit and prepare but no predict_proba."""
    return _NoPredict()
