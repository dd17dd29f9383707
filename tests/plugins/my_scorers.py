"""An example user scorer, loaded by the pipeline as `my_scorers:kendall_to_first`."""
import numpy as np
from scipy.stats import kendalltau


def kendall_to_first(offset: float = 0.0):
    """Score = normalised Kendall tau to the first gold ordering (a deliberately naive method)."""

    def scorer(gold):
        first = gold[0]

        def score(candidates):
            return np.array([(kendalltau(c, first).statistic + 1) / 2 + offset for c in candidates])

        return score

    return scorer
