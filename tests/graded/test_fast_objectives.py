"""The faster graded objectives and solvers against the previous implementations (tests/reference/
graded_previous.py), finite differences and scipy, on panels with the awkward cases: a judge with
one label, a label nobody uses, ties in the votes, an item with one label, an unlabelled item."""
from __future__ import annotations

import numpy as np
import pytest
from reference import previous_maxent_objective, previous_votes_objective
from scipy.optimize import minimize

from manyjudges.core.dawid_skene_em import dawid_skene
from manyjudges.graded.maxent import (
    FINAL_LBFGS_OPTIONS,
    M5,
    MaxentData,
    fit_maxent,
    maxent_log_proba,
    maxent_objective,
)
from manyjudges.graded.panel import GradedPanel
from manyjudges.graded.votes import WeightedVotes, _cooc_values_without_target, _count_of_each, item_pairs

from .helpers import central_gradient, structured_matrix

K5 = 5


def awkward_matrix(seed: int = 4) -> np.ndarray:
    """30 items x 7 judges, 4 labels a item, labels 0..3 of 5 (label 4 unused); judge 6 labels
    one item, item 28 has one label, item 29 none; items 0-3 all alike (tied votes)."""
    m = structured_matrix(30, 7, 4, seed=seed, per_item=4)
    m[:, 6] = -1
    m[5, 6] = 2
    m[28] = -1
    m[28, 0] = 1
    m[29] = -1
    m[0:4, :4] = 2
    m[0:4, 4:6] = -1
    return m


def shuffled(panel: GradedPanel, seed: int) -> GradedPanel:
    order = np.random.default_rng(seed).permutation(panel.n_entries)
    return GradedPanel(panel.item[order], panel.judge[order], panel.label[order], panel.n_items, panel.n_judges,
                       panel.n_classes)


@pytest.fixture(scope="module")
def awkward():
    return GradedPanel.from_matrix(awkward_matrix(), K5)


# --------------------------------------------------------------------------------------------
# Weighted votes
# --------------------------------------------------------------------------------------------

VOTES = {"m2": (True, False), "m3": (False, True), "m23": (True, True)}


@pytest.mark.parametrize("name", VOTES)
def test_votes_objective_equals_the_pair_list(awkward, name):
    lv, cv = VOTES[name]
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    votes = method._votes(awkward)
    rng = np.random.default_rng(1)
    for tau in (0.05, 0.2, 0.9):
        theta = rng.normal(0, 1.0, votes.n_params)
        f, grad = method.objective(theta, votes, tau)
        f_old, grad_old = previous_votes_objective(theta, awkward, tau, lv, cv)
        assert f == pytest.approx(f_old, rel=1e-13)
        np.testing.assert_allclose(grad, grad_old, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", VOTES)
def test_votes_gradient_matches_finite_differences(awkward, name):
    lv, cv = VOTES[name]
    method = WeightedVotes(label_votes=lv, cooccurrence_votes=cv)
    votes = method._votes(awkward)
    theta = np.random.default_rng(2).normal(0, 0.7, votes.n_params)
    _, grad = method.objective(theta, votes, 0.3)
    numeric = central_gradient(lambda x: method.objective(x, votes, 0.3)[0], theta)
    np.testing.assert_allclose(grad, numeric, atol=1e-6, rtol=1e-6)


def test_votes_fit_follows_the_previous_optimiser(awkward):
    """The same L-BFGS-B (with the same diagonal scaling) on the same objective: the fitted weights
    agree with a fit of the previous objective (rounding apart)."""
    from manyjudges.core.solvers import lbfgsb_fit
    from manyjudges.graded.votes import LBFGS_OPTIONS, THETA_BOUND

    method = WeightedVotes(label_votes=True, cooccurrence_votes=True)
    params = method.choose_parameters(awkward)
    n = len(params["theta"])
    old = lbfgsb_fit(lambda x: previous_votes_objective(x, awkward, params["tau"], True, True), np.zeros(n),
                     [(-THETA_BOUND, THETA_BOUND)] * n, maxiter=5000, scale=method._votes(awkward).scale(),
                     **LBFGS_OPTIONS)
    f_old = previous_votes_objective(old.x, awkward, params["tau"], True, True)[0]
    f_new = previous_votes_objective(params["theta"], awkward, params["tau"], True, True)[0]
    assert old.converged and f_new <= f_old + 1e-7
    np.testing.assert_allclose(params["theta"], old.x, atol=1e-4)


def test_pair_counts_by_table_and_by_sorting_agree(awkward):
    t, s = item_pairs(awkward)
    key = (awkward.judge[s] * awkward.n_judges + awkward.judge[t]) * K5 + awkward.label[t]
    size = awkward.n_judges**2 * K5
    by_table = _count_of_each(key, size)
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(by_table, counts[inverse])
    import manyjudges.graded.votes as votes_module

    old = votes_module.DENSE_PAIR_TABLE
    votes_module.DENSE_PAIR_TABLE = 0  # force the sorting path
    try:
        np.testing.assert_array_equal(_count_of_each(key, size), by_table)
        values = _cooc_values_without_target(awkward, t, s)
    finally:
        votes_module.DENSE_PAIR_TABLE = old
    np.testing.assert_array_equal(values, _cooc_values_without_target(awkward, t, s))


# --------------------------------------------------------------------------------------------
# M5
# --------------------------------------------------------------------------------------------


def _x(panel: GradedPanel, seed: int, scale: float = 0.8) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, scale, panel.n_classes + panel.n_judges * panel.n_classes**2)


