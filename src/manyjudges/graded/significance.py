"""Pairwise comparison of two methods on one judge (Wilbur and Kim, Tables 4 and 5).

Per label of judge k, d = P_A(true label) - P_B(true label). Counts of A better (d > 0),
B better (d < 0) and ties (|d| <= ``tie_tolerance``), and the two-sided Wilcoxon signed-rank
p-value of the differences (scipy.stats.wilcoxon, zero differences dropped, "wilcox").
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

PAIRWISE_COLUMNS = ["judge", "method_a", "method_b", "protocol", "a_better", "b_better", "ties", "p_value"]


def compare_predictions(p_a: npt.ArrayLike, p_b: npt.ArrayLike, tie_tolerance: float = 1e-12
                        ) -> tuple[int, int, int, float]:
    """(a_better, b_better, ties, Wilcoxon p-value) for paired probabilities of the true labels."""
    d = np.asarray(p_a, dtype=float) - np.asarray(p_b, dtype=float)
    if d.size == 0:
        raise ValueError("no paired predictions to compare")
    tie = np.abs(d) <= tie_tolerance
    a_better, b_better = int((d > 0)[~tie].sum()), int((d < 0)[~tie].sum())
    nonzero = d[~tie]
    from scipy.stats import wilcoxon  # here: the prediction jobs import this package but never test

    p_value = float(wilcoxon(nonzero).pvalue) if nonzero.size else 1.0
    return a_better, b_better, int(tie.sum()), p_value


def pairwise_tests(predictions: pd.DataFrame, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """Rows of PAIRWISE_COLUMNS for every judge, protocol and (A, B) pair both methods have.

    ``predictions`` has columns method, protocol, judge, item, p_true.
    """
    rows = []
    for protocol, by_protocol in predictions.groupby("protocol", sort=False):
        methods = set(by_protocol["method"].unique())  # not one Python string per row
        for a, b in pairs:
            if a not in methods or b not in methods:
                continue
            left = by_protocol[by_protocol["method"] == a][["judge", "item", "p_true"]]
            right = by_protocol[by_protocol["method"] == b][["judge", "item", "p_true"]]
            both = left.merge(right, on=["judge", "item"], suffixes=("_a", "_b"), validate="one_to_one")
            if len(both) != len(left) or len(both) != len(right):
                raise ValueError(f"{a} and {b} ({protocol}) did not predict the same labels")
            for judge, g in both.groupby("judge", sort=False):
                rows.append([judge, a, b, protocol, *compare_predictions(g["p_true_a"], g["p_true_b"])])
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)
