"""Coming from crowd-kit: the same DataFrame (``task, worker, label``) into our estimators and
crowd-kit's gives Series and DataFrames of the same shape and index, and the same labels where
the models agree (an easy binary panel: every method recovers the truth)."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.truth import TRUTH_METHODS
from manyjudges.truth.registry import make_truth_estimator
from manyjudges.truth.simulate import simulate_labels

crowdkit = pytest.importorskip("crowdkit.aggregation")

#: our method -> crowd-kit's aggregator of the same model (docs/methods.md, "Coming from crowd-kit")
PAIRS = {"majority_vote": "MajorityVote", "wawa": "Wawa", "dawid_skene": "DawidSkene",
         "one_coin_dawid_skene": "OneCoinDawidSkene", "glad": "GLAD", "mace": "MACE"}


def their_labels(name: str, df: pd.DataFrame) -> pd.Series:
    """crowd-kit's ``fit_predict``; its Wawa as ``Wawa.predict`` runs it (fit, then the skill-weighted
    majority vote), since ``Wawa.predict`` fails in scikit-learn's ``check_is_fitted`` from 1.6 on."""
    if name == "Wawa":
        return crowdkit.MajorityVote().fit(df, skills=crowdkit.Wawa().fit(df).skills_).labels_
    return getattr(crowdkit, name)().fit_predict(df)


@pytest.fixture(scope="module")
def tasks():
    """crowd-kit's columns: task, worker, label (binary, 5 labels an item: majority votes never tie)."""
    labels, truth, _ = simulate_labels(np.random.default_rng(21), n_items=80, n_judges=12, labels_per_item=5,
                                       n_classes=2, judge_mix={"good": 1.0}, good_accuracy=0.95)
    return labels.rename(columns={"item": "task", "judge": "worker"}), truth.set_index("item")["truth"]


@pytest.mark.parametrize("ours, theirs", sorted(PAIRS.items()))
def test_fit_predict_matches_crowdkits_shape_index_and_labels(tasks, ours, theirs):
    df, truth = tasks
    estimator = make_truth_estimator(ours)
    mine = estimator.fit_predict(df)
    other = their_labels(theirs, df)
    assert isinstance(mine, pd.Series) and mine.shape == other.shape
    assert sorted(mine.index) == sorted(other.index)
    assert mine.index.name == "item"
    pd.testing.assert_series_equal(mine.sort_index(), other.sort_index(), check_names=False, check_dtype=False)
    assert (mine.sort_index() == truth.sort_index()).all()  # the easy panel: every method gets every item right

    proba = make_truth_estimator(ours).fit_predict_proba(df)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    pd.testing.assert_frame_equal(proba, estimator.proba_)
    if ours == "wawa":  # crowd-kit 1.4's Wawa.fit_predict_proba fails as its predict does
        return
    other_proba = getattr(crowdkit, theirs)().fit_predict_proba(df)
    assert proba.shape == other_proba.shape
    assert sorted(proba.index) == sorted(other_proba.index) and sorted(proba.columns) == sorted(other_proba.columns)
    if ours == "majority_vote":  # the same numbers: each class's share of the item's labels
        np.testing.assert_allclose(proba.sort_index()[sorted(proba.columns)],
                                   other_proba.sort_index()[sorted(other_proba.columns)], atol=1e-12)


def test_task_is_read_as_item_and_the_fit_is_the_same(tasks):
    df, _ = tasks
    for method in sorted(TRUTH_METHODS):
        a = make_truth_estimator(method).fit(df)
        b = make_truth_estimator(method).fit(df.rename(columns={"task": "item"}))
        pd.testing.assert_frame_equal(a.proba_, b.proba_)
