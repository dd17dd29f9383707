"""Where the next labels go: the lookahead gain against enumeration, the choice on a panel whose
posteriors are known, candidates, judges and budgets; the replay harness against a hand replay."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth import DawidSkene, MajorityVote, as_crowd_labels
from manyjudges.truth.active.advice import (
    _expected_accuracy,
    _lookahead_rates,
    _policy_scores,
    advise,
    next_labels,
)
from manyjudges.truth.active.replay import (
    SUMMARY_COLUMNS,
    all_labels_accuracy,
    labels_needed,
    replay,
    replay_policies,
)
from manyjudges.truth.base import TruthFit


def test_expected_accuracy_equals_enumerating_every_label_sequence():
    rng = np.random.default_rng(0)
    posteriors = rng.dirichlet(np.ones(3), 6)
    confusion = rng.dirichlet(np.ones(3) * 2, 3)
    for m in range(4):
        brute = np.zeros(6)
        for sequence in itertools.product(range(3), repeat=m):
            likelihood = np.prod([confusion[:, c] for c in sequence], axis=0) if sequence else np.ones(3)
            brute += (posteriors * likelihood).max(axis=1)
        np.testing.assert_allclose(_expected_accuracy(posteriors, confusion, m), brute, rtol=1e-12)


def test_one_label_that_cannot_flip_a_decision_is_valued_with_the_next():
    confusion = np.array([[0.7, 0.3], [0.3, 0.7]])
    rates = _lookahead_rates(np.array([[0.5, 0.5], [0.8, 0.2], [0.999, 0.001]]), confusion)
    assert rates[0, 0] == pytest.approx(0.2)  # a tie: one label of a 0.7 judge decides it
    assert _expected_accuracy(np.array([[0.8, 0.2]]), confusion, 1)[0] == pytest.approx(0.8)  # one label: no gain
    assert rates[1, 0] > 0  # but three do, and the first of them is worth their mean gain
    assert (rates[2] == 0).all()  # three labels cannot overturn 0.999


def _tiny_panel():
    """Six binary items, judges of known accuracy 0.9 / 0.8 / 0.7: labels from two or three of them."""
    rows = [("a", "w1", 1), ("a", "w2", 1), ("a", "w3", 1),  # three agree: certain
            ("b", "w1", 1), ("b", "w2", 0),                  # the best two disagree
            ("c", "w2", 1), ("c", "w3", 0),                  # 0.8 against 0.7
            ("d", "w1", 0), ("d", "w3", 0),                  # two agree
            ("e", "w3", 1),                                  # one weak label
            ("f", "w1", 1), ("f", "w2", 1)]                  # two strong agree
    return pd.DataFrame(rows, columns=["item", "judge", "label"])


def _enumerated_posteriors(labels: pd.DataFrame, accuracy: dict[str, float]) -> pd.Series:
    """P(class 1 | labels) by Bayes with a uniform prior and the known accuracies (a direct loop)."""
    out = {}
    for item, rows in labels.groupby("item"):
        like = [1.0, 1.0]
        for judge, label in zip(rows["judge"], rows["label"]):
            for t in (0, 1):
                like[t] *= accuracy[judge] if label == t else 1 - accuracy[judge]
        out[item] = like[1] / sum(like)
    return pd.Series(out)


def test_first_choices_are_the_least_certain_items_and_a_certain_item_gets_none():
    labels = _tiny_panel()
    accuracy = {"w1": 0.9, "w2": 0.8, "w3": 0.7}
    p1 = _enumerated_posteriors(labels, accuracy)
    data = as_crowd_labels(labels)
    posteriors = np.column_stack([1 - p1[data.items].to_numpy(), p1[data.items].to_numpy()])
    confusions = np.array([[[a, 1 - a], [1 - a, a]] for a in (accuracy[w] for w in data.judges)])
    plan = next_labels(data, posteriors, budget=3, confusions=confusions, stop=0.99, explore=0)  # the scores alone
    certainty = pd.Series(np.abs(p1 - 0.5), index=p1.index)
    least_certain = certainty.sort_values(kind="stable").index[:3].tolist()
    assert sorted(plan["item"].unique()) == sorted(least_certain[: plan["item"].nunique()])
    assert plan["item"].iloc[0] == certainty.idxmin()
    assert plan["score"].is_monotonic_decreasing
    # "a" (three agreeing labels, P = 0.504 / 0.510 = 0.988) is past stop = 0.98: nothing, whatever the budget
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        everything = next_labels(data, posteriors, budget=100, confusions=confusions, stop=0.98, explore=0)
    assert p1["a"] == pytest.approx(0.504 / 0.510) and "a" not in set(everything["item"])
    # nor without stopping advice: three labels of the typical judge (accuracy 0.8) cannot overturn odds of 84
    assert "a" not in set(next_labels(data, posteriors, budget=100, confusions=confusions, stop=None,
                                      explore=0)["item"])
    # exploration (0.1 of 100: up to 10 labels, one each to the items with the fewest labels, here all six)
    # reaches it all the same, when the advice does not stop
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        explored = next_labels(data, posteriors, budget=100, confusions=confusions, stop=0.98, explore=0.1,
                               min_gain=None)
        stopped = advise(data, posteriors, budget=100, confusions=confusions, stop=0.98, explore=0.1, min_gain=0.01)
    assert (explored["item"] == "a").sum() == 1
    # but 100 labels set fewer than one item right (a gain of at most 0.01 per label): the advice stops, and
    # exploration with it
    assert stopped.stopped and stopped.gain < 1 and len(stopped.table) == 0


def test_candidates_cap_and_exclude_and_a_large_budget_warns():
    data = as_crowd_labels(_tiny_panel())
    fitted = DawidSkene(smoothing=1.0).fit(data)
    confusions = fitted.confusions_.to_numpy().reshape(data.n_judges, 2, 2)
    posteriors = np.full((data.n_items, 2), 0.5)  # every item a tie: each deserves labels
    candidates = pd.DataFrame({"item": ["b", "c", "e", "zz"], "available": [2, 1, 0, 4]})
    with pytest.warns(DataWarning, match="3 of the 10"), pytest.warns(DataWarning, match="'zz'"):
        plan = next_labels(data, posteriors, budget=10, confusions=confusions, candidates=candidates, min_gain=None)
    counts = plan["item"].value_counts()
    assert set(counts.index) == {"b", "c"} and counts["b"] == 2 and counts["c"] == 1


def test_judges_available_names_only_listed_judges_not_yet_on_the_item():
    data = as_crowd_labels(_tiny_panel())
    confusions = np.array([[[a, 1 - a], [1 - a, a]] for a in (0.9, 0.8, 0.7)])
    posteriors = np.full((data.n_items, 2), 0.5)
    judges = pd.DataFrame({"judge": ["w1", "w3"], "available": [1, 5]})
    plan = next_labels(data, posteriors, budget=4, confusions=confusions, judges_available=judges, stop=None)
    assert set(plan["judge"]) <= {"w1", "w3"}
    assert (plan["judge"] == "w1").sum() <= 1
    done = set(zip(_tiny_panel()["item"], _tiny_panel()["judge"]))
    assert not any((i, w) in done for i, w in zip(plan["item"], plan["judge"]))
    with pytest.raises(ValueError, match="has no labels"):
        next_labels(data, posteriors, 2, confusions=confusions, judges_available=pd.DataFrame({"judge": ["zz"]}))


def test_baseline_policies():
    rng_posteriors = np.array([[0.9, 0.1], [0.6, 0.4], [0.5, 0.5]])
    np.testing.assert_allclose(_policy_scores("uncertainty", rng_posteriors)[:, 0], [0.1, 0.4, 0.5])
    uniform = _policy_scores("uniform", rng_posteriors, label_counts=np.array([3, 1, 2]))[:, 0]
    assert list(np.argsort(-uniform)) == [1, 2, 0]
    with pytest.raises(ValueError, match="policy"):
        _policy_scores("greedy", rng_posteriors)


def test_replay_against_a_hand_replay():
    """Four items, 2 / 3 / 1 / 2 labels in file order; majority vote; rounds of 2 labels (share 0.25 of 8),
    uniform policy: fewest labels first, ties in the seeded order checked by hand below."""
    labels = pd.DataFrame({"item": ["p", "q", "p", "q", "r", "s", "q", "s"],
                           "judge": ["x", "x", "y", "y", "x", "x", "z", "y"],
                           "label": [0, 1, 1, 1, 0, 1, 0, 1]})
    truth = pd.DataFrame({"item": ["p", "q", "r", "s"], "truth": [1, 1, 0, 1]})
    curve = replay(labels, truth, MajorityVote, policy="uniform", round_share=0.25, stop=None,
                   explore=0, min_gain=None)
    # round 0: the first labels p:0 q:1 r:0 s:1 -> 3 of 4 right (p wrong)
    assert curve["n_labels"].tolist()[0] == 4 and curve["accuracy"].iloc[0] == 0.75
    # round 0 names p and s (seeded order among the four tied items; uniform names an item at most once a
    # round), then only q has labels left: one a round; the last fit is on all labels
    assert curve["n_labels"].tolist() == [4, 6, 7, 8]
    # all labels: p 0/1 tie -> lowest class 0 (wrong), q 1,1,0 -> 1, r 0, s 1,1 -> 3 of 4
    assert curve["accuracy"].iloc[-1] == 0.75
    assert curve["named"].tolist() == [2, 1, 1, 0]
    assert labels_needed(curve, all_labels_accuracy(labels, truth, MajorityVote)) == 0.5  # reached at the start
    # the random policy buys the same labels in a different order, but ends at the same place
    assert replay(labels, truth, MajorityVote, policy="random", round_share=0.25,
                  stop=None, explore=0, min_gain=None)["accuracy"].iloc[-1] == 0.75


def test_replay_buys_each_items_labels_in_file_order():
    labels = pd.DataFrame({"item": ["p", "p", "p", "q"], "judge": ["x", "y", "z", "x"], "label": [1, 0, 0, 1]})
    truth = pd.DataFrame({"item": ["p", "q"], "truth": [0, 1]})
    # one label per round (share 0.25 of 4); q has none left, so p's next labels come in file order:
    # round 0: p {1} -> 1 (wrong); round 1: p {1, 0} tie -> 0 (right); round 2: p {1, 0, 0} -> 0
    curve = replay(labels, truth, MajorityVote, policy="uncertainty", round_share=0.25, stop=None,
                   explore=0, min_gain=None)
    assert curve["accuracy"].tolist() == [0.5, 1.0, 1.0]
    assert labels_needed(curve, 1.0) == 0.75


def test_replay_policies_gives_every_policy_a_row_and_a_curve():
    labels = pd.DataFrame({"item": ["p", "q", "p", "q", "r", "s", "q", "s"],
                           "judge": ["x", "x", "y", "y", "x", "x", "z", "y"],
                           "label": [0, 1, 1, 1, 0, 1, 0, 1]})
    truth = pd.DataFrame({"item": ["p", "q", "r", "s"], "truth": [1, 1, 0, 1]})
    summary, curves = replay_policies(labels, truth, "majority_vote", params={"calibrate": None},
                                      policies=("uniform", "random"), round_share=0.25, stop=None, explore=0,
                                      min_gain=None)
    assert list(summary.columns) == SUMMARY_COLUMNS and summary["policy"].tolist() == ["uniform", "random"]
    assert (summary["all_labels_accuracy"] == 0.75).all() and (summary["n_labels"] == 8).all()
    assert (summary["stop_share"] == 1.0).all() and (summary["shortfall"] == 0.0).all()
    assert curves.groupby("policy")["n_labels"].max().tolist() == [8, 8]
    direct = replay(labels, truth, MajorityVote, policy="uniform", round_share=0.25, stop=None, explore=0,
                    min_gain=None)
    pd.testing.assert_frame_equal(curves[curves["policy"] == "uniform"].drop(columns="policy").reset_index(drop=True),
                                  direct)


def test_replay_of_a_method_without_confusions_uses_the_m_step_on_its_posteriors():
    labels = pd.DataFrame({"item": ["p", "q", "p", "q", "r", "s", "q", "s"],
                           "judge": ["x", "x", "y", "y", "x", "x", "z", "y"],
                           "label": [0, 1, 1, 1, 0, 1, 0, 1]})
    truth = pd.DataFrame({"item": ["p", "q", "r", "s"], "truth": [1, 1, 0, 1]})
    curve = replay(labels, truth, MajorityVote, policy="lookahead", round_share=0.25, stop=None)
    assert curve["accuracy"].iloc[0] == 0.75 and curve["n_labels"].iloc[-1] <= 8


class WeightedVote(MajorityVote):
    """A fake method for hand replays: P(c) proportional to 1 + the summed weights of the item's labels
    of class c (judges ``a`` and ``h`` weigh 8, any other 1); the lowest class on ties."""

    def _fit(self, data: CrowdLabels) -> TruthFit:
        weight = np.where(np.isin(data.judges[data.judge], ["a", "h"]), 8.0, 1.0)
        score = np.ones((data.n_items, data.n_classes))
        np.add.at(score, (data.item, data.label), weight)
        return TruthFit(proba=score / score.sum(axis=1, keepdims=True))


def _weighted_panel() -> tuple[pd.DataFrame, pd.DataFrame]:
    labels = pd.DataFrame({"item": ["p", "q", "r", "s", "p", "q", "r", "s", "p", "s"],
                           "judge": ["b", "a", "b", "a", "c", "b", "h", "h", "a", "g"],
                           "label": [1, 0, 0, 1, 1, 1, 0, 0, 1, 0]})
    return labels, pd.DataFrame({"item": ["p", "q", "r", "s"], "truth": [1, 0, 0, 0]})


def test_replay_buys_only_what_the_policy_names():
    """Ten labels, rounds of B = round(0.3 * 10) = 3, uncertainty with stop 0.8; by hand:
    round 0: p b1 -> (1, 2)/3, q a0 -> (9, 1)/10, r b0 -> (2, 1)/3, s a1 -> (1, 9)/10; right: p q r (0.75);
      p and r are below 0.8, q and s past it: 2 named of B = 3, and only those 2 bought (no filling);
    round 1: p b1 c1 -> 3/4 (named: its last label), r b0 h0 -> 10/11 (stopped); still 0.75;
    round 2: p b1 c1 a1 -> 11/12: every item past 0.8, none named, the replay ends on 7 of 10 labels.
    All ten labels: s a1 h0 g0 -> (10, 9)/19 -> 0, right: 1.0, which the curve never reaches."""
    labels, truth = _weighted_panel()
    curve = replay(labels, truth, WeightedVote, policy="uncertainty", round_share=0.3, stop=0.8,
                   explore=0, min_gain=None)
    assert curve["n_labels"].tolist() == [4, 6, 7]
    assert curve["named"].tolist() == [2, 1, 0]
    np.testing.assert_allclose(curve["share"], [0.4, 0.6, 0.7])
    assert curve["accuracy"].tolist() == [0.75, 0.75, 0.75]
    target = all_labels_accuracy(labels, truth, WeightedVote)
    assert target == 1.0
    assert np.isnan(labels_needed(curve, target))
    assert labels_needed(curve, 0.755) == 0.4  # within the slack of 0.005


def test_a_policy_that_names_none_ends_the_replay():
    labels, truth = _weighted_panel()
    curve = replay(labels, truth, WeightedVote, policy="uncertainty", round_share=0.3, stop=0.6,
                   explore=0, min_gain=None)
    assert curve["n_labels"].tolist() == [4] and curve["named"].tolist() == [0]


def test_exploration_gives_the_items_with_fewest_labels_their_share_past_the_stopping_advice():
    labels, truth = _weighted_panel()
    # explore 1/3 of B = 3: one label a round to the item with the fewest labels, stopping advice or not;
    # round 0: every item has 1 label: p and r (the policy's own highest scores, 1/3) tie, then the seeded order
    curve = replay(labels, truth, WeightedVote, policy="uncertainty", round_share=0.3, stop=0.8, explore=1 / 3,
                   min_gain=None)
    assert curve["named"].iloc[0] == 3  # p and r by the policy, and one of them again by exploration
    assert curve["n_labels"].iloc[-1] == 10  # exploration reaches every label
    assert curve["accuracy"].iloc[-1] == 1.0
    data = as_crowd_labels(labels)
    plan = next_labels(data, np.full((4, 2), 0.5), 2, policy="uncertainty", stop=0.4, explore=0.5, min_gain=None,
                       candidates=pd.DataFrame({"item": ["q", "r"], "available": [1, 1]}))
    assert len(plan) == 1 and plan["item"].iloc[0] in {"q", "r"}  # q and r have 2 labels, s 3, p 3
    with pytest.raises(ValueError, match="explore"):
        next_labels(data, np.full((4, 2), 0.5), 2, explore=1.5)


def test_replay_policies_reports_a_stop_at_the_first_fit():
    labels = pd.DataFrame({"item": ["p", "q", "p", "q", "r", "s", "q", "s"],
                           "judge": ["x", "x", "y", "y", "x", "x", "z", "y"],
                           "label": [0, 1, 1, 1, 0, 1, 0, 1]})
    truth = pd.DataFrame({"item": ["p", "q", "r", "s"], "truth": [0, 1, 0, 1]})
    # majority vote is sure (1.0) of every item on one label: no label can change a decision, the expected
    # gain is 0 and the advice stops at once, on 4 of 8
    summary, curves = replay_policies(labels, truth, "majority_vote", params={"calibrate": None},
                                      policies=("uncertainty",), round_share=0.25)
    row = summary.iloc[0]
    assert row["stop_share"] == 0.5 and row["rounds"] == 1 and row["stop_accuracy"] == 1.0
    assert curves["gain_per_label"].tolist() == [0.0] and curves["estimated_accuracy"].tolist() == [1.0]
    # all labels: p 0/1 tie -> 0 (right), q 1 1 0 -> 1, r 0, s 1 1: 1.0, no shortfall
    assert row["all_labels_accuracy"] == 1.0 and row["shortfall"] == 0.0
