"""Yu et al.'s judge weights and the Gaussian predictors M4 and M4-learned (manyjudges.graded.m4)."""
from __future__ import annotations

import math
import statistics
from collections import Counter

import numpy as np
import pytest
from reference import (
    drop_judge,
    ref_gauss_logp,
    ref_m4_held_out,
    ref_m4_learned_objective,
    ref_m4_loglik,
    ref_prior,
    ref_squared_errors,
    ref_weighted_means,
    ref_yu,
)
from scipy.stats import norm

from manyjudges.graded.m4 import M4, M4Learned, gaussian_label_log_predictive, gaussian_log_predictive, yu_weights
from manyjudges.graded.panel import GradedPanel

from .helpers import K3, SPARSE, YU_PANELS, central_gradient, panel_of, structured_matrix, triples

# --------------------------------------------------------------------------------------------
# Yu weights and M4
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", YU_PANELS)
def test_yu_weights_fixed_point(kind):
    """At convergence r_j ~ e_j^(-2 beta) (e_j by loops on shared items) and mu is the r-weighted mean."""
    panel = GradedPanel.from_matrix(YU_PANELS[kind], 4)
    trip = triples(panel)
    r, mu, n_iter = yu_weights(panel, beta=0.5, tol=1e-12)
    assert n_iter < 1000
    r_dict = {j: float(r[j]) for j in range(panel.n_judges)}
    mu_ref = ref_weighted_means(trip, r_dict)
    for d in range(panel.n_items):
        if d in mu_ref:
            assert mu[d] == pytest.approx(mu_ref[d], rel=1e-12)
        else:
            assert np.isnan(mu[d])
    e2 = ref_squared_errors(trip, mu_ref)
    target = {j: e2[j] ** -0.5 for j in e2}
    total = sum(target.values())
    for j in range(panel.n_judges):
        assert r[j] == pytest.approx(target.get(j, 0.0) / total, rel=1e-8, abs=1e-12)
    # the loop iteration from uniform weights lands on the same fixed point
    r_ref, _ = ref_yu(trip)
    np.testing.assert_allclose(r, [r_ref.get(j, 0.0) for j in range(panel.n_judges)], rtol=1e-8)


def test_yu_weights_judge_without_shared_items_gets_median_error():
    """A judge whose items nobody else labelled gets the median error of the others."""
    m = structured_matrix(8, 4, 4, seed=3)
    extra = np.full((3, 4), -1)
    extra[:, 3] = [0, 2, 3]  # judge 3 also labels three items alone
    m[:, 3] = -1             # ... and nothing else
    panel = GradedPanel.from_matrix(np.vstack([m, extra]), 4)
    r, mu, _ = yu_weights(panel, tol=1e-12)
    e2 = ref_squared_errors(triples(panel), ref_weighted_means(triples(panel), dict(enumerate(r.tolist()))))
    assert e2[3] == pytest.approx(statistics.median([e2[0], e2[1], e2[2]]))
    assert r[3] == pytest.approx(e2[3] ** -0.5 / sum(v ** -0.5 for v in e2.values()), rel=1e-8)
    np.testing.assert_allclose(mu[8:], [0, 2, 3])


@pytest.mark.parametrize("predictive", ["discrete", "binned"])
def test_gaussian_log_predictive_matches_loops(predictive):
    """Rows exponentiate to 1; values equal the loop discrete / binned (open end bins) Gaussian."""
    mu = np.array([-0.7, 0.0, 0.31, 1.5, 2.2, 3.0, 4.6, 9.0])
    for sigma in (0.3, 1.0, 1.8, 5.0):
        got = gaussian_log_predictive(mu, sigma, 5, predictive)
        assert got.shape == (len(mu), 5)
        np.testing.assert_allclose(np.exp(got).sum(1), 1.0, atol=1e-12)
        expected = [ref_gauss_logp(m, sigma, 5, predictive) for m in mu]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
        if predictive == "binned":  # and scipy's normal CDF, in probability space
            edges = np.concatenate([[-np.inf], np.arange(4) + 0.5, [np.inf]])
            cdf = norm.cdf((edges[None, :] - mu[:, None]) / sigma)
            np.testing.assert_allclose(np.exp(got), np.diff(cdf, axis=1), atol=1e-13)


@pytest.mark.parametrize("predictive", ["discrete", "binned"])
def test_the_label_predictive_is_the_full_one_at_the_label(predictive):
    """Bit for bit: M4's sigma search reads only the observed labels' values."""
    rng = np.random.default_rng(3)
    mu, labels = rng.uniform(-1, 6, 500), rng.integers(0, 5, 500)
    for sigma in (0.3, 1.0, 5.0):
        full = gaussian_log_predictive(mu, sigma, 5, predictive)[np.arange(500), labels]
        assert np.array_equal(gaussian_label_log_predictive(mu, sigma, 5, labels, predictive), full)


def test_gaussian_log_predictive_rejects_unknown_option():
    with pytest.raises(ValueError, match="discrete"):
        gaussian_log_predictive(np.zeros(2), 1.0, 3, "beta")


