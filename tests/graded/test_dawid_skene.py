"""Dawid-Skene (manyjudges.graded.dawid_skene): the EM against a loop-based reference EM, and the
Dawid-Skene predictor against the loop references."""
from __future__ import annotations

import math

import numpy as np
import pytest
from reference import drop_judge, ref_ds_votes, ref_prior, reference_em

from manyjudges.core.dawid_skene_em import DawidSkeneResult, dawid_skene

from .helpers import K3, SPARSE, panel_of, triples


def random_panel(rng, n_items, n_judges, k, density, duplicates=0):
    """Random labels; each (item, judge) pair observed with probability ``density``."""
    mask = rng.random((n_items, n_judges)) < density
    item, judge = np.nonzero(mask)
    if duplicates:
        extra = rng.integers(0, len(item), duplicates)  # the same judge labels the same item again
        item, judge = np.r_[item, item[extra]], np.r_[judge, judge[extra]]
    truth = rng.integers(0, k, n_items)
    label = np.where(rng.random(len(item)) < 0.6, truth[item], rng.integers(0, k, len(item)))
    order = rng.permutation(len(item))
    return item[order], judge[order], label[order]


def run(item, judge, label, n_items, n_judges, k, **kw):
    return dawid_skene(item, judge, label, n_items=n_items, n_judges=n_judges, n_classes=k, **kw)


PANELS = [  # (seed, n_items, n_judges, K, density, duplicates)
    (0, 12, 4, 2, 1.0, 0),   # dense, binary
    (1, 15, 5, 3, 1.0, 0),   # dense, 3 classes
    (2, 25, 7, 4, 0.35, 0),  # sparse: some items and maybe judges without labels
    (3, 30, 6, 3, 0.25, 5),  # sparse with repeated (item, judge) labels
]


