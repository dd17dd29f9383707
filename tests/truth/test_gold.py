"""Gold items (known answers) in the fit: Dawid-Skene's EM with their posteriors fixed, against a
direct loop; what gold buys on a panel with adversarial judges; the rules of gold tables."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.core.dawid_skene_em import dawid_skene
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth import TRUTH_METHODS, DawidSkene, MajorityVote, OneCoinDawidSkene, make_truth_estimator


def loop_em(item, judge, label, n_items, n_judges, k, known, n_iter, s):
    """Semi-supervised Dawid-Skene EM item by item, label by label: the reference."""
    post = np.full((n_items, k), 1.0 / k)
    for i in range(n_items):
        mine = [label[e] for e in range(len(item)) if item[e] == i]
        post[i] = [mine.count(c) / len(mine) for c in range(k)]
    for i, c in zip(*known):
        post[i] = np.eye(k)[c]
    for _ in range(n_iter):
        conf = np.full((n_judges, k, k), s)
        for e in range(len(item)):
            conf[judge[e], :, label[e]] += post[item[e]]
        conf /= conf.sum(axis=2, keepdims=True)
        prior = post.sum(axis=0) + s
        prior /= prior.sum()
        new = np.tile(np.log(prior), (n_items, 1))
        for e in range(len(item)):
            new[item[e]] += np.log(conf[judge[e], :, label[e]])
        new = np.exp(new - new.max(axis=1, keepdims=True))
        post = new / new.sum(axis=1, keepdims=True)
        for i, c in zip(*known):
            post[i] = np.eye(k)[c]
    return post, conf


def test_em_with_gold_is_the_direct_loop():
    rng = np.random.default_rng(2)
    n_items, n_judges, k = 12, 4, 3
    item = np.repeat(np.arange(n_items), 3)
    judge = np.concatenate([rng.choice(n_judges, 3, replace=False) for _ in range(n_items)])
    label = rng.integers(0, k, len(item))
    known = (np.array([1, 5, 7]), np.array([2, 0, 1]))
    res = dawid_skene(item, judge, label, n_items=n_items, n_judges=n_judges, n_classes=k, max_iter=30, tol=0.0,
                      smoothing=0.1, known=known)
    post, conf = loop_em(item, judge, label, n_items, n_judges, k, known, res.n_iter, 0.1)
    np.testing.assert_allclose(res.posteriors, post, atol=1e-10)
    np.testing.assert_allclose(res.confusion, conf, atol=1e-10)
    assert (res.labels[known[0]] == known[1]).all()


def adversarial_panel(seed=0, n_items=400, n_judges=20, per_item=5):
    """Binary labels; 8 of 20 judges answer against the truth 80% of the time, the rest right 70%."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    accuracy = np.where(np.arange(n_judges) < 8, 0.2, 0.7)
    rows = []
    for i in range(n_items):
        for w in rng.choice(n_judges, per_item, replace=False):
            rows.append((f"i{i}", f"w{w}", int(truth[i] if rng.random() < accuracy[w] else 1 - truth[i])))
    labels = pd.DataFrame(rows, columns=["item", "judge", "label"])
    return labels, pd.Series(truth, index=[f"i{i}" for i in range(n_items)]), accuracy


def test_gold_helps_dawid_skene_learn_adversarial_judges():
    labels, truth, accuracy = adversarial_panel()
    gold = truth.iloc[::10]   # 10% of the items
    rest = truth.drop(gold.index)
    plain = DawidSkene().fit(labels)
    helped = DawidSkene().fit(labels, gold=gold)
    judges = plain.confusions_.index.get_level_values("judge").unique()
    true_acc = pd.Series(accuracy, index=[f"w{w}" for w in range(len(accuracy))])[judges]

    def confusion_error(est):
        conf = est.confusions_.to_numpy().reshape(-1, 2, 2)
        return float(np.mean(np.abs(conf[:, [0, 1], [0, 1]] - true_acc.to_numpy()[:, None])))

    assert confusion_error(helped) < confusion_error(plain)
    assert (helped.labels_[rest.index] == rest).mean() >= (plain.labels_[rest.index] == rest).mean()
    assert (helped.labels_[gold.index] == gold).all()
    np.testing.assert_array_equal(helped.proba_.loc[gold.index].to_numpy(), np.eye(2)[gold.to_numpy()])
    pd.testing.assert_series_equal(helped.gold_.sort_index(), gold.rename("label").rename_axis("item").sort_index(),
                                   check_dtype=False)


@pytest.mark.parametrize("estimator", [OneCoinDawidSkene(), MajorityVote()])
def test_gold_items_keep_their_class(estimator):
    labels, truth, _ = adversarial_panel(1)
    gold = pd.DataFrame({"item": truth.index[:30], "truth": truth.to_numpy()[:30]})
    fitted = estimator.fit(labels, gold=gold)
    assert (fitted.labels_[gold["item"]].to_numpy() == gold["truth"].to_numpy()).all()


def test_gold_tables_are_checked():
    labels, truth, _ = adversarial_panel(2, n_items=40)
    with pytest.raises(ValueError, match="class 7 is not among the labels' classes"):
        DawidSkene().fit(labels, gold=pd.DataFrame({"item": ["i1"], "truth": [7]}))
    with pytest.raises(ValueError, match="item 'i1' is given twice"):
        DawidSkene().fit(labels, gold=pd.DataFrame({"item": ["i1", "i1"], "truth": [0, 1]}))
    with pytest.warns(DataWarning, match="1 of 2 gold items have no labels"):
        fitted = DawidSkene().fit(labels, gold=pd.DataFrame({"item": ["i1", "nowhere"], "truth": [1, 0]}))
    assert fitted.gold_.index.tolist() == ["i1"]   # an item without labels carries nothing to fit

    class NoGold(MajorityVote):
        gold_use = None

    with pytest.raises(ValueError, match="NoGold does not use gold items"):
        NoGold().fit(labels, gold=truth)


def test_every_registered_method_takes_gold():
    assert {name: make_truth_estimator(name).gold_use for name in TRUTH_METHODS} == {
        name: ("labels" if name.startswith(("majority_vote", "wawa")) else "fit") for name in TRUTH_METHODS}


def test_without_gold_every_method_is_unchanged():
    labels, _, _ = adversarial_panel(3, n_items=60)
    for name in sorted(TRUTH_METHODS):
        a, b = make_truth_estimator(name).fit(labels), make_truth_estimator(name).fit(labels, gold=None)
        pd.testing.assert_frame_equal(a.proba_, b.proba_)
        assert a.gold_ is None
