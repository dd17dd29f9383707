"""Auto on simulated panels that break the candidates' assumptions (``manyjudges.truth.scenarios``)."""
from __future__ import annotations

import warnings

import pytest

from manyjudges.core.random_streams import rng_for
from manyjudges.truth import make_truth_estimator
from manyjudges.truth.results import accuracy
from manyjudges.truth.scenarios import _SCENARIOS


def accuracies(labels, truth, methods=("majority_vote", "dawid_skene", "auto")) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m: accuracy(make_truth_estimator(m).fit(labels).labels_, truth)[0] for m in methods}


@pytest.mark.parametrize("seed", range(3))
def test_sparse_biased_judges_auto_near_the_better_of_majority_vote_and_dawid_skene(seed):
    """Most judges give a few binary labels each, with a strong personal yes/no bias: full Dawid-Skene explains
    each judge's bias and loses the class (0.88-0.93 here, measured, where majority vote gets 0.89-0.93)."""
    labels, truth = _SCENARIOS["sparse_biased"](rng_for(seed, "test", "sparse"), n_items=1000, n_classes=2)
    acc = accuracies(labels, truth)
    assert acc["auto"] >= max(acc["majority_vote"], acc["dawid_skene"]) - 0.01, acc


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("options", [
    {"n_classes": 2, "n_models": 4, "n_prompts": 3, "rho": 0.8},  # four models, three prompts each
    {"n_classes": 2, "n_models": 3, "n_prompts": 1, "accuracy": [0.75, 0.85], "cluster_size": 9,
     "cluster_accuracy": 0.62, "rho": 0.9},  # a big cluster of one mediocre model outnumbering three good ones
], ids=["clusters", "big_cluster"])
def test_correlated_judges_auto_not_below_majority_vote(seed, options):
    labels, truth = _SCENARIOS["correlated"](rng_for(seed, "test", "correlated"), n_items=600, **options)
    acc = accuracies(labels, truth)
    assert acc["auto"] >= acc["majority_vote"] - 0.02, acc


@pytest.mark.parametrize("n_classes", [2, 3])
def test_adversarial_majority_gold_recovers_the_minority(n_classes):
    """Most judges swap the classes; without gold every unsupervised answer follows them (majority vote is right
    on 0.13-0.16 of the items, measured, by the noise alone). 10% of the truth as gold: the labels-only answer
    gets the held-out gold wrong, an answer that learns the judges from the gold gets it right, and the gold
    chooses it (McNemar's statistic against the labels-only answer); auto is right on the other items."""
    labels, truth = _SCENARIOS["adversarial_majority"](rng_for(0, "test", "adversarial"), n_items=1000,
                                                      n_classes=n_classes, n_judges=20)
    gold = truth.iloc[::10]
    rest = truth.drop(gold.index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = make_truth_estimator("auto").fit(labels)
        helped = make_truth_estimator("auto").fit(labels, gold=gold)
        majority = make_truth_estimator("majority_vote").fit(labels)
    assert accuracy(majority.labels_, rest)[0] < 0.3
    assert accuracy(plain.labels_, rest)[0] < 0.3
    assert accuracy(helped.labels_, rest)[0] > 0.95
    report = helped.report_.set_index("candidate")
    assert report.loc[helped.choice_, "chosen_by_gold"]
    assert report.loc[helped.choice_, "gold_evidence"] >= helped.gold_evidence
    assert helped.gold_answers_[0].right.mean() < 0.3