@pytest.mark.parametrize("seed,n_items,n_judges,k,density,duplicates", PANELS)
@pytest.mark.parametrize("smoothing,init", [(0.01, "majority"), (0.0, "majority"), (0.5, "hard_majority")])
def test_matches_loop_reference(seed, n_items, n_judges, k, density, duplicates, smoothing, init):
    rng = np.random.default_rng(seed)
    item, judge, label = random_panel(rng, n_items, n_judges, k, density, duplicates)
    if density < 1:  # sparse: also one judge and one item beyond every index used (no labels)
        n_items, n_judges = n_items + 1, n_judges + 1
    n_iter = 7
    res = run(item, judge, label, n_items, n_judges, k, max_iter=n_iter, tol=0.0, smoothing=smoothing, init=init)
    post, conf, prior, ll = reference_em(item, judge, label, n_items, n_judges, k, n_iter, smoothing, init)
    assert isinstance(res, DawidSkeneResult)
    assert res.n_iter == n_iter and not res.converged
    assert res.posteriors.shape == (n_items, k) and res.confusion.shape == (n_judges, k, k) and res.priors.shape == (k,)
    np.testing.assert_allclose(res.posteriors, post, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.confusion, conf, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.priors, prior, rtol=0, atol=1e-10)
    assert res.log_likelihood == pytest.approx(ll, rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(res.posteriors.sum(1), 1.0, atol=1e-12)
    np.testing.assert_allclose(res.confusion.sum(2), 1.0, atol=1e-12)
    assert res.priors.sum() == pytest.approx(1.0, abs=1e-12)


def test_input_order_does_not_matter():
    rng = np.random.default_rng(4)
    item, judge, label = random_panel(rng, 40, 6, 3, 0.5)
    a = run(item, judge, label, 40, 6, 3, max_iter=20, tol=0.0)
    p = rng.permutation(len(item))
    b = run(item[p], judge[p], label[p], 40, 6, 3, max_iter=20, tol=0.0)
    np.testing.assert_allclose(a.posteriors, b.posteriors, atol=1e-12)
    np.testing.assert_allclose(a.confusion, b.confusion, atol=1e-12)


@pytest.mark.parametrize("smoothing", [0.0, 0.01, 1.0])
def test_objective_never_decreases(smoothing):
    """EM monotonicity: the log-likelihood (s = 0) or its Dirichlet-penalised version (s > 0)."""
    rng = np.random.default_rng(5)
    item, judge, label = random_panel(rng, 60, 8, 3, 0.4)
    lls, objectives = [], []
    for m in range(1, 26):
        r = run(item, judge, label, 60, 8, 3, max_iter=m, tol=0.0, smoothing=smoothing)
        assert r.n_iter == m
        lls.append(r.log_likelihood)
        penalty = smoothing * (np.log(r.confusion).sum() + np.log(r.priors).sum()) if smoothing else 0.0
        objectives.append(r.log_likelihood + penalty)
    steps = np.diff(objectives)
    assert steps.min() >= -1e-9 * abs(objectives[-1]), steps
    if smoothing == 0.0:
        assert np.diff(lls).min() >= -1e-9 * abs(lls[-1])
    assert objectives[-1] > objectives[0]  # and it does move


def simulated_panel(seed=0, n_items=300, k=3):
    """8 judges: 6 good (diagonal 0.7..0.85), one random (uniform), one adversarial (says t+1)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    confusions = []
    for acc in (0.7, 0.75, 0.75, 0.8, 0.8, 0.85):
        c = np.full((k, k), (1 - acc) / (k - 1))
        np.fill_diagonal(c, acc)
        confusions.append(c)
    confusions.append(np.full((k, k), 1.0 / k))  # random
    adversarial = np.full((k, k), 0.05)
    adversarial[np.arange(k), (np.arange(k) + 1) % k] = 0.9  # systematically shifted
    confusions.append(adversarial)
    confusions = np.array(confusions)
    n_judges = len(confusions)
    item = np.repeat(np.arange(n_items), n_judges)
    judge = np.tile(np.arange(n_judges), n_items)
    cum = confusions[judge, truth[item]].cumsum(axis=1)
    label = (rng.random(len(item))[:, None] > cum).sum(axis=1)
    return item, judge, label, truth, confusions


def test_recovers_simulated_truth():
    item, judge, label, truth, confusions = simulated_panel()
    res = run(item, judge, label, len(truth), len(confusions), 3)
    assert res.converged and res.n_iter < 100
    accuracy = float(np.mean(res.labels == truth))
    assert accuracy >= 0.95, accuracy
    diag = np.diagonal(res.confusion, axis1=1, axis2=2).mean(axis=1)
    assert diag[:6].min() > 0.6, diag
    assert diag[6] < 0.5, diag  # random judge: about 1/3
    assert diag[7] < 0.15, diag  # adversarial judge: about 0.05
    np.testing.assert_allclose(res.confusion, confusions, atol=0.15)
    # the soft vote alone is worse (the adversarial judge pulls it off)
    votes = np.bincount(item * 3 + label, minlength=len(truth) * 3).reshape(-1, 3)
    assert accuracy > float(np.mean(votes.argmax(1) == truth))


def test_unlabelled_items_get_the_prior_and_unlabelled_judges_are_uniform():
    rng = np.random.default_rng(6)
    item, judge, label = random_panel(rng, 30, 5, 3, 0.5)
    keep = (item % 3 != 0) & (judge != 2)  # items 0, 3, 6, ... and judge 2 get no labels
    n_items, n_judges = 33, 7  # plus items 30..32 and judges 5, 6 beyond every index used
    res = run(item[keep], judge[keep], label[keep], n_items, n_judges, 3, smoothing=0.05)
    empty_items = np.setdiff1d(np.arange(n_items), item[keep])
    assert set(range(0, 30, 3)) | {30, 31, 32} == set(empty_items.tolist())
    np.testing.assert_allclose(res.posteriors[empty_items], np.broadcast_to(res.priors, (len(empty_items), 3)),
                               atol=1e-12)
    for j in (2, 5, 6):
        np.testing.assert_allclose(res.confusion[j], 1.0 / 3, atol=1e-15)
    assert np.isfinite(res.log_likelihood) and np.isfinite(res.posteriors).all()
    # the same as fitting without the empty ones (they carry no information)
    items_used, item_c = np.unique(item[keep], return_inverse=True)
    judges_used, judge_c = np.unique(judge[keep], return_inverse=True)
    compact = run(item_c, judge_c, label[keep], len(items_used), len(judges_used), 3, smoothing=0.05)
    np.testing.assert_allclose(res.posteriors[items_used], compact.posteriors, atol=1e-12)
    np.testing.assert_allclose(res.confusion[judges_used], compact.confusion, atol=1e-12)
    assert res.log_likelihood == pytest.approx(compact.log_likelihood, rel=1e-12)


def test_unlabelled_judge_uniform_without_smoothing():
    item, judge, label = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])
    res = run(item, judge, label, 2, 3, 2, smoothing=0.0)
    np.testing.assert_allclose(res.confusion[2], 0.5)
    np.testing.assert_allclose(res.labels, [0, 1])


def test_converges_and_stops_early():
    rng = np.random.default_rng(7)
    item, judge, label = random_panel(rng, 80, 6, 3, 0.7)
    loose = run(item, judge, label, 80, 6, 3, tol=1e-2, max_iter=500)
    tight = run(item, judge, label, 80, 6, 3, tol=1e-10, max_iter=500)
    assert loose.converged and tight.converged
    assert 1 <= loose.n_iter < tight.n_iter < 500
    capped = run(item, judge, label, 80, 6, 3, tol=1e-10, max_iter=3)
    assert capped.n_iter == 3 and not capped.converged


def test_single_label_item_and_list_input():
    res = dawid_skene([0], [0], [1], n_items=1, n_judges=1, n_classes=2)
    assert res.posteriors.shape == (1, 2) and res.labels.tolist() == [1]


GOOD = dict(item=np.array([0, 1]), judge=np.array([0, 1]), label=np.array([0, 1]))


@pytest.mark.parametrize("change,message", [
    (dict(item=np.array([], dtype=int), judge=np.array([], dtype=int), label=np.array([], dtype=int)), "no labels"),
    (dict(item=[], judge=[], label=[]), "no labels"),
    (dict(item=np.array([0, 1, 1])), "same length"),
    (dict(label=np.array([0.0, 1.0])), "integers"),
    (dict(judge=np.array([[0, 1]])), "one-dimensional"),
    (dict(item=np.array([0, 2])), r"item index 2 outside 0\.\.1"),
    (dict(item=np.array([-1, 0])), "item index -1"),
    (dict(judge=np.array([0, 5])), "judge index 5"),
    (dict(label=np.array([0, 2])), r"label index 2 outside 0\.\.1"),
    (dict(n_classes=1), "n_classes must be an integer >= 2"),
    (dict(n_items=0), "n_items must be"),
    (dict(n_judges=2.0), "n_judges must be"),
    (dict(max_iter=0), "max_iter"),
    (dict(tol=-1.0), "tol"),
    (dict(tol=float("nan")), "tol"),
    (dict(smoothing=-0.1), "smoothing"),
    (dict(smoothing="a"), "smoothing"),
    (dict(init="random"), "init must be one of"),
])
def test_bad_input(change, message):
    kw = dict(GOOD, n_items=2, n_judges=2, n_classes=2)
    kw.update(change)
    with pytest.raises(ValueError, match=message):
        dawid_skene(kw.pop("item"), kw.pop("judge"), kw.pop("label"), **kw)


# --------------------------------------------------------------------------------------------
# Dawid-Skene as a predictor (DawidSkenePredictor)
# --------------------------------------------------------------------------------------------

def test_dawid_skene_predictor_matches_loops():
    from manyjudges.graded.dawid_skene import DawidSkenePredictor, dawid_skene

    panel = panel_of(SPARSE)
    trip = triples(panel)
    method = DawidSkenePredictor()
    votes = ref_ds_votes(trip, panel.n_items, panel.n_judges, K3, dawid_skene)
    pi = ref_prior(trip, K3)
    got = method.fit(panel, {"tau": 0.2}).predict_proba()
    for d in range(panel.n_items):
        expected = [0.8 * votes[d][c] + 0.2 * pi[c] for c in range(K3)] if d in votes else pi
        np.testing.assert_allclose(got[d], expected, rtol=1e-10)

    # tau: the argmax of the leave-one-training-judge-out objective (EM refitted without i)
    held = {i: (ref_ds_votes(drop_judge(trip, i), panel.n_items, panel.n_judges, K3, dawid_skene),
                ref_prior(drop_judge(trip, i), K3)) for i in range(panel.n_judges)}

    def loglik(tau):
        total = 0.0
        for d, i, z in trip:
            v, p = held[i]
            total += math.log((1 - tau) * v[d][z] + tau * p[z] if d in v else p[z])
        return total

    tau = method.choose_parameters(panel)["tau"]
    grid = np.linspace(0.001, 0.999, 999)
    assert loglik(tau) >= max(loglik(t) for t in grid) - 1e-9
