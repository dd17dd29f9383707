"""Auto: the withheld-label machinery against direct computations, and the choice on panels whose
generating model is known."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from manyjudges.truth import Auto, DawidSkene, as_crowd_labels, make_truth_estimator
from manyjudges.truth.heldout import (
    _fit_tempering,
    _fold_split,
    _judge_confusions,
    _label_folds,
    _stacking_weights,
    held_out,
    predictive,
    subset,
    temper,
)


def _table(items, judges, labels) -> pd.DataFrame:
    return pd.DataFrame({"item": [f"i{i:04d}" for i in items], "judge": [f"w{w:03d}" for w in judges],
                         "label": np.asarray(labels)})


def one_coin_panel(seed: int = 0, n_items: int = 1000, n_judges: int = 40, per_item: int = 5, k: int = 4):
    """Each judge right with its own accuracy, errors uniform over the other classes."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    accuracy = rng.uniform(0.3, 0.98, n_judges)
    items = np.repeat(np.arange(n_items), per_item)
    judges = np.concatenate([rng.choice(n_judges, per_item, replace=False) for _ in range(n_items)])
    right = rng.random(len(items)) < accuracy[judges]
    wrong = (truth[items] + rng.integers(1, k, len(items))) % k
    return _table(items, judges, np.where(right, truth[items], wrong)), truth


def full_confusion_panel(seed: int = 0, n_items: int = 1500, n_judges: int = 12, per_item: int = 6, k: int = 3):
    """Each judge with its own asymmetric confusion matrix: it mistakes one class for another most of the time."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    confusion = np.zeros((n_judges, k, k))
    for w in range(n_judges):
        confusion[w] = np.eye(k) * 0.9 + 0.1 / k
        t = w % k  # the class this judge mistakes, for the next one
        confusion[w, t] = 0.05
        confusion[w, t, (t + 1) % k] = 0.9
        confusion[w, t, t] = 0.05
    items = np.repeat(np.arange(n_items), per_item)
    judges = np.concatenate([rng.choice(n_judges, per_item, replace=False) for _ in range(n_items)])
    cum = confusion[judges, truth[items]].cumsum(axis=1)
    labels = (rng.random(len(items))[:, None] > cum).sum(axis=1)
    return _table(items, judges, np.minimum(labels, k - 1)), truth


def ordinal_panel(seed: int = 0, n_items: int = 500, n_judges: int = 15, per_item: int = 6, k: int = 5):
    """Graders of an ordered scale: a judge's grade is the truth plus its bias plus Gaussian noise, rounded."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    bias = rng.normal(0, 0.4, n_judges)
    noise = rng.uniform(0.5, 1.0, n_judges)
    items = np.repeat(np.arange(n_items), per_item)
    judges = np.concatenate([rng.choice(n_judges, per_item, replace=False) for _ in range(n_items)])
    grade = np.rint(truth[items] + bias[judges] + noise[judges] * rng.standard_normal(len(items)))
    return _table(items, judges, np.clip(grade, 0, k - 1).astype(int)), truth


# --- the withheld-label machinery --------------------------------------------------------------------------------


def test_folds_keep_a_label_of_every_item_in_every_fit_and_ignore_row_order():
    labels, _ = one_coin_panel(n_items=200)
    labels = pd.concat([labels, _table([9999], [0], [1])])  # an item with one label: never withheld
    data = as_crowd_labels(labels)
    folds = _label_folds(data, 5, seed=3)
    single = data.items.get_loc("i9999")
    assert (folds[data.item == single] == -1).all()
    for fold in range(5):
        seen = np.unique(data.item[folds != fold])
        assert len(seen) == data.n_items
    # an item's labels (5 of them) fall in 5 different folds
    per_item = pd.DataFrame({"item": data.item, "fold": folds})[folds >= 0].groupby("item")["fold"].nunique()
    assert (per_item == 5).all()
    shuffled = as_crowd_labels(labels.sample(frac=1, random_state=1))
    moved = _label_folds(shuffled, 5, seed=3)
    key = lambda d, f: sorted(zip(d.item, d.judge, d.label, f))  # noqa: E731
    assert key(data, folds) == key(shuffled, moved)


