"""DawidSkene (manyjudges.truth.methods.dawid_skene): recovery of a simulated truth, the fitted posteriors,
log-likelihood and skills against enumeration, the stopping rule, zero probabilities at s = 0,
and crowd-kit's DawidSkene (fixed iteration counts: the same posteriors; defaults: the same labels)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.dawid_skene_em import dawid_skene
from manyjudges.truth import DawidSkene

from .mv_panels import for_crowdkit, simulated_table


def simulated_confusion_table(seed=0, n_items=400, k=3):
    """7 judges with known confusions, each labelling every item: 5 good, one random, one shifting t -> t+1."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, n_items, p=[0.5, 0.3, 0.2])
    confusions = []
    for acc in (0.65, 0.7, 0.75, 0.8, 0.85):
        c = np.full((k, k), (1 - acc) / (k - 1))
        np.fill_diagonal(c, acc)
        confusions.append(c)
    confusions.append(np.full((k, k), 1 / k))
    shift = np.full((k, k), 0.05)
    shift[np.arange(k), (np.arange(k) + 1) % k] = 0.9
    confusions.append(shift)
    confusions = np.array(confusions)
    item = np.repeat(np.arange(n_items), len(confusions))
    judge = np.tile(np.arange(len(confusions)), n_items)
    cum = confusions[judge, truth[item]].cumsum(axis=1)
    label = np.minimum((rng.random(item.size)[:, None] > cum).sum(axis=1), k - 1)
    return pd.DataFrame({"item": item, "judge": judge, "label": label}), truth, confusions


def test_recovers_simulated_truth_and_confusions():
    table, truth, confusions = simulated_confusion_table()
    ds = DawidSkene().fit(table)
    assert ds.converged_ and 1 < ds.n_iter_ < 100
    assert (ds.labels_.to_numpy() == truth).mean() >= 0.95
    fitted = ds.confusions_.to_numpy().reshape(confusions.shape)
    assert np.abs(fitted - confusions).max() < 0.12  # the shifting judge's matrix included
    np.testing.assert_allclose(ds.priors_.to_numpy(), [0.5, 0.3, 0.2], atol=0.05)
    # skill = sum_t p[t] pi[w, t, t]
    expected = np.einsum("t,wtt->w", ds.priors_.to_numpy(), fitted)
    np.testing.assert_allclose(ds.skills_.to_numpy(), expected, atol=1e-15)
    # the expected accuracy of a judge right with probability a whatever the truth is a; 1/3 for the random one
    np.testing.assert_allclose(ds.skills_.to_numpy(), [0.65, 0.7, 0.75, 0.8, 0.85, 1 / 3, 0.05], atol=0.06)


def enumerate_posteriors(table: pd.DataFrame, priors, confusion, k):
    """P(truth | labels) and the log-likelihood by direct products over each item's labels."""
    posts, ll = {}, 0.0
    for item, rows in table.groupby("item"):
        joint = [priors[t] * math.prod(confusion[w][t][c] for w, c in zip(rows["judge"], rows["label"]))
                 for t in range(k)]
        ll += math.log(sum(joint))
        posts[item] = [x / sum(joint) for x in joint]
    return posts, ll


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_final_e_step_and_log_likelihood_by_enumeration(smoothing):
    table, _ = simulated_table(4, n_items=30, n_judges=5, k=3, per_item=3)
    ds = DawidSkene(smoothing=smoothing).fit(table)
    conf = ds.confusions_.to_numpy().reshape(5, 3, 3)
    posts, ll = enumerate_posteriors(table, ds.priors_.to_numpy(), conf, 3)
    np.testing.assert_allclose(ds.proba_.to_numpy(), [posts[i] for i in ds.proba_.index], atol=1e-12)
    assert ds.log_likelihood_ == pytest.approx(ll, rel=1e-12)
    np.testing.assert_allclose(ds.proba_.to_numpy().sum(axis=1), 1.0, atol=1e-12)
    if smoothing:
        assert conf.min() > 0


