"""Auto with gold items: cross-fitted gold (no gold answer scores a fit it trained), the choice by held-out gold,
the calibration on it, and what the report says."""
from __future__ import annotations

import sys
import textwrap
import warnings

import numpy as np
import pytest

from manyjudges.core.random_streams import rng_for
from manyjudges.truth import make_truth_estimator
from manyjudges.truth.auto.estimator import GOLD_CANDIDATES
from manyjudges.truth.auto.gold_choice import (
    _LABEL_ANSWER,
    GoldAnswer,
    _calibrate_on_gold,
    _gold_held_out,
    gold_choice,
    gold_evidence,
)
from manyjudges.truth.heldout import temper
from manyjudges.truth.results import accuracy
from manyjudges.truth.scenarios import _SCENARIOS, simulated_suite

SPY = '''
import numpy as np
from manyjudges.truth.base import TruthEstimator, TruthFit

CALLS = []


class Spy(TruthEstimator):
    """Records the gold each fit is given; says class 0 everywhere else."""

    gold_use = "fit"

    def _fit(self, data, gold=None):
        CALLS.append((data.n_labels, None if gold is None else set(gold[0].tolist())))
        proba = np.zeros((data.n_items, data.n_classes))
        proba[:, 0] = 1.0
        return TruthFit(proba=proba)
'''


@pytest.fixture
def spy(tmp_path, monkeypatch):
    (tmp_path / "gold_spy.py").write_text(textwrap.dedent(SPY))
    monkeypatch.syspath_prepend(str(tmp_path))
    import gold_spy

    gold_spy.CALLS.clear()
    yield gold_spy
    sys.modules.pop("gold_spy", None)


def small_panel(seed=0, n_items=200):
    labels, truth = _SCENARIOS["adversarial_majority"](rng_for(seed, "test", "gold spy"), n_items=n_items,
                                                      n_classes=2, n_judges=10)
    return labels, truth.set_index("item")["truth"]


def test_no_gold_answer_scores_the_fit_it_trained(spy):
    """The spy (registered by ``package.module:callable``) is given, in each fold, the gold of the other folds only;
    every gold item is withheld by exactly one fold; the final fit is given all of it."""
    labels, truth = small_panel()
    gold = truth.iloc[::5]
    gold = gold[gold == 1]  # the spy says 0 off the gold: right on a gold answer only if it was given it
    auto = make_truth_estimator("auto", {"candidates": ["majority_vote", "gold_spy:Spy"], "gold_candidates": []})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto.fit(labels, gold=gold)
    split = auto.gold_split_
    given = [call for call in spy.CALLS if call[1] is not None]  # the labels-only fits are given no gold
    assert len(given) == len(spy.CALLS) // 2
    fold_calls, full_call = given[:-1], given[-1]
    assert len(fold_calls) == len(split.gold_withheld)
    everything = set(split.known[0][0].tolist()) | set(split.gold_withheld[0][0].tolist())
    assert len(everything) == len(gold) and full_call[1] == everything
    withheld = [set(items.tolist()) for items, _ in split.gold_withheld]
    assert sum(len(w) for w in withheld) == len(gold) and set().union(*withheld) == everything
    for (_, given), out in zip(fold_calls, withheld):
        assert given is not None and not given & out and given | out == everything
    row = auto.report_.set_index("candidate").loc["gold_spy:Spy"]
    assert row["gold_accuracy"] == 0.0  # 1.0 had any fold been given the gold it is scored on


def answer(name, right, score=0.0):
    return GoldAnswer(name, (), np.zeros((0, 2)), np.asarray(right, dtype=bool), score)


def test_gold_choice_by_mcnemar_against_the_labels_only_answer():
    base = answer(_LABEL_ANSWER, [1, 1, 0, 0, 0, 0, 0, 0])
    better = answer("a", [1, 1, 1, 1, 1, 1, 0, 0])   # b = 4, c = 0: evidence 2
    best = answer("b", [0, 1, 1, 1, 1, 1, 1, 1], -1.0)  # b = 6, c = 1: evidence 5 / sqrt(7) = 1.89
    assert gold_evidence(better.right, base.right) == pytest.approx(2.0)
    assert gold_choice([base, better, best], 2.0) == 1        # only "a" passes
    assert gold_choice([base, better, best], 1.5, "accuracy") == 2    # both pass: the one right most often
    assert gold_choice([base, better, best], 1.5, "log_score") == 1   # both pass: the higher log score
    assert gold_choice([base, better, best], 2.5) == 0
    assert gold_choice([base, better, best], None) == 0