def test_judge_confusions_against_a_direct_loop():
    labels, _ = one_coin_panel(n_items=40, n_judges=6, per_item=3, k=3)
    data = as_crowd_labels(labels)
    post = np.random.default_rng(0).dirichlet(np.ones(3), data.n_items)
    got = _judge_confusions(data, post, strength=2.0)
    counts = np.zeros((data.n_judges, 3, 3))
    for i, w, c in zip(data.item, data.judge, data.label):
        for t in range(3):
            counts[w, t, c] += post[i, t]
    pooled = counts.sum(axis=0)
    pooled = pooled / pooled.sum(axis=1, keepdims=True)
    for w in range(data.n_judges):
        for t in range(3):
            expected = (counts[w, t] + 2.0 * pooled[t]) / (counts[w, t].sum() + 2.0)
            np.testing.assert_allclose(got[w, t], expected, rtol=1e-7)


def test_tempered_predictive_is_the_direct_sum_and_tempering_finds_the_grid_optimum():
    labels, _ = one_coin_panel(n_items=150, n_judges=10, per_item=4, k=3)
    data = as_crowd_labels(labels)
    folds = _label_folds(data, 4)
    held = held_out(DawidSkene().posteriors_on, data, folds)
    for beta in (0.3, 1.0, 2.5):
        direct = np.array([sum((p[t] ** beta / (p ** beta).sum()) * s[t] for t in range(3))
                           for p, s in zip(held.posteriors, held.said)])
        np.testing.assert_allclose(held.probabilities(beta), direct, rtol=1e-9)
        np.testing.assert_allclose(held.probabilities(beta), predictive(temper(held.posteriors, beta), held.said))
    grid = np.exp(np.linspace(np.log(0.02), np.log(5.0), 2001))
    scores = [np.mean(np.log(held.probabilities(b))) for b in grid]
    best = _fit_tempering(held)
    assert np.mean(np.log(held.probabilities(best))) >= max(scores) - 1e-6


def test_held_out_fits_never_see_the_withheld_labels():
    labels, _ = one_coin_panel(n_items=60, n_judges=8, per_item=3, k=3)
    data = as_crowd_labels(labels)
    folds = _label_folds(data, 3)
    seen_sizes = []

    def fit(seen, known):
        seen_sizes.append(seen.n_labels)
        return np.full((seen.n_items, seen.n_classes), 1.0 / 3)

    held_out(fit, data, folds)
    assert seen_sizes == [int((folds != f).sum()) for f in range(3)]
    sub = subset(data, folds != 0)
    assert sub.n_items == data.n_items and sub.n_judges == data.n_judges


def test_a_shared_fold_split_gives_what_the_folds_give():
    labels, _ = one_coin_panel(n_items=80, n_judges=8, per_item=3, k=3)
    data = as_crowd_labels(labels)
    folds = _label_folds(data, 4)
    split = _fold_split(data, folds)
    assert [len(out) for out in split.withheld] == [int((folds == f).sum()) for f in range(4)]
    for method in (DawidSkene(), make_truth_estimator("wawa")):
        by_folds = held_out(method.posteriors_on, data, folds)
        by_split = held_out(method.posteriors_on, data, split)
        np.testing.assert_array_equal(by_folds.posteriors, by_split.posteriors)
        np.testing.assert_array_equal(by_folds.said, by_split.said)


