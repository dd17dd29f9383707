"""manyjudges.core.ranks.average_ranks against scipy.stats.rankdata (method='average')."""
import numpy as np
import pytest
from scipy.stats import rankdata

from manyjudges.core.ranks import average_ranks


@pytest.mark.parametrize("k", [0, 1, 2, 5, 17])
def test_average_ranks_match_scipy_with_ties(k):
    rng = np.random.default_rng(k)
    rows = rng.integers(1, max(2, k // 2 + 1), size=(30, k)).astype(float)  # many ties
    expected = rankdata(rows, method="average", axis=1) if k else np.empty((30, 0))
    np.testing.assert_array_equal(average_ranks(rows), expected)


def test_average_ranks_of_one_row_and_of_distinct_values():
    np.testing.assert_array_equal(average_ranks([3.0, 1.0, 2.0]), [[3.0, 1.0, 2.0]])
    np.testing.assert_array_equal(average_ranks([[1, 2, 2, 4], [5, 5, 5, 5]]), [[1, 2.5, 2.5, 4], [2.5] * 4])


def test_a_row_with_nan_is_all_nan_as_in_scipy():
    rows = np.array([[1.0, np.nan, 2.0], [2.0, 1.0, 1.0]])
    out = average_ranks(rows)
    assert np.isnan(out[0]).all()
    np.testing.assert_array_equal(out[1], rankdata(rows[1], method="average"))
    assert np.isnan(rankdata(rows[0], method="average")).all()