def test_maxent_objective_equals_the_sparse_products(awkward):
    data = MaxentData.of(awkward)
    for seed, lam in ((0, 0.0), (1, 0.01), (2, 0.5)):
        x = _x(awkward, seed)
        f, grad = maxent_objective(x, data, lam)
        f_old, grad_old = previous_maxent_objective(x, awkward, lam)
        assert f == pytest.approx(f_old, rel=1e-13)
        np.testing.assert_allclose(grad, grad_old, rtol=1e-10, atol=1e-13)


def test_maxent_does_not_depend_on_the_entry_order(awkward):
    x = _x(awkward, 3)
    f, grad = maxent_objective(x, MaxentData.of(awkward), 0.1)
    other = MaxentData.of(shuffled(awkward, 5))
    f2, grad2 = maxent_objective(x, other, 0.1)
    assert f2 == pytest.approx(f, rel=1e-13)
    np.testing.assert_allclose(grad2, grad, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(maxent_log_proba(x, other), maxent_log_proba(x, MaxentData.of(awkward)), atol=1e-13)


def test_maxent_complete_layout_equals_the_ragged_one():
    """A panel where every present judge labels every item once (judge 2 absent) takes the complete layout;
    objective, gradient and predictions equal the ragged layout's, in any entry order."""
    m = structured_matrix(40, 6, 4, seed=11)
    m[:, 2] = -1
    panel = GradedPanel.from_matrix(m, K5)
    complete, ragged = MaxentData.of(panel), MaxentData.of(panel, "ragged")
    assert complete.slot_judges is not None and list(complete.slot_judges) == [0, 1, 3, 4, 5]
    assert ragged.slot_judges is None
    for seed, lam in ((0, 0.0), (1, 0.05)):
        x = _x(panel, seed)
        f, grad = maxent_objective(x, complete, lam)
        f_r, grad_r = maxent_objective(x, ragged, lam)
        assert f == pytest.approx(f_r, rel=1e-13)
        np.testing.assert_allclose(grad, grad_r, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(maxent_log_proba(x, complete), maxent_log_proba(x, ragged), atol=1e-13)
        other = MaxentData.of(shuffled(panel, seed))
        np.testing.assert_allclose(maxent_objective(x, other, lam)[1], grad, rtol=1e-10, atol=1e-14)


def test_maxent_layout_is_checked(awkward):
    assert MaxentData.of(awkward).slot_judges is None  # items with 1-4 labels: ragged
    # every item has two labels, but from judges 0, 1 and 1, 2: not complete
    shifted = GradedPanel(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2]), np.array([1, 2, 0, 1]), 2, 3, 3)
    assert MaxentData.of(shifted).slot_judges is None
    split = GradedPanel(np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0]), np.array([1, 2, 0, 1]), 2, 3, 3)
    assert list(MaxentData.of(split).slot_judges) == [0, 1]  # judges 0 and 1 each label both items; 2 absent
    with pytest.raises(ValueError, match="every present judge"):
        MaxentData.of(awkward, "complete")
    with pytest.raises(ValueError, match="layout"):
        MaxentData.of(awkward, "dense")


