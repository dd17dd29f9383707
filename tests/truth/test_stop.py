"""The stop a user can follow: the budget's expected gain against hand sums and a brute-force enumeration of
label outcomes, the stop rule for every policy, a hand two-round replay that stops, and the replay with a
threshold as the prefix of the replay with a smaller one."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.truth import DawidSkene, MajorityVote, as_crowd_labels
from manyjudges.truth.active.advice import _DEFAULT_EXPLORE, _POLICIES, _lookahead_rates, advise, budget_gain
from manyjudges.truth.active.replay import replay, stop_at
from manyjudges.truth.base import TruthFit

CONFUSION = np.array([[0.8, 0.2], [0.2, 0.8]])
#: three items: a tie, 0.6 and 0.9 sure of class 0
POSTERIORS = np.array([[0.5, 0.5], [0.6, 0.4], [0.9, 0.1]])
#: E_0..E_3 of each item by hand from the multinomial sum, judge accuracy 0.8, e.g. item 2, E_3:
#: (3, 0) 0.9 * 0.512 + 3 (2, 1) 0.9 * 0.128 + 3 (1, 2) 0.9 * 0.032 + (0, 3) 0.1 * 0.512 = 0.944
BY_HAND = np.array([[0.5, 0.8, 0.8, 0.896], [0.6, 0.8, 0.832, 0.896], [0.9, 0.9, 0.928, 0.944]])


def _enumerated(posteriors: np.ndarray, m: int) -> np.ndarray:
    """E_m by brute force: every sequence of m labels, P(sequence and the decision right) summed."""
    total = np.zeros(len(posteriors))
    for sequence in itertools.product(range(2), repeat=m):
        likelihood = np.prod([CONFUSION[:, c] for c in sequence], axis=0) if sequence else np.ones(2)
        total += (posteriors * likelihood).max(axis=1)
    return total


def _best_allocation(budget: int) -> float:
    """max over (m_1, m_2, m_3), m_i <= 3, sum m_i = budget, of sum_i E_{m_i}(i) - E_0(i) (brute force)."""
    exact = np.stack([_enumerated(POSTERIORS, m) for m in range(4)], axis=1)
    best = -np.inf
    for ms in itertools.product(range(4), repeat=3):
        if sum(ms) == budget:
            best = max(best, sum(exact[i, m] - exact[i, 0] for i, m in enumerate(ms)))
    return best


def _one_label_each(n_items: int) -> CrowdLabels:
    return as_crowd_labels(pd.DataFrame({"item": [f"i{i}" for i in range(n_items)], "judge": "w", "label": 0}),
                           classes=[0, 1])


def test_the_hand_sums_are_the_enumeration():
    for m in range(4):
        np.testing.assert_allclose(_enumerated(POSTERIORS, m), BY_HAND[:, m], atol=1e-12)


def test_the_budget_gain_is_the_sum_of_the_best_rates_and_the_best_allocation():
    rates = _lookahead_rates(POSTERIORS, CONFUSION)
    # by hand from BY_HAND: the tie's first label 0.3, then (0.896 - 0.8) / 2 for its next two; item 1's first 0.2,
    # then 0.048 twice; item 2 needs three labels, (0.944 - 0.9) / 3 each
    np.testing.assert_allclose(rates, [[0.3, 0.048, 0.048], [0.2, 0.048, 0.048], [0.044 / 3] * 3], atol=1e-12)
    for budget, by_hand in ((1, 0.3), (2, 0.5), (3, 0.548), (4, 0.596), (6, 0.692), (9, 0.736)):
        assert budget_gain(rates, budget) == pytest.approx(by_hand, abs=1e-12)
    # where the envelope's steps end on whole labels, the gain is what the best allocation of B labels earns
    for budget in (1, 2, 4, 6, 9):
        assert budget_gain(rates, budget) == pytest.approx(_best_allocation(budget), abs=1e-12)
    # candidates: item 0 left out, item 1 offered one label
    assert budget_gain(rates, 2, np.array([False, True, True]), np.array([3, 1, 3])) == pytest.approx(0.2 + 0.044 / 3)


@pytest.mark.parametrize("policy", _POLICIES)
def test_every_policy_stops_where_the_gain_per_label_is_below_min_gain(policy):
    data = _one_label_each(3)
    confusions = CONFUSION[None]
    # B = 2: gain 0.5 items, 0.25 per label
    below = advise(data, POSTERIORS, 2, policy=policy, confusions=confusions, stop=None, min_gain=0.26)
    above = advise(data, POSTERIORS, 2, policy=policy, confusions=confusions, stop=None, min_gain=0.24)
    for advice in (below, above):
        assert advice.gain == pytest.approx(0.5) and advice.per_label == pytest.approx(0.25)
        assert advice.gain_accuracy == pytest.approx(0.5 / 3)
        assert advice.accuracy == pytest.approx((0.5 + 0.6 + 0.9) / 3)
    assert below.stopped and len(below.table) == 0 and list(below.table.columns) == ["item", "score"]
    assert not above.stopped and len(above.table) == 2
    # no stop rule: never stops, whatever the gain
    assert not advise(data, POSTERIORS, 2, policy=policy, confusions=confusions, min_gain=None).stopped


def test_exploration_is_every_policys_and_stops_with_the_advice():
    assert isinstance(_DEFAULT_EXPLORE, float)
    data = _one_label_each(3)
    sure = np.array([[0.999, 0.001]] * 3)  # nothing to gain: the advice stops, exploration too
    for policy in _POLICIES:
        advice = advise(data, sure, 10, policy=policy, confusions=CONFUSION[None], explore=0.5, min_gain=0.001)
        assert advice.stopped and len(advice.table) == 0
    with pytest.raises(ValueError, match="min_gain needs the judges' confusions"):
        advise(data, sure, 2, policy="uncertainty", min_gain=0.01)
    with pytest.raises(ValueError, match="min_gain"):
        advise(data, sure, 2, confusions=CONFUSION[None], min_gain=-1.0)


class Scripted(MajorityVote):
    """A fake method for the hand replay: an item on one label is a tie (0.5, 0.5); on two or more, 0.99 sure of
    the class of its labels' mean rounded half up; every judge's confusion is CONFUSION."""

    def _fit(self, data: CrowdLabels) -> TruthFit:
        counts = np.bincount(data.item, minlength=data.n_items)
        mean = np.bincount(data.item, weights=data.label, minlength=data.n_items) / counts
        proba = np.full((data.n_items, 2), 0.5)
        many = counts >= 2
        top = (mean >= 0.5).astype(int)
        proba[many] = 0.01
        proba[many, top[many]] = 0.99
        return TruthFit(proba=proba, confusions=np.repeat(CONFUSION[None], data.n_judges, axis=0))


def test_a_hand_two_round_replay_that_stops():
    """Six labels: p 0 1 1, q 1 1, r 0; truth p 1, q 1, r 0; rounds of B = round(6 / 3) = 2.
    Round 0: every item on one label, a tie (the lowest class, 0: r right, 1 of 3); r has no label left;
      p (2 left) and q (1 left) each first label's rate 0.3: gain 0.6 items, 0.3 per label >= 0.1: p, q bought.
    Round 1: p {0, 1} -> 1, q {1, 1} -> 1: 0.99 sure (3 of 3 right); p's one label left is worth nothing
      (three labels cannot overturn 0.99 against 0.8): gain 0 < 0.1 per label: the advice stops on 5 of 6 labels."""
    labels = pd.DataFrame({"item": ["p", "q", "r", "p", "q", "p"], "judge": ["a", "a", "a", "b", "b", "c"],
                           "label": [0, 1, 0, 1, 1, 1]})
    truth = pd.DataFrame({"item": ["p", "q", "r"], "truth": [1, 1, 0]})
    for policy in _POLICIES:
        curve = replay(labels, truth, Scripted, policy=policy, round_share=1 / 3, stop=None, explore=0, min_gain=0.1)
        assert curve["n_labels"].tolist() == [3, 5] and curve["named"].tolist() == [2, 0], policy
        np.testing.assert_allclose(curve["gain_per_label"], [0.3, 0.0], atol=1e-12)
        np.testing.assert_allclose(curve["accuracy"], [1 / 3, 1.0])
        np.testing.assert_allclose(curve["estimated_accuracy"], [0.5, (0.99 + 0.99 + 0.5) / 3])
    # a threshold above 0.3 stops at the first fit
    assert replay(labels, truth, Scripted, round_share=1 / 3, explore=0, min_gain=0.31)["named"].tolist() == [0]


def _panel(seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """60 binary items, 2 to 6 labels each from 6 judges of accuracy 0.6 to 0.9 (seeded)."""
    rng = np.random.default_rng(seed)
    accuracy = np.linspace(0.6, 0.9, 6)
    truth = rng.integers(0, 2, 60)
    rows = []
    for i, t in enumerate(truth):
        for w in rng.choice(6, int(rng.integers(2, 7)), replace=False):
            rows.append((f"i{i}", f"w{w}", int(t if rng.random() < accuracy[w] else 1 - t)))
    return (pd.DataFrame(rows, columns=["item", "judge", "label"]),
            pd.DataFrame({"item": [f"i{i}" for i in range(60)], "truth": truth}))


def _smoothed() -> DawidSkene:
    return DawidSkene(smoothing=1.0)  # unsure on one label an item: the gain per label rises, then falls


@pytest.mark.parametrize("policy", ["lookahead", "random"])
def test_the_replay_with_a_threshold_is_the_prefix_of_the_replay_with_a_smaller_one(policy):
    labels, truth = _panel()
    full = replay(labels, truth, _smoothed, policy=policy, round_share=0.05, min_gain=0.0)
    lengths = set()
    for threshold in (0.0, 0.001, 0.01, 0.03):
        direct = replay(labels, truth, _smoothed, policy=policy, round_share=0.05, min_gain=threshold)
        pd.testing.assert_frame_equal(stop_at(full, threshold), direct)
        lengths.add(len(direct))
    assert len(lengths) >= 3  # the thresholds stop at different rounds


def test_the_advice_reads_the_same_in_any_row_order():
    labels, _ = _panel()
    shuffled = labels.sample(frac=1.0, random_state=5).reset_index(drop=True)
    advice = []
    for table in (labels, shuffled):
        data = as_crowd_labels(table)
        fitted = _smoothed().fit(data)
        advice.append(advise(data, fitted.proba_.to_numpy(), 10, confusions=fitted.confusions_.to_numpy().reshape(
            data.n_judges, 2, 2), min_gain=0.0))
    assert advice[0].gain > 0.5 and len(advice[0].table) == 10
    assert advice[0].gain == pytest.approx(advice[1].gain, abs=1e-6)
    assert advice[0].accuracy == pytest.approx(advice[1].accuracy, abs=1e-6)
    pd.testing.assert_frame_equal(advice[0].table, advice[1].table, atol=1e-6)
