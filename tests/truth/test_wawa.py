"""Wawa (truth/methods/wawa.py): a hand-computed case, a loop-based reference, crowd-kit's Wawa item for item."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from manyjudges.truth import Wawa

from .mv_panels import crowdkit_wawa, simulated_table

HAND = pd.DataFrame({
    "item":   [1, 1, 1, 2, 2, 3, 3, 3],
    "judge": ["u", "v", "w", "u", "w", "u", "v", "w"],
    "label":  [0, 0, 1, 1, 0, 1, 1, 0],
})


def test_hand_computed():
    # majority: 1 -> 0, 2 -> tie {0, 1} -> 0 (lowest), 3 -> 1
    # agreement: u (1: 0 yes, 2: 1 no, 3: 1 yes) 2/3; v (1 yes, 3 yes) 1; w (1: 1 no, 2: 0 yes, 3: 0 no) 1/3
    # weighted: 1: 0 <- u + v = 5/3, 1 <- w = 1/3; 2: 1 <- u = 2/3, 0 <- w = 1/3; 3: 1 <- u + v = 5/3, 0 <- 1/3
    wawa = Wawa().fit(HAND)
    assert wawa.skills_.to_dict() == pytest.approx({"u": 2 / 3, "v": 1.0, "w": 1 / 3})
    assert wawa.labels_.to_dict() == {1: 0, 2: 1, 3: 1}  # item 2 flips from the vote's tie to u's label
    np.testing.assert_allclose(wawa.proba_.to_numpy(), [[5 / 6, 1 / 6], [1 / 3, 2 / 3], [1 / 6, 5 / 6]], atol=1e-15)


def loop_reference(table: pd.DataFrame):
    """Wawa with dictionaries and loops: majority (lowest class on ties), agreement, weighted vote."""
    votes = defaultdict(lambda: defaultdict(int))
    for item, label in zip(table["item"], table["label"]):
        votes[item][label] += 1
    majority = {i: min(c for c in v if v[c] == max(v.values())) for i, v in votes.items()}
    agree, total = defaultdict(int), defaultdict(int)
    for item, judge, label in table[["item", "judge", "label"]].itertuples(index=False):
        agree[judge] += label == majority[item]
        total[judge] += 1
    skill = {w: agree[w] / total[w] for w in total}
    weights = defaultdict(lambda: defaultdict(float))
    for item, judge, label in table[["item", "judge", "label"]].itertuples(index=False):
        weights[item][label] += skill[judge]
    labels = {i: max(sorted(w), key=lambda c: w[c]) for i, w in weights.items()}  # first max = lowest
    return labels, skill


@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3)])
def test_matches_loop_reference(seed, k):
    table, _ = simulated_table(seed, n_items=120, n_judges=9, k=k, per_item=4, accuracy=(0.3, 0.9))
    labels, skill = loop_reference(table)
    wawa = Wawa().fit(table)
    assert wawa.labels_.to_dict() == labels
    assert wawa.skills_.to_dict() == pytest.approx(skill, abs=1e-15)


def test_bad_ties():
    with pytest.raises(ValueError, match="ties"):
        Wawa(ties="random").fit(HAND)


@pytest.mark.filterwarnings("ignore:The inplace keyword")
@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3), (2, 4)])
def test_matches_crowdkit_item_for_item(seed, k):
    pytest.importorskip("crowdkit")
    table, _ = simulated_table(seed, n_items=150, n_judges=8, k=k, per_item=4, accuracy=(0.3, 0.9))
    ck_labels, ck_probas, ck_skills = crowdkit_wawa(table)
    ours = Wawa(ties="first").fit(table)
    assert (ours.labels_ == ck_labels.reindex(ours.labels_.index)).all()
    probas = ck_probas.reindex(index=ours.proba_.index, columns=ours.proba_.columns, fill_value=0.0)
    np.testing.assert_allclose(ours.proba_.to_numpy(), probas.to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.skills_.to_numpy(), ck_skills.reindex(ours.skills_.index).to_numpy(), atol=1e-15)
