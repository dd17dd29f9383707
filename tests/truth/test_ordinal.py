"""OrdinalDawidSkene (truth/methods/ordinal/): the confusion formula, derivatives, the M-step optimum, EM by
enumeration."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.stats import norm

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.core.random_streams import rng_for
from manyjudges.truth.methods.ordinal.estimator import OrdinalDawidSkene
from manyjudges.truth.methods.ordinal.probit import (
    _cut_objective,
    _default_cuts,
    _judge_objective,
    _newton_cut_step,
    _newton_m_step,
    _ordinal_confusion,
    _ordinal_log_confusion,
    _spacing_prior,
)
from manyjudges.truth.simulate import simulate_labels


def simulate(n_items: int, n_judges: int, per_item: int, k: int, seed: int
             ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Judge w reports the bin (c - 1/2, c + 1/2) holding t + b_w + s_w N(0, 1), end bins open."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    bias, scale = rng.normal(0.0, 0.5, n_judges), rng.uniform(0.3, 1.5, n_judges)
    item = np.repeat(np.arange(n_items), per_item)
    judge = np.concatenate([rng.choice(n_judges, per_item, replace=False) for _ in range(n_items)])
    latent = truth[item] + bias[judge] + scale[judge] * rng.normal(size=len(item))
    label = np.clip(np.floor(latent + 0.5), 0, k - 1).astype(int)
    return pd.DataFrame({"item": item, "judge": judge, "label": label}), truth, bias, scale


def test_confusion_is_the_discretised_gaussian():
    rng = np.random.default_rng(0)
    bias, scale = rng.normal(0, 1, 4), rng.uniform(0.2, 3.0, 4)
    conf = _ordinal_confusion(bias, scale, 4)
    expected = np.zeros((4, 4, 4))
    for w in range(4):
        for t in range(4):
            for c in range(4):
                upper = np.inf if c == 3 else (c + 0.5 - t - bias[w]) / scale[w]
                lower = -np.inf if c == 0 else (c - 0.5 - t - bias[w]) / scale[w]
                expected[w, t, c] = norm.cdf(upper) - norm.cdf(lower)
    assert np.allclose(conf, expected, rtol=1e-12, atol=1e-15)
    assert np.allclose(conf.sum(axis=2), 1.0)


def test_log_confusion_is_accurate_far_in_the_tails():
    # s = 0.05: P(c | t = 0) for c = 2 is the N(0, 1) mass on (30, 50), for c = 4 on (70, inf)
    log_conf = _ordinal_log_confusion(np.array([0.0]), np.array([0.05]), 5)[0, 0]

    def log_mass(lo, hi):  # log of the N(0, 1) mass on (lo, hi), lo > 0, as phi(lo) times an O(1) integral
        inner, _ = quad(lambda v: np.exp(-v * lo - v * v / 2), 0, hi - lo, epsabs=0, epsrel=1e-13)
        return -lo * lo / 2 - 0.5 * np.log(2 * np.pi) + np.log(inner)

    assert log_conf[2] == pytest.approx(log_mass(30.0, 50.0), rel=1e-10)
    assert log_conf[4] == pytest.approx(log_mass(70.0, np.inf), rel=1e-10)
    assert log_conf[0] == pytest.approx(np.log1p(-norm.sf(10.0)), abs=1e-15)


@pytest.mark.parametrize("point", [(1.3, 0.4), (0.2, -0.1), (12.0, 5.0)])
def test_gradient_and_hessian_match_finite_differences(point):
    rng = np.random.default_rng(1)
    weights = rng.uniform(0.0, 3.0, (3, 4, 4))
    a = np.array([point[0], point[0] * 0.7, point[0] * 1.5])
    d = np.array([point[1], -point[1], 2 * point[1]])
    _, grad, hess = _judge_objective(a, d, weights)
    h = 1e-6 * max(1.0, point[0])
    for i, (da, dd) in enumerate(((h, 0.0), (0.0, h))):
        up, g_up, _ = _judge_objective(a + da, d + dd, weights)
        down, g_down, _ = _judge_objective(a - da, d - dd, weights)
        assert np.allclose(grad[:, i], (up - down) / (2 * h), rtol=1e-5, atol=1e-5)
        assert np.allclose(hess[:, :, i], (g_up - g_down) / (2 * h), rtol=1e-5, atol=1e-5)
    # concave in (a, d): -H positive definite
    assert np.all(hess[:, 0, 0] < 0) and np.all(np.linalg.det(hess) > 0)


def test_m_step_reaches_each_judges_optimum():
    rng = np.random.default_rng(2)
    weights = rng.uniform(0.0, 1.0, (5, 4, 4)) * 0.05
    weights[:, np.arange(4), np.arange(4)] += rng.uniform(2.0, 10.0, (5, 4))  # mostly right
    weights[:, np.arange(3), np.arange(1, 4)] += rng.uniform(0.0, 3.0, (5, 3))  # some one class too high
    a, d = _newton_m_step(np.ones(5), np.zeros(5), weights)
    ours, _, _ = _judge_objective(a, d, weights, derivatives=False)
    for w in range(5):  # the reference: Nelder-Mead on (b, log s), the natural parameters
        def negative(x, w=w):
            conf = _ordinal_log_confusion(np.array([x[0]]), np.exp(np.array([x[1]])), 4)[0]
            return -float(np.sum(weights[w] * conf))
        best = minimize(negative, x0=[0.0, 0.0], method="Nelder-Mead",
                        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000})
        assert ours[w] >= -best.fun - 1e-7
        assert -d[w] / a[w] == pytest.approx(best.x[0], abs=1e-4)
        assert 1 / a[w] == pytest.approx(np.exp(best.x[1]), rel=1e-4)


def test_tiny_panel_against_enumeration_of_every_truth():
    labels = pd.DataFrame({"item": [0, 0, 0, 1, 1, 2, 2, 2], "judge": [0, 1, 2, 0, 2, 0, 1, 2],
                           "label": [0, 1, 0, 2, 2, 1, 2, 1]})
    eps = 0.05
    est = OrdinalDawidSkene(smoothing=eps, max_iter=7, tol=0.0).fit(labels)
    assert est.n_iter_ == 7 and not est.converged_
    k = 3
    assert est.locations_.iloc[0] == 0.0 and est.locations_.iloc[-1] == pytest.approx(k - 1, abs=1e-12)
    assert est.cuts_.mean() == pytest.approx((k - 1) / 2, abs=1e-12)
    cuts = est.cuts_.to_numpy()[None, :] - est.locations_.to_numpy()[:, None]
    conf = _ordinal_confusion(est.bias_.to_numpy(), est.scale_.to_numpy(), k, cuts=cuts, lapse=est.lapse_.to_numpy())
    assert np.allclose(est.confusions_.to_numpy().reshape(3, k, k), conf)
    prior = est.priors_.to_numpy()
    joint = {}
    for truth in itertools.product(range(k), repeat=3):
        p = np.prod(prior[list(truth)])
        for i, w, y in labels.itertuples(index=False):
            p *= conf[w, truth[i], y]
        joint[truth] = p
    evidence = sum(joint.values())
    a, d, lapse, l0 = 1 / est.scale_.to_numpy(), -est.bias_.to_numpy() / est.scale_.to_numpy(), est.lapse_, 0.1
    log_priors = (-0.5 * est.ridge * np.sum((a - 1) ** 2 + d ** 2)
                  + est.lapse_prior * np.sum(l0 * np.log(lapse) + (1 - l0) * np.log1p(-lapse))
                  + est.spacing * np.sum(np.log(np.diff(est.locations_.to_numpy()))))
    penalised = np.log(evidence) + eps * (np.log(conf).sum() + np.log(prior).sum()) + log_priors
    assert est.objective_ == pytest.approx(penalised, rel=1e-12)
    for i in range(3):
        marginal = [sum(p for t, p in joint.items() if t[i] == c) / evidence for c in range(k)]
        assert np.allclose(est.proba_.to_numpy()[i], marginal, atol=1e-12)
    assert np.allclose(est.skills_.to_numpy(), conf[:, np.arange(k), np.arange(k)] @ prior)


@pytest.mark.parametrize("accelerate", [False, True])
def test_em_never_lowers_the_penalised_likelihood(accelerate):
    labels, _, _, _ = simulate(200, 40, 3, 5, seed=3)
    est = OrdinalDawidSkene(max_iter=60, tol=0.0, accelerate=accelerate).fit(labels, classes=range(5))
    steps = np.diff(est.objective_trace_)
    if not accelerate:  # one objective per EM iteration; SQUAREM's trace holds its accepted states only
        assert len(steps) == 59
    assert est.n_iter_ == 60
    assert steps.min() >= -1e-9 * abs(est.objective_)
    assert est.objective_trace_[-1] > est.objective_trace_[0] + 1.0


def test_beats_majority_vote_with_few_labels_per_judge():
    labels, truth, bias, _ = simulate(400, 80, 3, 5, seed=0)  # 15 labels per judge, 3 per item
    # the model that drew the panel: equally spaced classes, no lapses (the default's extra freedom costs
    # accuracy on these panels: 0.64 at seed 0)
    est = OrdinalDawidSkene(learn_cuts=False, lapse=False).fit(labels, classes=range(5))
    accuracy = float(np.mean(est.labels_.to_numpy() == truth))
    majority = float(np.mean(np.argmax(as_crowd_labels(labels, classes=range(5)).class_counts, axis=1) == truth))
    assert accuracy >= majority + 0.08
    assert np.corrcoef(est.bias_.to_numpy(), bias)[0, 1] > 0.8


def test_recovers_bias_and_scale_with_many_labels():
    labels, truth, bias, scale = simulate(300, 10, 10, 5, seed=2)  # every judge labels all 300 items
    est = OrdinalDawidSkene().fit(labels, classes=range(5))
    assert np.max(np.abs(est.bias_.to_numpy() - bias)) < 0.2
    assert np.max(np.abs(est.scale_.to_numpy() / scale - 1)) < 0.2
    assert np.mean(np.abs(est.bias_.to_numpy() - bias)) < 0.1
    assert float(np.mean(est.labels_.to_numpy() == truth)) > 0.9


def test_two_classes_and_named_ordered_classes():
    labels = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2, 3, 3], "judge": [0, 1, 0, 1, 0, 1, 0, 1],
                           "label": ["low", "low", "high", "high", "low", "high", "high", "high"]})
    est = OrdinalDawidSkene().fit(labels, classes=["low", "high"])
    assert np.isfinite(est.proba_.to_numpy()).all()
    assert list(est.labels_.loc[[0, 1]]) == ["low", "high"]


@pytest.mark.parametrize("name, value", [("max_iter", 0), ("tol", -1e-3), ("smoothing", -0.5), ("smoothing", "x"),
                                         ("learn_cuts", 1), ("lapse", "yes"), ("ridge", -1.0),
                                         ("lapse_prior", "x"), ("spacing", -2), ("accelerate", 0)])
def test_bad_parameters_are_named(name, value):
    labels = pd.DataFrame({"item": [0, 1], "judge": [0, 0], "label": [0, 1]})
    with pytest.raises(ValueError, match=name):
        OrdinalDawidSkene(**{name: value}).fit(labels)


def test_cut_gradient_and_hessian_match_finite_differences():
    rng = np.random.default_rng(4)
    weights = rng.uniform(0.0, 3.0, (6, 4, 4))
    a, d = rng.uniform(0.3, 2.0, 6), rng.normal(0.0, 0.5, 6)
    cuts = _default_cuts(4) + rng.normal(0.0, 0.1, (4, 3))
    _, grad, hess = _cut_objective(a, d, weights, cuts)
    h = 1e-6
    for t, j in itertools.product(range(4), range(3)):
        step = np.zeros((4, 3))
        step[t, j] = h
        up, g_up, _ = _cut_objective(a, d, weights, cuts + step)
        down, g_down, _ = _cut_objective(a, d, weights, cuts - step)
        assert grad[t, j] == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-5)
        numeric = (g_up - g_down) / (2 * h)  # column (t, j) of the Hessian: only row t's block is nonzero
        assert np.allclose(hess[t, :, j], numeric[t], rtol=1e-5, atol=1e-5)
        assert np.allclose(np.delete(numeric, t, axis=0), 0.0, atol=1e-5)


def test_cut_step_raises_the_objective_keeps_the_normalisation_and_the_order():
    labels, _, _, _ = simulate(300, 10, 10, 5, seed=5)
    est = OrdinalDawidSkene(learn_cuts=False, lapse=False, max_iter=3).fit(labels, classes=range(5))
    weights = np.random.default_rng(6).uniform(0.0, 5.0, (10, 5, 5))
    a, d = 1 / est.scale_.to_numpy(), -est.bias_.to_numpy() / est.scale_.to_numpy()
    start = _default_cuts(5)
    cuts = _newton_cut_step(a, d, weights, start)
    before, _, _ = _cut_objective(a, d, weights, start, derivatives=False)
    after, _, _ = _cut_objective(a, d, weights, cuts, derivatives=False)
    assert after > before
    mu, tau = cuts[0, 0] - cuts[:, 0], cuts[0]  # mu_0 = 0: row 0 of the table is tau itself
    assert mu[0] == 0.0 and mu[-1] == pytest.approx(4.0, abs=1e-12)
    assert np.allclose(cuts, tau[None, :] - mu[:, None])  # still tau_{j+1} - mu_t
    assert tau.mean() == pytest.approx(2.0, abs=1e-12) and np.all(np.diff(tau) > 0) and np.all(np.diff(mu) > 0)


def test_learned_class_locations_stay_in_order():
    # on this panel, without lapses, the unconstrained step put mu_2 below mu_1 (0, 2.11, 2.10, 2.22, 4)
    labels, _, _, _ = simulate(400, 80, 3, 5, seed=0)
    est = OrdinalDawidSkene(lapse=False).fit(labels, classes=range(5))
    assert np.all(np.diff(est.locations_.to_numpy()) > 0) and np.all(np.diff(est.cuts_.to_numpy()) > 0)


@pytest.mark.parametrize("seed", [1, 3])
def test_stops_at_the_fixed_point(seed):
    labels, _, _, _ = simulate(300, 30, 5, 4, seed=seed)
    est = OrdinalDawidSkene().fit(labels, classes=range(4))
    assert est.converged_ and est.n_iter_ < est.max_iter
    # the point plain EM reaches with a tolerance a thousand times tighter: the same, and SQUAREM got there faster
    plain = OrdinalDawidSkene(tol=est.tol / 1000, accelerate=False, max_iter=100_000).fit(labels, classes=range(4))
    assert plain.converged_ and plain.n_iter_ > est.n_iter_
    assert np.abs(est.proba_.to_numpy() - plain.proba_.to_numpy()).max() < 10 * est.tol
    capped = OrdinalDawidSkene(max_iter=3).fit(labels, classes=range(4))
    assert capped.n_iter_ == 3 and not capped.converged_


def test_lapse_rates_find_the_random_labellers():
    labels, truth, _, _ = simulate(400, 20, 6, 5, seed=2)
    rng = np.random.default_rng(3)
    spammers = labels["judge"] < 4  # judges 0-3 answer uniformly at random
    labels.loc[spammers, "label"] = rng.integers(0, 5, int(spammers.sum()))
    lapse = OrdinalDawidSkene().fit(labels, classes=range(5)).lapse_.to_numpy()
    assert lapse[:4].min() > 0.5 > lapse[4:].max()


def test_two_classes_have_no_cut_point_to_learn():
    labels, _, _, _ = simulate(200, 10, 5, 2, seed=4)
    learned = OrdinalDawidSkene(lapse=False).fit(labels, classes=range(2))
    fixed = OrdinalDawidSkene(lapse=False, learn_cuts=False).fit(labels, classes=range(2))
    assert learned.cuts_.tolist() == [0.5] and learned.locations_.tolist() == [0.0, 1.0]
    np.testing.assert_array_equal(learned.proba_.to_numpy(), fixed.proba_.to_numpy())


def test_spacing_prior_gradient_and_hessian_match_finite_differences():
    cuts = _default_cuts(5) + np.array([[0.0], [0.3], [-0.2], [0.1], [0.0]])  # mu = (0, 0.7, 2.2, 2.9, 4)
    mu = cuts[0, 0] - cuts[:, 0]
    value, grad, hess = _spacing_prior(cuts, 2.0)
    assert value == pytest.approx(2.0 * np.sum(np.log(np.diff(mu))), rel=1e-14)
    h = 1e-6
    for t in range(5):
        step = np.zeros((5, 1))
        step[t] = -h  # x[t, :] = tau - mu_t: mu_t up by h
        up, g_up, _ = _spacing_prior(cuts + step, 2.0)
        down, g_down, _ = _spacing_prior(cuts - step, 2.0)
        assert grad[t] == pytest.approx((up - down) / (2 * h), rel=1e-6)
        np.testing.assert_allclose(hess[:, t], (g_up - g_down) / (2 * h), rtol=1e-5, atol=1e-6)
    assert _spacing_prior(cuts, 0.0)[0] == 0.0


def test_two_classes_never_share_a_location():
    # the default config's simulated ordinal panel: with ridge 1 and no spacing prior, classes 1 and 2 met (mu_1 =
    # mu_2 = 1.872) and EM crawled along the split of their items (0.498 or 0.64 accuracy, by where it stopped)
    labels, truth, _ = simulate_labels(rng_for(0, "truth", "sim_labels_ordinal"), n_items=500, n_judges=60,
                                       labels_per_item=3, n_classes=5, judge_mix={"good": 0.9, "random": 0.1},
                                       good_accuracy=0.6, ordinal=True)
    est = OrdinalDawidSkene().fit(labels)
    assert est.converged_ and np.diff(est.locations_.to_numpy()).min() > 0.3
    truth = truth.set_index("item")["truth"]
    assert float((est.labels_.reindex(truth.index) == truth).mean()) > 0.66