def test_adversarial_majority_follows_the_gold():
    """sim_adversarial_binary and _k3 of the simulated suite: the labels-only answer follows the majority (wrong),
    an answer chosen by the held-out gold does not."""
    suite = simulated_suite(0)
    for name in ("sim_adversarial_binary", "sim_adversarial_k3"):
        labels, truth = suite[name]
        gold = truth.iloc[::10]
        rest = truth.drop(gold.index)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            auto = make_truth_estimator("auto").fit(labels, gold=gold)
            majority = make_truth_estimator("majority_vote").fit(labels)
        assert accuracy(majority.labels_, rest)[0] < 0.3
        assert accuracy(auto.labels_, rest)[0] > 0.95, name
        assert auto.gold_answers_[0].right.mean() < 0.3  # the labels-only answer gets the held-out gold wrong
        report = auto.report_.set_index("candidate")
        assert report["chosen_by_gold"].sum() == 1 and report.loc[auto.choice_, "chosen_by_gold"]
        assert report.loc[auto.choice_, "weight"] == 1.0 and report["weight"].sum() == 1.0


def test_a_panel_where_the_supervised_candidate_is_chosen():
    """Three classes, most judges map each class to another one, each in its own way: the labels-only answer
    follows them; supervised Dawid-Skene, each judge's confusion learned from the gold, gets the held-out gold
    right and is chosen."""
    labels, truth = _SCENARIOS["adversarial_majority"](rng_for(0, "test", "adversarial"), n_items=1000, n_classes=3,
                                                      n_judges=20)
    gold = truth.iloc[::10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = make_truth_estimator("auto").fit(labels, gold=gold)
    assert auto.choice_ == "supervised_dawid_skene"
    assert accuracy(auto.labels_, truth.drop(gold.index))[0] > 0.95
    assert set(GOLD_CANDIDATES) <= set(auto.report_["candidate"])


def test_posteriors_calibrated_on_the_held_out_gold():
    """The final posteriors are the chosen answer tempered by the beta that best predicts the withheld gold answers
    under the floor 1 / (n + 2), n the withheld labels and gold answers (checked against a grid search of the mean
    log posterior of the known class)."""
    labels, truth = simulated_suite(0)["sim_correlated_k3"]
    gold = truth.iloc[::10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = make_truth_estimator("auto").fit(labels, gold=gold)
    chosen = next(a for a in auto.gold_answers_ if a.name == auto.choice_) if auto.report_["chosen_by_gold"].any() \
        else auto.gold_answers_[0]
    held = _gold_held_out(chosen, auto.gold_split_)
    assert len(held.said) == len(gold)
    confidence = _calibrate_on_gold(chosen, auto.gold_split_)
    split = auto.gold_split_
    evidence = int((split.folds >= 0).sum()) + len(gold)
    floor = 1 / (evidence + 2)
    assert confidence.floor == pytest.approx(floor)
    assert (auto.beta_, auto.floor_) == (confidence.beta, confidence.floor)
    k = held.said.shape[1]
    grid = np.exp(np.linspace(np.log(0.02), np.log(5.0), 2001))
    score = [np.mean(np.log(np.maximum(((1 - k * floor) * temper(held.posteriors, b) + floor) * held.said,
                                       1e-300).sum(axis=1))) for b in grid]
    assert confidence.beta == pytest.approx(grid[int(np.argmax(score))], rel=0.02)
    off_gold = ~auto.proba_.index.isin(gold["item"])
    expected = (1 - k * floor) * temper(chosen.full, confidence.beta) + floor
    np.testing.assert_allclose(auto.proba_.to_numpy()[off_gold], expected[off_gold], atol=1e-12)


def test_without_gold_the_report_says_no_gold_chose():
    labels, _ = small_panel(1, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = make_truth_estimator("auto").fit(labels)
    assert not auto.report_["chosen_by_gold"].any() and auto.report_["gold_evidence"].isna().all()
    assert list(auto.report_["candidate"]) == list(auto.candidate_names())


def test_the_labels_only_answer_is_auto_without_gold():
    """The answer the gold must beat is auto's answer without the gold items (before calibration), to the last
    digit."""
    labels, truth = simulated_suite(0)["sim_sparse_biased_binary"]
    gold = truth.iloc[::10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = make_truth_estimator("auto", {"calibrate": None}).fit(labels)
        helped = make_truth_estimator("auto").fit(labels, gold=gold)
    np.testing.assert_array_equal(helped.gold_answers_[0].full, plain.proba_.to_numpy())
    assert helped.gold_answers_[0].name == _LABEL_ANSWER


@pytest.mark.parametrize(("params", "message"), [
    ({"gold_evidence": -1.0}, "gold_evidence must be a number >= 0"),
    ({"gold_candidates": "best_judge"}, "gold_candidates must be a list of method names"),
    ({"gold_candidates": ["no_such_method"]}, "no_such_method"),
])
def test_gold_parameters_are_checked(params, message):
    labels, truth = small_panel(2, 40)
    with pytest.raises(ValueError, match=message):
        make_truth_estimator("auto", params).fit(labels, gold=truth.iloc[::4])