def test_maxent_gradient_matches_finite_differences(awkward):
    data = MaxentData.of(awkward)
    x = _x(awkward, 4, 0.5)
    _, grad = maxent_objective(x, data, 0.05)
    numeric = central_gradient(lambda y: maxent_objective(y, data, 0.05)[0], x)
    np.testing.assert_allclose(grad, numeric, atol=1e-8, rtol=1e-6)


def test_maxent_final_fit_reaches_scipy_optimum():
    """The tight fit's objective is no worse than scipy's BFGS run to a tiny gradient, and the
    predictions agree."""
    panel = GradedPanel.from_matrix(structured_matrix(12, 4, 3, seed=8), 3)
    data = MaxentData.of(panel)
    x = fit_maxent(data, 0.05, options=FINAL_LBFGS_OPTIONS)
    ref = minimize(maxent_objective, np.zeros_like(x), args=(data, 0.05), jac=True, method="BFGS",
                   options={"gtol": 1e-10, "maxiter": 10000})
    assert maxent_objective(x, data, 0.05)[0] <= ref.fun + 1e-12
    np.testing.assert_allclose(maxent_log_proba(x, data), maxent_log_proba(ref.x, data), atol=1e-5)


def test_m5_warm_started_final_fit_is_the_optimum(awkward):
    """fit() after choosing lambda starts from the inner fits' mean and ends at the same optimum as
    a tight fit from zero."""
    method = M5(grid_points=3, refine_evaluations=1)
    method.fit(awkward)
    lam = method.parameters_["lambda"]
    data = MaxentData.of(awkward)
    cold = fit_maxent(data, lam, options={"ftol": 1e-15, "gtol": 1e-10}, max_iter=10000)
    np.testing.assert_allclose(method.predict_proba(), np.exp(maxent_log_proba(cold, data)), atol=1e-6)
    x_warm = method.state_["warm"]
    assert maxent_objective(x_warm, data, lam)[0] <= maxent_objective(cold, data, lam)[0] + 1e-10


# --------------------------------------------------------------------------------------------
# Dawid-Skene, panels
# --------------------------------------------------------------------------------------------


def test_dawid_skene_entries_in_any_order(awkward):
    runs = []
    for panel in (awkward, shuffled(awkward, 9)):
        runs.append(dawid_skene(panel.item, panel.judge, panel.label, n_items=panel.n_items,
                                n_judges=panel.n_judges, n_classes=K5, max_iter=30, tol=0.0))
    np.testing.assert_allclose(runs[0].posteriors, runs[1].posteriors, atol=1e-12)
    np.testing.assert_allclose(runs[0].confusion, runs[1].confusion, atol=1e-12)


def test_select_by_mask_is_the_validated_panel(awkward):
    mask = awkward.judge != 2
    fast = awkward.select(mask)
    slow = GradedPanel(awkward.item[mask], awkward.judge[mask], awkward.label[mask], awkward.n_items,
                       awkward.n_judges, awkward.n_classes)
    for name in ("item", "judge", "label"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
        assert getattr(fast, name).dtype == np.int64
    assert (fast.n_items, fast.n_judges, fast.n_classes) == (slow.n_items, slow.n_judges, slow.n_classes)
    with pytest.raises(ValueError, match="twice"):
        awkward.select(np.array([0, 0]))  # an index array is validated
