"""OneCoinDawidSkene (manyjudges.truth.methods.one_coin): a loop-written one-coin EM, recovery of simulated
accuracies, accuracies that reach 1 at s = 0, and crowd-kit's OneCoinDawidSkene."""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from manyjudges.truth import OneCoinDawidSkene

from .mv_panels import for_crowdkit, simulated_table


def loop_one_coin(table: pd.DataFrame, k: int, n_iter: int, s: float):
    """One-coin EM with dicts and loops: soft-vote start, then n_iter x (M-step, E-step)."""
    by_item, by_judge = defaultdict(list), defaultdict(list)
    for i, w, c in table[["item", "judge", "label"]].itertuples(index=False):
        by_item[i].append((w, c))
        by_judge[w].append((i, c))
    post = {}
    for i, labs in by_item.items():
        post[i] = [sum(c == t for _, c in labs) / len(labs) for t in range(k)]
    for _ in range(n_iter):
        prior = [sum(p[t] for p in post.values()) + s for t in range(k)]
        prior = [x / sum(prior) for x in prior]
        acc, err = {}, {}
        for w, labs in by_judge.items():
            right = sum(post[i][c] for i, c in labs)
            wrong = sum(post[i][t] for i, c in labs for t in range(k) if t != c)
            acc[w] = (right + k * s) / (right + wrong + k * k * s)
            err[w] = (wrong + k * (k - 1) * s) / ((right + wrong + k * k * s) * (k - 1))
        new = {}
        for i, labs in by_item.items():
            logs = [math.log(prior[t]) + sum(math.log(acc[w] if c == t else err[w]) for w, c in labs)
                    for t in range(k)]
            top = max(logs)
            z = sum(math.exp(x - top) for x in logs)
            new[i] = [math.exp(x - top) / z for x in logs]
        post = new
    return post, acc


@pytest.mark.parametrize("seed,k,s", [(0, 2, 0.0), (1, 3, 0.0), (2, 4, 0.5)])
def test_matches_loop_reference(seed, k, s):
    table, _ = simulated_table(seed, n_items=40, n_judges=6, k=k, per_item=3)
    post, acc = loop_one_coin(table, k, 6, s)
    ours = OneCoinDawidSkene(max_iter=6, tol=0.0, smoothing=s).fit(table)
    assert ours.n_iter_ == 6
    np.testing.assert_allclose(ours.proba_.to_numpy(), [post[i] for i in ours.proba_.index], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.skills_.to_numpy(), [acc[w] for w in ours.skills_.index], rtol=0, atol=1e-12)
    conf = ours.confusions_.to_numpy().reshape(-1, k, k)
    np.testing.assert_allclose(conf.sum(axis=2), 1.0, atol=1e-12)
    off = conf[:, ~np.eye(k, dtype=bool)]
    np.testing.assert_allclose(off, np.repeat((1 - ours.skills_.to_numpy())[:, None] / (k - 1), k * (k - 1), 1),
                               atol=1e-12)


def test_recovers_simulated_accuracies():
    rng = np.random.default_rng(11)
    n_items, k = 500, 3
    accuracy = np.array([0.45, 0.55, 0.65, 0.75, 0.85, 0.95])
    truth = rng.integers(0, k, n_items)
    item = np.repeat(np.arange(n_items), len(accuracy))
    judge = np.tile(np.arange(len(accuracy)), n_items)
    wrong = (truth[item] + rng.integers(1, k, item.size)) % k
    label = np.where(rng.random(item.size) < accuracy[judge], truth[item], wrong)
    ours = OneCoinDawidSkene().fit(pd.DataFrame({"item": item, "judge": judge, "label": label}))
    assert ours.converged_ and (ours.labels_.to_numpy() == truth).mean() > 0.95
    np.testing.assert_allclose(ours.skills_.to_numpy(), accuracy, atol=0.04)


def test_accuracies_of_one_at_zero_smoothing():
    """Two judges who always agree with the outcome get accuracy 1 (error share exactly 0): disagreeing
    labels then have probability 0, and no item may become impossible under every class."""
    rows = []
    for i in range(30):
        rows += [(i, "a", i % 2), (i, "b", i % 2), (i, "c", (i // 3) % 2)]
    rows += [(30, "c", 1), (31, "a", 1), (31, "c", 0)]
    table = pd.DataFrame(rows, columns=["item", "judge", "label"])
    ours = OneCoinDawidSkene(smoothing=0.0, max_iter=200, tol=0.0).fit(table)
    assert ours.skills_["a"] == 1.0 and ours.skills_["b"] == 1.0
    assert (ours.confusions_.to_numpy() == 0).any()
    proba = ours.proba_.to_numpy()
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0) and np.isfinite(ours.log_likelihood_)
    assert ours.labels_.iloc[:30].tolist() == [i % 2 for i in range(30)] and ours.labels_[31] == 1


@pytest.mark.parametrize("value,name", [(0, "max_iter"), (-1.0, "tol"), (-0.5, "smoothing"), (None, "smoothing")])
def test_bad_parameters(value, name):
    with pytest.raises(ValueError, match=name):
        OneCoinDawidSkene(**{name: value}).fit(pd.DataFrame({"item": [1], "judge": [1], "label": [0]}))


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3)])
def test_matches_crowdkit(seed, k):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    table, truth = simulated_table(seed, n_items=60, n_judges=6, k=k, per_item=4, accuracy=(0.55, 0.85))
    for n_iter in (1, 5):
        ck = crowdkit.OneCoinDawidSkene(n_iter=n_iter, tol=-np.inf)
        ck.fit(for_crowdkit(table))
        ours = OneCoinDawidSkene(max_iter=n_iter, tol=0.0).fit(table)
        probas = ck.probas_.reindex(index=ours.proba_.index, columns=ours.proba_.columns).to_numpy()
        np.testing.assert_allclose(ours.proba_.to_numpy(), probas, rtol=0, atol=1e-8)
    ck = crowdkit.OneCoinDawidSkene()
    ck_labels = ck.fit_predict(for_crowdkit(table)).reindex(table["item"].unique()).sort_index()
    same_steps = OneCoinDawidSkene(max_iter=len(ck.loss_history_), tol=0.0).fit(table)
    assert (same_steps.labels_ == ck_labels).all()
    # crowd-kit's skills_ come from one M-step after its last E-step: ours after one more iteration
    one_more = OneCoinDawidSkene(max_iter=len(ck.loss_history_) + 1, tol=0.0).fit(table)
    np.testing.assert_allclose(one_more.skills_.to_numpy(), ck.skills_.reindex(one_more.skills_.index), atol=1e-8)
    ours = OneCoinDawidSkene().fit(table)
    correct = int((ours.labels_.to_numpy() == truth).sum())
    assert correct > 45 and abs(correct - int((ck_labels.to_numpy() == truth).sum())) <= 1