@pytest.mark.parametrize("kind, predictive, inner_folds", [
    ("dense", "discrete", None), ("sparse", "discrete", None), ("dense", "binned", None),
    ("sparse", "binned", None), ("sparse", "discrete", 2),
])
def test_m4_fitted_sigma_maximises_loop_objective(kind, predictive, inner_folds):
    """M4.fit's sigma maximises the loop cross-induction objective (mu^(-i) by Yu's fixed point)."""
    panel = GradedPanel.from_matrix(YU_PANELS[kind], 4)
    trip = triples(panel)
    held_out = ref_m4_held_out(trip, 4, inner_folds)
    sigma = M4(predictive=predictive, inner_folds=inner_folds).choose_parameters(panel)["sigma"]
    grid = np.geomspace(0.05, 20.0, 300)
    values = [ref_m4_loglik(trip, 4, s, held_out, predictive) for s in grid]
    assert ref_m4_loglik(trip, 4, sigma, held_out, predictive) >= max(values) - 1e-7
    best = grid[int(np.argmax(values))]
    assert abs(math.log(sigma / best)) <= 0.03


@pytest.mark.parametrize("predictive", ["discrete", "binned"])
def test_m4_predict_matches_loops(predictive):
    """Predictive around Yu's mu on the whole training panel; unlabelled items get pi."""
    panel = GradedPanel.from_matrix(np.vstack([YU_PANELS["sparse"], np.full((1, 6), -1)]), 4)
    trip = triples(panel)
    _, mu = ref_yu(trip)
    pi = ref_prior(trip, 4)
    got = M4(predictive=predictive).fit(panel, {"sigma": 0.9}).predict_proba()
    for d in range(panel.n_items):
        expected = np.exp(ref_gauss_logp(mu[d], 0.9, 4, predictive)) if d in mu else pi
        np.testing.assert_allclose(got[d], expected, rtol=1e-7)


# --------------------------------------------------------------------------------------------
# M4 with learned weights
# --------------------------------------------------------------------------------------------

def _m4_learned_inputs(panel):
    """prior_t (pi^(-i) of each entry's label) and n_others per entry, by loops."""
    trip = triples(panel)
    n_on = Counter(d for d, _, _ in trip)
    prior_t = np.array([ref_prior(drop_judge(trip, j), panel.n_classes)[z] for _, j, z in trip])
    n_others = np.array([n_on[d] - 1 for d, _, _ in trip])
    return trip, prior_t, n_others


@pytest.mark.parametrize("kind", YU_PANELS)
def test_m4_learned_objective_and_gradient(kind):
    panel = GradedPanel.from_matrix(YU_PANELS[kind], 4)
    trip, prior_t, n_others = _m4_learned_inputs(panel)
    rng = np.random.default_rng(7)
    for _ in range(3):
        x = np.concatenate([rng.normal(0, 0.7, panel.n_judges), [rng.normal(0, 0.5)]])
        f, grad = M4Learned.objective(x, panel, prior_t, n_others)
        assert f == pytest.approx(ref_m4_learned_objective(x, trip, 4, panel.n_judges), rel=1e-12)
        numeric = central_gradient(lambda y: M4Learned.objective(y, panel, prior_t, n_others)[0], x)
        np.testing.assert_allclose(grad, numeric, atol=1e-6, rtol=1e-6)


def test_m4_learned_fit_is_a_stationary_point():
    """The fitted (theta, log sigma) zeroes the loop objective's gradient; predict uses them."""
    panel = GradedPanel.from_matrix(YU_PANELS["dense"], 4)
    trip = triples(panel)
    params = M4Learned().choose_parameters(panel)
    x = np.concatenate([params["theta"], [math.log(params["sigma"])]])
    assert np.all(np.abs(params["theta"]) < 15.0)
    g = central_gradient(lambda y: ref_m4_learned_objective(y, trip, 4, panel.n_judges), x, 1e-5)
    assert np.max(np.abs(g)) < 1e-3
    r = dict(enumerate(np.exp(params["theta"]).tolist()))
    mu = ref_weighted_means(trip, r)
    got = M4Learned().fit(panel, params).predict_proba()
    for d in range(panel.n_items):
        np.testing.assert_allclose(got[d], np.exp(ref_gauss_logp(mu[d], params["sigma"], 4)), rtol=1e-10)


def test_m4_learned_with_lone_labels():
    """Entries no other judge co-labelled contribute log pi^(-i) and no gradient."""
    panel = panel_of(SPARSE)
    trip, prior_t, n_others = _m4_learned_inputs(panel)
    x = np.array([0.3, -0.2, 0.5, 0.1, -0.4])
    f, grad = M4Learned.objective(x, panel, prior_t, n_others)
    assert f == pytest.approx(ref_m4_learned_objective(x, trip, K3, panel.n_judges), rel=1e-12)
    numeric = central_gradient(lambda y: M4Learned.objective(y, panel, prior_t, n_others)[0], x)
    np.testing.assert_allclose(grad, numeric, atol=1e-6, rtol=1e-6)
