"""Supervised Dawid-Skene and the best judge: the judges learned from the gold items alone, against direct loops."""
import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import as_crowd_labels, canonical_order
from manyjudges.truth import make_truth_estimator
from manyjudges.truth.methods.supervised import BestJudge, SupervisedDawidSkene


def panel(seed=0, n_items=60, n_judges=5, k=3, per_item=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    rows = []
    for i in range(n_items):
        for w in rng.choice(n_judges, per_item, replace=False):
            said = truth[i] if rng.random() < 0.4 + 0.1 * w else rng.integers(0, k)
            rows.append((f"i{i:02d}", f"w{w}", int(said)))
    return pd.DataFrame(rows, columns=["item", "judge", "label"]), truth


def loop_model(item, judge, label, n_judges, k, gold, s=1.0):
    """Each judge's confusion from the gold items it labelled, shrunk to the pooled one; priors from the gold."""
    known = dict(zip(*gold))
    n = np.zeros((n_judges, k, k))
    for i, w, c in zip(item, judge, label):
        if i in known:
            n[w, known[i], c] += 1
    pooled = n.sum(axis=0) + 1e-9
    pooled /= pooled.sum(axis=1, keepdims=True)
    pi = np.zeros_like(n)
    for w in range(n_judges):
        for t in range(k):
            for c in range(k):
                pi[w, t, c] = (n[w, t, c] + s * pooled[t, c]) / (n[w, t].sum() + s)
    prior = np.array([(list(known.values()).count(t) + 1) / (len(known) + k) for t in range(k)])
    return pi, prior


def test_supervised_dawid_skene_is_naive_bayes_on_the_gold_confusions():
    labels, truth = panel()
    data = canonical_order(as_crowd_labels(labels))
    gold = (np.arange(0, data.n_items, 4), truth[np.arange(0, data.n_items, 4)])
    pi, prior = loop_model(data.item, data.judge, data.label, data.n_judges, data.n_classes, gold)
    expected = np.tile(prior, (data.n_items, 1))
    for i, w, c in zip(data.item, data.judge, data.label):
        expected[i] *= pi[w, :, c]
    expected /= expected.sum(axis=1, keepdims=True)
    expected[gold[0]] = np.eye(data.n_classes)[gold[1]]  # the fit sets the gold items to their class
    got = SupervisedDawidSkene().posteriors_on(data, gold)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_best_judge_takes_each_items_judge_best_on_the_gold():
    labels, truth = panel(1)
    data = canonical_order(as_crowd_labels(labels))
    gold = (np.arange(0, data.n_items, 3), truth[np.arange(0, data.n_items, 3)])
    known = dict(zip(*gold))
    k = data.n_classes
    right, seen = np.zeros(data.n_judges), np.zeros(data.n_judges)
    for i, w, c in zip(data.item, data.judge, data.label):
        if i in known:
            right[w] += c == known[i]
            seen[w] += 1
    accuracy = np.maximum((right + right.sum() / seen.sum()) / (seen + 1), 1 / k)
    prior = np.array([(list(known.values()).count(t) + 1) / (len(known) + k) for t in range(k)])
    expected = np.tile(prior, (data.n_items, 1))
    for i in range(data.n_items):
        mine = [(w, c) for j, w, c in zip(data.item, data.judge, data.label) if j == i]
        w, c = max(mine, key=lambda wc: (accuracy[wc[0]], -wc[0]))
        expected[i] = [accuracy[w] if t == c else (1 - accuracy[w]) / (k - 1) for t in range(k)]
    expected[gold[0]] = np.eye(k)[gold[1]]
    fitted = BestJudge().posteriors_on(data, gold)
    np.testing.assert_allclose(fitted, expected, atol=1e-12)


def test_without_gold_one_dawid_skene_step_from_the_label_shares():
    labels, _ = panel(2)
    data = canonical_order(as_crowd_labels(labels))
    counts = data.class_counts / data.class_counts.sum(axis=1, keepdims=True)
    n = np.zeros((data.n_judges, data.n_classes, data.n_classes))
    for i, w, c in zip(data.item, data.judge, data.label):
        n[w, :, c] += counts[i]
    pooled = n.sum(axis=0) + 1e-9
    pooled /= pooled.sum(axis=1, keepdims=True)
    pi = (n + pooled) / (n.sum(axis=2, keepdims=True) + 1.0)
    prior = (counts.sum(axis=0) + 1) / (data.n_items + data.n_classes)
    expected = np.tile(prior, (data.n_items, 1))
    for i, w, c in zip(data.item, data.judge, data.label):
        expected[i] *= pi[w, :, c]
    np.testing.assert_allclose(SupervisedDawidSkene().posteriors_on(data), expected / expected.sum(1, keepdims=True),
                               atol=1e-12)


def test_supervised_follows_the_gold_against_a_unanimous_swap():
    """Every judge swaps the two classes: the gold says so, and supervised Dawid-Skene gives each item the class
    opposite to its labels (the best judge takes a judge's labels as they are: it cannot)."""
    rows = [(f"i{i}", f"w{w}", 1 - i % 2) for i in range(40) for w in range(3)]
    labels = pd.DataFrame(rows, columns=["item", "judge", "label"])
    gold = pd.Series([i % 2 for i in range(0, 40, 5)], index=[f"i{i}" for i in range(0, 40, 5)])
    fitted = make_truth_estimator("supervised_dawid_skene").fit(labels, gold=gold)
    assert (fitted.labels_[[f"i{i}" for i in range(40)]].to_numpy() == np.arange(40) % 2).all()