def test_stops_on_the_log_likelihood_gain():
    table, _ = simulated_table(5, n_items=80, n_judges=6, k=2, per_item=4)
    data = dict(n_items=80, n_judges=6, n_classes=2, smoothing=0.0)
    lls = [dawid_skene(table["item"].to_numpy(), table["judge"].to_numpy(), table["label"].to_numpy(),
                       max_iter=m, tol=0.0, stop="log_likelihood", **data).log_likelihood for m in range(1, 40)]
    gains = np.diff(lls) / len(table)
    assert gains.min() >= -1e-12  # EM at s = 0 never lowers the log-likelihood
    tol = 1e-4
    expected = 1 + int(np.argmax(gains < tol)) + 1  # the first iteration whose gain is below tol
    ds = DawidSkene(tol=tol).fit(table)
    assert ds.n_iter_ == expected and ds.converged_
    assert ds.log_likelihood_ == pytest.approx(lls[expected - 1], rel=1e-12)
    assert DawidSkene(max_iter=2, tol=0.0).fit(table).n_iter_ == 2


def test_graded_function_rejects_unknown_model_and_stop():
    args = (np.array([0, 1]), np.array([0, 0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="model"):
        dawid_skene(*args, n_items=2, n_judges=1, n_classes=2, model="two_coin")
    with pytest.raises(ValueError, match="stop"):
        dawid_skene(*args, n_items=2, n_judges=1, n_classes=2, stop="never")


@pytest.mark.parametrize("init", ["majority", "hard_majority"])
def test_zero_probabilities_do_not_break_the_fit(init):
    """s = 0 on panels built for exact zeros: judges who never err, classes nobody uses, one label per item."""
    rows = []
    for i in range(12):  # judges a and b always agree with each other; c always says 0; d labels alone
        truth = i % 2
        rows += [(i, "a", truth), (i, "b", truth), (i, "c", 0)]
    rows += [(12, "a", 0), (12, "b", 1), (13, "d", 1), (14, "d", 0)]  # a and b disagree once; d's items alone
    table = pd.DataFrame(rows, columns=["item", "judge", "label"])
    ds = DawidSkene(smoothing=0.0, init=init).fit(table, classes=[0, 1, 2])
    proba = ds.proba_.to_numpy()
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    assert (proba[:, 2] == 0).all() and ds.priors_[2] == 0  # nobody said 2
    assert (ds.confusions_.to_numpy() == 0).any()  # exact zeros happened
    assert np.isfinite(ds.log_likelihood_)
    assert ds.labels_.iloc[:12].tolist() == [i % 2 for i in range(12)]


@pytest.mark.parametrize("value,name", [(0, "max_iter"), (2.5, "max_iter"), (-1e-3, "tol"), (float("nan"), "tol"),
                                        (-1.0, "smoothing"), ("x", "smoothing")])
def test_bad_parameters(value, name):
    with pytest.raises(ValueError, match=name):
        DawidSkene(**{name: value}).fit(pd.DataFrame({"item": [1], "judge": [1], "label": [0]}))
    with pytest.raises(ValueError, match="init"):
        DawidSkene(init="random").fit(pd.DataFrame({"item": [1], "judge": [1], "label": [0]}))


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("seed,k", [(0, 2), (1, 3)])
def test_matches_crowdkit(seed, k):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    # every judge labels every item, and no class is unanimous often enough to leave a confusion row
    # without posterior mass (where crowd-kit and this class fill the row differently: module docstring)
    table, truth = simulated_table(seed, n_items=60, n_judges=5, k=k, per_item=5, accuracy=(0.6, 0.85))
    for n_iter in (1, 4):
        ck = crowdkit.DawidSkene(n_iter=n_iter, tol=-np.inf)
        ck.fit(for_crowdkit(table))
        ours = DawidSkene(max_iter=n_iter, tol=0.0).fit(table)
        assert ours.n_iter_ == n_iter
        probas = ck.probas_.reindex(index=ours.proba_.index, columns=ours.proba_.columns).to_numpy()
        np.testing.assert_allclose(ours.proba_.to_numpy(), probas, rtol=0, atol=1e-8)
    # defaults: crowd-kit stops on its own loss (module docstring), often later than the log-likelihood rule
    ck = crowdkit.DawidSkene()
    ck_labels = ck.fit_predict(for_crowdkit(table)).reindex(table["item"].unique()).sort_index()
    same_steps = DawidSkene(max_iter=len(ck.loss_history_), tol=0.0).fit(table)
    assert (same_steps.labels_ == ck_labels).all()
    ours = DawidSkene().fit(table)
    assert ours.n_iter_ < len(ck.loss_history_)
    correct = int((ours.labels_.to_numpy() == truth).sum())
    assert correct > 48 and abs(correct - int((ck_labels.to_numpy() == truth).sum())) <= 1