def test_withheld_gold_answers_are_scored_by_fits_that_were_not_given_them():
    labels, truth = one_coin_panel(n_items=90, n_judges=8, per_item=3, k=3)
    data = as_crowd_labels(labels)
    gold_items = np.arange(0, 90, 3)
    gold = (gold_items, truth[gold_items])
    split = _fold_split(data, _label_folds(data, 3), gold)
    dealt = np.sort(np.concatenate([items for items, _ in split.gold_withheld]))
    np.testing.assert_array_equal(dealt, gold_items)
    for (given, _), (out, classes) in zip(split.known, split.gold_withheld):
        assert not set(given) & set(out) and len(given) + len(out) == len(gold_items)
        np.testing.assert_array_equal(classes, truth[out])
    held = held_out(DawidSkene().posteriors_on, data, split)
    n_labels = int((split.folds >= 0).sum())
    assert len(held.said) == n_labels + len(gold_items)
    scored = held.said[n_labels:]
    np.testing.assert_array_equal(scored.argmax(axis=1), np.concatenate([c for _, c in split.gold_withheld]))
    assert set(np.unique(scored)) == {0.0, 1.0}
    # a withheld gold item's posterior is the fit's own, not one-hot on its class
    assert (held.posteriors[n_labels:].max(axis=1) < 1.0).any()


def test_stacking_weights_against_a_grid_on_the_simplex():
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 1.0, (3, 400))
    p[1] *= 1.3  # one clearly better model, two that add something
    p = np.minimum(p, 1.0)
    w = _stacking_weights(p)
    assert w.min() >= 0 and abs(w.sum() - 1) < 1e-9
    best = max((np.mean(np.log(np.array(g) @ p)), g)
               for a, b in itertools.product(np.linspace(0, 1, 101), repeat=2) if a + b <= 1
               for g in [(a, b, 1 - a - b)])
    assert np.mean(np.log(w @ p)) >= best[0] - 1e-9


# --- the choice --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("panel, ordered, family", [
    (one_coin_panel, False, ["one_coin_dawid_skene"]),
    (full_confusion_panel, False, ["dawid_skene"]),  # full confusions
    (ordinal_panel, True, ["ordinal_dawid_skene"]),
])
def test_auto_picks_the_generating_model(panel, ordered, family):
    """Without the anchors, the withheld labels' likelihood finds the model that made the labels."""
    labels, truth = panel()
    auto = Auto(ordered=ordered, anchor=None, margin=None, calibrate="tempering").fit(labels)
    assert auto.choice_ in family, auto.report_
    assert auto.weights_[family].sum() > 0.5
    report = auto.report_.set_index("candidate")
    # the generating model predicts the withheld labels best, after tempering
    assert report["tempered_log_likelihood"].idxmax() in family
    # and its labels are at least as right as every candidate's but for a few items
    accuracy = (auto.labels_.to_numpy() == truth).mean()
    for name in auto.candidate_names():
        other = make_truth_estimator(name).fit(labels).labels_.to_numpy()
        assert accuracy >= (other == truth).mean() - 0.01, name


def test_the_default_anchor_refuses_a_model_that_overturns_the_majority():
    """On a panel where every judge mistakes one class for another 90% of the time, full Dawid-Skene corrects
    the majority vote on a few items (it agrees with it on 0.915 of them, measured) and finds the classes; the
    one-coin model, which cannot express those confusions, overturns the majority on a third of the items and
    is wrong there. The default anchor (0.9) gives the one-coin model no weight and keeps Dawid-Skene."""
    labels, truth = full_confusion_panel()
    auto = Auto().fit(labels)
    report = auto.report_.set_index("candidate")
    assert not report.loc["one_coin_dawid_skene", "anchored"] and report.loc["one_coin_dawid_skene", "weight"] == 0
    assert report.loc["one_coin_dawid_skene", "majority_agreement"] < 0.9 <= report.loc["dawid_skene",
                                                                                        "majority_agreement"]
    assert auto.choice_ == "dawid_skene"
    accuracy = {name: (make_truth_estimator(name).fit(labels).labels_.to_numpy() == truth).mean()
                for name in ("majority_vote", "one_coin_dawid_skene", "dawid_skene")}
    assert accuracy["one_coin_dawid_skene"] < accuracy["majority_vote"] - 0.1
    assert (auto.labels_.to_numpy() == truth).mean() >= accuracy["dawid_skene"] - 0.005


