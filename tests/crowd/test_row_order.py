"""The same crowd judgments in any row order give the same rankings, scores and skills: every
aggregator, on preferences and on ratings."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.crowd.data import CrowdDataset
from manyjudges.crowd.experiment import aggregate_dataset
from manyjudges.crowd.judgments import topics_from_preferences, topics_from_ratings
from manyjudges.crowd.registry import _CROWD_METHODS
from manyjudges.crowd.simulate import simulate_crowd


def orders(table: pd.DataFrame) -> list[pd.DataFrame]:
    """The table as given, reversed, and shuffled."""
    return [table, table.iloc[::-1], table.iloc[np.random.default_rng(5).permutation(len(table))]]


@pytest.fixture(scope="module")
def preferences():
    prefs, _, _ = simulate_crowd(3, n_topics=2, n_items=8, n_judges=6, pairs_per_judge=10,
                                 judge_mix={"good": 0.7, "random": 0.2, "malicious": 0.1}, good_accuracy=0.8)
    return prefs


@pytest.fixture(scope="module")
def ratings():
    rng = np.random.default_rng(8)
    rows = [(f"t{t}", f"w{w}", f"d{d}", int(rng.integers(0, 4))) for t in range(2) for w in range(5)
            for d in rng.choice(9, 6, replace=False)]
    return pd.DataFrame(rows, columns=["topic", "judge", "item", "grade"])


def assert_same(runs):
    for rankings, skill, _ in runs[1:]:
        pd.testing.assert_frame_equal(rankings, runs[0][0], check_exact=False, rtol=0, atol=1e-6)
        pd.testing.assert_frame_equal(skill, runs[0][1], check_exact=False, rtol=0, atol=1e-6)


@pytest.mark.parametrize("method", sorted(_CROWD_METHODS))
def test_every_aggregator_is_the_same_in_any_row_order(preferences, ratings, method):
    spec = {"method": method}
    assert_same([aggregate_dataset(CrowdDataset(topics_from_preferences(t), {}), method, spec)
                 for t in orders(preferences)])
    assert_same([aggregate_dataset(CrowdDataset(topics_from_ratings(t), {}), method, spec) for t in orders(ratings)])


def test_topics_are_the_same_arrays_in_any_row_order(preferences, ratings):
    for build, table in ((topics_from_preferences, preferences), (topics_from_ratings, ratings)):
        runs = [build(t) for t in orders(table)]
        for topics in runs[1:]:
            for name, topic in topics.items():
                first = runs[0][name]
                for field in ("judge", "left", "right", "outcome", "rating_judge", "rating_item", "rating_grade"):
                    a, b = getattr(topic, field), getattr(first, field)
                    assert (a is None and b is None) or np.array_equal(a, b), field
