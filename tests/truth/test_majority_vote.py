"""MajorityVote (manyjudges.truth.methods.majority_vote): hand-computed votes, shares, ties and agreement
rates; the tie rules against brute force; crowd-kit's MajorityVote item for item."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth import MajorityVote
from manyjudges.truth.methods.majority_vote import _first_seen_order

from .mv_panels import for_crowdkit, simulated_table

HAND = pd.DataFrame({  # a: 0 0 1 -> 0; b: 1 0 (tie); c: 2 2 1 0 -> 2; d: 1 -> 1
    "item":   ["a", "a", "a", "b", "b", "c", "c", "c", "c", "d"],
    "judge": ["u", "v", "w", "u", "v", "u", "v", "w", "x", "w"],
    "label":  [0, 0, 1, 1, 0, 2, 2, 1, 0, 1],
})


def test_hand_computed_votes_shares_and_skills():
    mv = MajorityVote().fit(HAND)
    assert mv.labels_.to_dict() == {"a": 0, "b": 0, "c": 2, "d": 1}  # b's tie: the lowest class
    expected = np.array([[2, 1, 0], [1, 1, 0], [1, 1, 2], [0, 1, 0]]) / np.array([[3], [2], [4], [1]])
    np.testing.assert_allclose(mv.proba_.to_numpy(), expected, rtol=0, atol=1e-15)
    assert list(mv.proba_.columns) == [0, 1, 2] and list(mv.proba_.index) == ["a", "b", "c", "d"]
    # u: a 0 yes, b 1 no (b -> 0), c 2 yes -> 2/3; v: a, b, c yes -> 1; w: a 1 no, c 1 no, d 1 yes -> 1/3; x: no
    assert mv.skills_.to_dict() == pytest.approx({"u": 2 / 3, "v": 1.0, "w": 1 / 3, "x": 0.0})
    assert mv.confusions_ is None and mv.n_iter_ == 0


def test_first_rule_follows_the_table_order():
    # b's tie is {0, 1}; class 0 first appears in row 1, class 1 in row 3 -> 0; reversed rows -> 1 first seen
    assert MajorityVote(ties="first").fit(HAND).labels_["b"] == 0
    reverse = HAND.iloc[::-1]
    assert list(_first_seen_order(as_crowd_labels(reverse))) == [1, 0, 2]
    assert MajorityVote(ties="first").fit(reverse).labels_["b"] == 1
    assert MajorityVote(ties="lowest").fit(reverse).labels_["b"] == 0


def test_repeated_labels_each_count():
    table = pd.DataFrame({"item": [1, 1, 1], "judge": ["u", "u", "v"], "label": [1, 1, 0]})
    with pytest.raises(ValueError, match="repeats"):
        MajorityVote().fit(table)
    mv = MajorityVote().fit(table, duplicates="keep")
    assert mv.labels_[1] == 1 and mv.proba_.loc[1].tolist() == pytest.approx([1 / 3, 2 / 3])
    assert mv.skills_.to_dict() == {"u": 1.0, "v": 0.0}


def test_class_names_and_unused_classes():
    table = pd.DataFrame({"item": [1, 1, 2], "judge": ["u", "v", "u"], "label": ["R", "P", "R"]})
    mv = MajorityVote().fit(table, classes=["G", "P", "R", "X"])
    assert list(mv.proba_.columns) == ["G", "P", "R", "X"]
    assert mv.labels_.to_dict() == {1: "P", 2: "R"}  # item 1 ties P and R: the lower class, P
    np.testing.assert_allclose(mv.proba_.to_numpy(), [[0, 0.5, 0.5, 0], [0, 0, 1, 0]])


def brute_force_tied_sets(table: pd.DataFrame) -> dict:
    out = {}
    for item, rows in table.groupby("item"):
        counts = rows["label"].value_counts()
        out[item] = set(counts.index[counts == counts.max()])
    return out


def test_random_ties_uniform_among_tied_and_reproducible():
    rng = np.random.default_rng(3)
    n = 1500  # every item: one label of each of 3 classes (a 3-way tie), plus 300 items with a clear winner
    item = np.repeat(np.arange(n), 3)
    label = np.tile([0, 1, 2], n)
    clear = np.arange(n, n + 300)
    item = np.r_[item, np.repeat(clear, 2)]
    label = np.r_[label, np.repeat(rng.integers(0, 3, 300), 2)]
    table = pd.DataFrame({"item": item, "judge": np.arange(item.size), "label": label})
    a = MajorityVote(ties="random", random_state=7).fit(table).labels_
    b = MajorityVote(ties="random", random_state=7).fit(table).labels_
    c = MajorityVote(ties="random", random_state=8).fit(table).labels_
    pd.testing.assert_series_equal(a, b)
    assert (a != c).any()
    tied = brute_force_tied_sets(table)
    assert all(a[i] in tied[i] for i in a.index)
    shares = a.iloc[:n].value_counts(normalize=True).sort_index()
    np.testing.assert_allclose(shares.to_numpy(), 1 / 3, atol=0.04)


@pytest.mark.parametrize("ties,random_state", [("middle", 0), ("random", -1), ("random", 1.5), ("lowest", True)])
def test_bad_parameters(ties, random_state):
    with pytest.raises(ValueError, match="ties|random_state"):
        MajorityVote(ties=ties, random_state=random_state).fit(HAND)


@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3), (2, 4)])
@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_matches_crowdkit_item_for_item(seed, k):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    table, _ = simulated_table(seed, n_items=150, n_judges=8, k=k, per_item=4, accuracy=(0.4, 0.8))
    ck = crowdkit.MajorityVote()
    ck_labels = ck.fit_predict(for_crowdkit(table))
    ours = MajorityVote(ties="first").fit(table)
    assert (ours.proba_.max(axis=1) < 0.51).sum() > 10  # many ties to break
    pd.testing.assert_series_equal(ours.labels_, ck_labels.reindex(ours.labels_.index), check_names=False,
                                   check_index_type=False)
    probas = ck.probas_.reindex(index=ours.proba_.index, columns=ours.proba_.columns, fill_value=0.0)
    np.testing.assert_allclose(ours.proba_.to_numpy(), probas.to_numpy(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(ours.skills_.to_numpy(), ck.skills_.reindex(ours.skills_.index).to_numpy(), atol=1e-15)
    # "lowest" is crowd-kit's rule when the classes first appear in ascending order in the table
    ascending = pd.concat([table.sort_values("label").groupby("label").head(1), table]).drop_duplicates()
    assert list(pd.unique(ascending["label"])) == list(range(k))
    lowest = MajorityVote(ties="lowest").fit(ascending).labels_
    ck_lowest = crowdkit.MajorityVote().fit_predict(for_crowdkit(ascending))
    assert (lowest == ck_lowest.reindex(lowest.index)).all()
