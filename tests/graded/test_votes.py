"""M1 and the weighted-vote predictors M2, M3, M23 (manyjudges.graded.votes) against the loop references."""
from __future__ import annotations

import numpy as np
import pytest
from reference import ref_D, ref_m1_loglik, ref_m1_predict, ref_votes_loglik, ref_votes_predict
from reference.graded_previous import cooccurrence as pair_cooccurrence

from manyjudges.graded.votes import (
    M1,
    THETA_RIDGE,
    WeightedVotes,
    conditional_distributions,
    cooccurrence,
    item_pairs,
)

from .helpers import K3, PANELS, central_gradient, panel_of, triples

# --------------------------------------------------------------------------------------------
# M1
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PANELS)
@pytest.mark.parametrize("tau", [0.0, 0.3, 0.9])
def test_m1_predict_matches_loops(kind, tau):
    """P(c|dp) = (1 - tau) n_c/n + tau pi_c; unlabelled items get pi."""
    panel = panel_of(PANELS[kind])
    got = M1().fit(panel, {"tau": tau}).predict_proba()
    np.testing.assert_allclose(got, ref_m1_predict(triples(panel), panel.n_items, K3, tau), rtol=1e-13)


@pytest.mark.parametrize("kind", PANELS)
def test_m1_fitted_tau_maximises_leave_one_judge_out(kind):
    """M1.fit's tau is the argmax of the loop leave-one-training-judge-out objective."""
    panel = panel_of(PANELS[kind])
    trip = triples(panel)
    tau = M1().choose_parameters(panel)["tau"]
    grid = np.linspace(0.001, 0.999, 999)
    values = [ref_m1_loglik(trip, K3, t) for t in grid]
    assert ref_m1_loglik(trip, K3, tau) >= max(values) - 1e-9
    assert abs(tau - grid[int(np.argmax(values))]) <= 2e-3


# --------------------------------------------------------------------------------------------
# M2, M3, M23 (WeightedVotes)
# --------------------------------------------------------------------------------------------

VOTE_KINDS = {"m2": (True, False), "m3": (False, True), "m23": (True, True)}


def _theta(n, seed):
    return np.random.default_rng(seed).normal(0, 0.8, n)


@pytest.mark.parametrize("kind", PANELS)
@pytest.mark.parametrize("name", VOTE_KINDS)
def test_weighted_votes_objective_matches_loops(kind, name):
    """objective(theta) = -(loop leave-one-judge-out log-probability) + ridge; D^(-i) by loops."""
    lv, cv = VOTE_KINDS[name]
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    panel = panel_of(PANELS[kind])
    trip = triples(panel)
    votes = method._votes(panel)
    tau = 0.27
    for seed in range(3):
        theta = _theta(votes.n_params, seed)
        f, _ = method.objective(theta, votes, tau)
        expected = -ref_votes_loglik(theta, trip, K3, panel.n_judges, tau, lv, cv) \
            + 0.5 * THETA_RIDGE * float(theta @ theta)
        assert f == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kind", PANELS)
@pytest.mark.parametrize("name", VOTE_KINDS)
def test_weighted_votes_gradient_matches_finite_differences(kind, name):
    lv, cv = VOTE_KINDS[name]
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    panel = panel_of(PANELS[kind])
    votes = method._votes(panel)
    theta = _theta(votes.n_params, 11)
    _, grad = method.objective(theta, votes, 0.4)
    numeric = central_gradient(lambda x: method.objective(x, votes, 0.4)[0], theta)
    np.testing.assert_allclose(grad, numeric, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("kind", PANELS)
@pytest.mark.parametrize("name", VOTE_KINDS)
def test_weighted_votes_predict_matches_loops(kind, name):
    """predict() for random theta equals the loop mixture of votes (D from the whole training panel)."""
    lv, cv = VOTE_KINDS[name]
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    panel = panel_of(PANELS[kind])
    n_params = panel.n_judges * (lv + cv * K3)
    theta = _theta(n_params, 5)
    got = method.fit(panel, {"theta": theta, "tau": 0.35}).predict_proba()
    expected = ref_votes_predict(theta, triples(panel), panel.n_items, K3, panel.n_judges, 0.35, lv, cv)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("kind", PANELS)
def test_conditional_distributions_match_loops(kind):
    panel = panel_of(PANELS[kind])
    D = ref_D(triples(panel), K3, panel.n_judges)
    got = conditional_distributions(panel)
    for (j, c), row in D.items():
        np.testing.assert_allclose(got[j, c], row, rtol=1e-14)


@pytest.mark.parametrize("kind", PANELS)
def test_cooccurrence_counts_equal_the_pair_list_counts(kind):
    """The pair-free co-occurrence counts equal the counts over every listed (target, vote) pair."""
    panel = panel_of(PANELS[kind])
    t, s = item_pairs(panel)
    np.testing.assert_array_equal(cooccurrence(panel), pair_cooccurrence(panel, t, s))


@pytest.mark.parametrize("kind", PANELS)
@pytest.mark.parametrize("name", VOTE_KINDS)
def test_weighted_votes_fit_is_a_stationary_point(kind, name):
    """The fitted theta is (numerically) a minimum of the loop objective; tau is M1's."""
    lv, cv = VOTE_KINDS[name]
    panel = panel_of(PANELS[kind])
    trip = triples(panel)
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    params = method.choose_parameters(panel)
    assert params["tau"] == pytest.approx(M1().choose_parameters(panel)["tau"])

    def f(x):
        return -ref_votes_loglik(x, trip, K3, panel.n_judges, params["tau"], lv, cv) \
            + 0.5 * THETA_RIDGE * float(x @ x)

    theta = params["theta"]
    assert np.all(np.abs(theta) < 15.0)
    assert np.max(np.abs(central_gradient(f, theta, 1e-5))) < 1e-4
