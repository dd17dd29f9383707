"""GLAD: the E-step against a brute-force product, the M-step gradient against finite differences,
truth recovery on a constructed panel, EM's monotone objective, and crowd-kit's GLAD (same model)."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth import GLAD
from manyjudges.truth.methods.glad import _e_step, _neg_q


def simulate(n_items=40, alphas=(2.0, 1.5, 1.0, 1.0, 0.5, -1.0), k=2, per_item=None, seed=0):
    """Labels from the GLAD model: P(correct) = sigmoid(alpha_w beta_i), wrong labels uniform."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    beta = np.exp(rng.normal(0.5, 0.5, n_items))
    rows = []
    for i in range(n_items):
        judges = range(len(alphas)) if per_item is None else rng.choice(len(alphas), per_item, replace=False)
        for w in judges:
            if rng.random() < 1.0 / (1.0 + np.exp(-alphas[w] * beta[i])):
                label = truth[i]
            else:
                label = (truth[i] + rng.integers(1, k)) % k
            rows.append((i, w, int(label)))
    return pd.DataFrame(rows, columns=["item", "judge", "label"]), truth


def test_e_step_matches_brute_force_product():
    labels, _ = simulate(n_items=7, k=3, per_item=3, seed=1)
    data = as_crowd_labels(labels)
    rng = np.random.default_rng(2)
    alpha, log_beta = rng.normal(0.5, 1.0, data.n_judges), rng.normal(0.0, 0.7, data.n_items)
    post, loglik = _e_step(data, alpha, log_beta)
    expected_loglik = 0.0
    for i in range(data.n_items):
        like = np.full(3, 1.0 / 3)
        for e in np.flatnonzero(data.item == i):
            right = 1.0 / (1.0 + np.exp(-alpha[data.judge[e]] * np.exp(log_beta[i])))
            for z in range(3):
                like[z] *= right if data.label[e] == z else (1.0 - right) / 2
        np.testing.assert_allclose(post[i], like / like.sum(), rtol=1e-12)
        expected_loglik += np.log(like.sum())
    assert loglik == pytest.approx(expected_loglik, rel=1e-12)


def test_m_step_gradient_matches_finite_differences():
    labels, _ = simulate(n_items=9, k=3, per_item=4, seed=3)
    data = as_crowd_labels(labels)
    rng = np.random.default_rng(4)
    q = rng.random(data.n_labels)
    params = np.concatenate([rng.normal(0.5, 1.0, data.n_judges), rng.normal(0.0, 0.5, data.n_items)])
    prior = (1.0, 1.5, 0.5, 0.8)
    _, grad = _neg_q(params, data, q, prior)
    step = 1e-6
    numeric = np.array([(_neg_q(params + step * e, data, q, prior)[0] - _neg_q(params - step * e, data, q, prior)[0])
                        / (2 * step) for e in np.eye(len(params))])
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


def test_recovers_truth_and_spots_the_adversarial_judge():
    # four reliable judges, each wrong on a different item, and one who is always wrong: majority vote
    # ties or errs nowhere, but only a model that learns a negative ability can turn the adversary around
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 30)
    rows = []
    for i, t in enumerate(truth):
        for w in range(4):
            rows.append((i, w, int(t) if i % 4 != w else 1 - int(t)))
        rows.append((i, 4, 1 - int(t)))
    fit = GLAD().fit(pd.DataFrame(rows, columns=["item", "judge", "label"]))
    assert (fit.labels_.to_numpy() == truth).all()
    assert fit.skills_.iloc[4] < 0 < fit.skills_.iloc[:4].min()
    assert fit.converged_


def test_log_posterior_never_decreases_and_attributes():
    labels, _ = simulate(n_items=60, k=3, per_item=4, seed=6)
    fit = GLAD(tol=0.0, max_iter=30).fit(labels)
    history = np.asarray(fit.objective_history_)
    assert len(history) == fit.n_iter_ + 1
    assert fit.n_iter_ >= 5
    assert (np.diff(history) >= -1e-9 * np.abs(history[1:])).all()
    assert history[-1] > history[0]
    assert fit.log_posterior_ == history[-1]
    assert list(fit.betas_.index) == list(fit.proba_.index)
    np.testing.assert_allclose(fit.difficulty_ * fit.betas_, 1.0)
    np.testing.assert_allclose(fit.proba_.sum(axis=1), 1.0)
    assert fit.confusions_ is None


def test_matches_crowdkit_glad():
    # the same model, priors and start; crowd-kit's M-step is 25 conjugate-gradient iterations stopped at a
    # gradient of 0.01 (ours: L-BFGS-B, the same limits) and it stops when its Q first fails to rise by 1e-5,
    # so the two end points differ by about the M-step's gradient tolerance (measured: up to 0.011 in log beta
    # on 20-item panels where crowd-kit runs 7 to 10 iterations, 0.0006 on this one); a different prior, start
    # or error model moves them by tenths
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    labels, _ = simulate(n_items=10, k=3, per_item=4, seed=13)
    ours = GLAD().fit(labels)
    theirs = crowdkit.GLAD().fit(labels.rename(columns={"item": "task", "judge": "worker"}))
    assert (theirs.labels_.reindex(ours.labels_.index) == ours.labels_).all()
    np.testing.assert_allclose(theirs.probas_.reindex(index=ours.proba_.index, columns=ours.proba_.columns),
                               ours.proba_, atol=0.01)
    np.testing.assert_allclose(theirs.alphas_.reindex(ours.skills_.index), ours.skills_, atol=0.01)
    # crowd-kit's betas_ are the log inverse difficulties
    np.testing.assert_allclose(theirs.betas_.reindex(ours.betas_.index), np.log(ours.betas_), atol=0.01)
    assert np.abs(ours.skills_ - 1.0).max() > 0.3  # the abilities moved well away from their start


@pytest.mark.parametrize("name, value", [
    ("max_iter", 0), ("max_iter", 2.5), ("tol", -1.0), ("alpha_sd", 0.0), ("log_beta_sd", -1.0),
    ("alpha_mean", float("nan")), ("log_beta_mean", "1"), ("m_step_max_iter", 0), ("m_step_tol", 0.0),
])
def test_rejects_bad_parameters(name, value):
    labels, _ = simulate(n_items=5)
    with pytest.raises(ValueError, match=name):
        GLAD(**{name: value}).fit(labels)