def test_an_anchor_that_nothing_passes_keeps_the_candidate_that_predicts_best():
    labels, _ = full_confusion_panel(n_items=300)
    auto = Auto(candidates=["one_coin_dawid_skene", "dawid_skene"], anchor=1.0, margin=None).fit(labels)
    report = auto.report_.set_index("candidate")
    kept = report["pooled_log_likelihood"].idxmax()
    assert report["anchored"].sum() == 1 and report.loc[kept, "anchored"] and report.loc[kept, "weight"] == 1.0


def test_auto_never_reads_a_truth_column():
    labels, truth = full_confusion_panel(n_items=300)
    plain = Auto().fit(labels)
    with_truth = Auto().fit(labels.assign(truth=truth[labels["item"].str[1:].astype(int)]))
    pd.testing.assert_frame_equal(plain.proba_, with_truth.proba_)
    pd.testing.assert_frame_equal(plain.report_.drop(columns="seconds"), with_truth.report_.drop(columns="seconds"))


def test_auto_keeps_gold_items_and_reports_a_judge_model():
    labels, truth = one_coin_panel(n_items=200)
    items = sorted(labels["item"].unique())[:20]
    gold = pd.DataFrame({"item": items, "truth": (truth[:20] + 1) % 4})  # known answers the crowd disagrees with
    auto = Auto().fit(labels, gold=gold)
    assert (auto.labels_[items].to_numpy() == gold["truth"].to_numpy()).all()
    assert (auto.proba_.loc[items].max(axis=1) == 1.0).all()
    assert auto.confusions_.shape == (labels["judge"].nunique() * 4, 4)
    assert auto.skills_.between(0, 1).all()


def test_auto_rejects_bad_parameters_before_fitting():
    with pytest.raises(ValueError, match="unknown truth method"):
        make_truth_estimator("auto", {"candidates": ["dawid_skene", "no_such_method"]})
    with pytest.raises(ValueError, match="own candidate"):
        make_truth_estimator("auto", {"candidates": ["auto"]})
    with pytest.raises(ValueError, match="n_folds"):
        make_truth_estimator("auto", {"n_folds": 1})
    with pytest.raises(ValueError, match="calibrate"):
        make_truth_estimator("auto", {"calibrate": "platt"})


def test_every_method_has_scikit_learn_params_and_calibrate():
    for name in ("majority_vote", "wawa", "dawid_skene", "one_coin_dawid_skene", "glad", "mace", "ebcc",
                 "ordinal_dawid_skene", "auto"):
        method = make_truth_estimator(name)
        params = method.get_params()
        assert "calibrate" in params
        copy = type(method)(**params)
        assert copy.get_params() == params
    assert repr(DawidSkene()) == "DawidSkene()"
    assert repr(DawidSkene(smoothing=1.0, calibrate="tempering")) == "DawidSkene(smoothing=1.0, calibrate='tempering')"
    assert repr(Auto(calibrate=None)) == "Auto(calibrate=None)"
    with pytest.raises(ValueError, match="no parameter"):
        DawidSkene().set_params(smothing=1.0)
    with pytest.raises(ValueError, match="calibrate"):
        DawidSkene(calibrate="platt").fit(one_coin_panel(n_items=20)[0])
    with pytest.raises(ValueError, match="calibrate"):  # before any data, as config checks need
        make_truth_estimator("dawid_skene", {"calibrate": "platt"})


def test_gold_evidence_is_mcnemars_statistic_by_hand():
    from manyjudges.truth.auto.gold_choice import gold_evidence

    right = np.array([1, 1, 1, 1, 0, 0, 1, 0], dtype=bool)
    reference = np.array([0, 0, 0, 1, 1, 0, 1, 0], dtype=bool)
    # only right: items 0, 1, 2 (b = 3); only the reference: item 4 (c = 1): (3 - 1) / sqrt(4) = 1
    assert gold_evidence(right, reference) == pytest.approx(1.0)
    assert gold_evidence(right, right) == 0.0
    assert gold_evidence(reference, right) == pytest.approx(-1.0)
