"""The maximum-entropy predictor M5 (manyjudges.graded.maxent) against the loop references."""
from __future__ import annotations

import numpy as np
import pytest
from reference import ref_maxent_log_proba, ref_maxent_objective

from manyjudges.graded.maxent import (
    MaxentData,
    fit_maxent,
    maxent_log_proba,
    maxent_objective,
)

from .helpers import K3, PANELS, SPARSE, central_gradient, panel_of, triples

# --------------------------------------------------------------------------------------------
# M5 (maximum entropy)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PANELS)
def test_maxent_objective_and_gradient(kind):
    panel = panel_of(PANELS[kind])
    trip = triples(panel)
    data = MaxentData.of(panel)
    size = K3 + panel.n_judges * K3 * K3
    rng = np.random.default_rng(3)
    for lam in (0.0, 0.05, 0.7):
        x = rng.normal(0, 0.6, size)
        f, grad = maxent_objective(x, data, lam)
        assert f == pytest.approx(ref_maxent_objective(x, trip, panel.n_judges, K3, lam), rel=1e-12)
        numeric = central_gradient(lambda y, lam=lam: maxent_objective(y, data, lam)[0], x)
        np.testing.assert_allclose(grad, numeric, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("kind", PANELS)
def test_maxent_log_proba_matches_loops(kind):
    """softmax(b + sum of W[m, z_m] over every training label on the item); unlabelled: softmax(b)."""
    panel = panel_of(PANELS[kind])
    x = np.random.default_rng(9).normal(0, 1.0, K3 + panel.n_judges * K3 * K3)
    got = maxent_log_proba(x, MaxentData.of(panel))
    expected = ref_maxent_log_proba(x, triples(panel), panel.n_items, panel.n_judges, K3)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_fit_maxent_reaches_the_loop_minimum():
    """At the fitted parameters the loop objective's gradient vanishes."""
    panel = panel_of(SPARSE)
    trip = triples(panel)
    x = fit_maxent(MaxentData.of(panel), 0.1)
    numeric = central_gradient(lambda y: ref_maxent_objective(y, trip, panel.n_judges, K3, 0.1), x, 1e-5)
    assert np.max(np.abs(numeric)) < 1e-4


def test_lambda_on_a_bound_of_its_search_is_warned_and_marked(caplog):
    import logging

    from manyjudges.graded.experiment import parameter_table, predict_part
    from manyjudges.graded.maxent import M5

    assert M5(lambda_bounds=(1e-3, 1.0)).parameters_at_bound({"lambda": 0.05}) == {}
    assert M5(lambda_bounds=(1e-3, 1.0)).parameters_at_bound({"lambda": 1e-3}) == {"lambda": ("lower", 1e-3)}
    # labels that carry nothing about each other: the strongest penalty searched wins
    panel = panel_of(np.random.default_rng(0).integers(0, K3, size=(30, 4)))
    method = M5(grid_points=2, refine_evaluations=0)
    method.name = "m5"
    with caplog.at_level(logging.INFO, logger="manyjudges"):
        _, params = predict_part(panel, method, "cross_induction", 0, 1)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.name for r in warnings] == ["manyjudges.graded.protocols"]
    assert warnings[0].getMessage() == ("m5: lambda chosen at the upper bound 1 of its search range for 4 of 4 "
                                        "held-out judges (0, 1, 2, 3); the best value may lie beyond it")
    assert list(params.columns) == ["method", "protocol", "judge", "parameter", "value", "at_bound", "converged"]
    assert params["at_bound"].tolist() == [True] * 4
    table = parameter_table(params)
    assert list(table.columns) == ["method", "protocol", "parameter", "mean", "min", "max", "judges", "judges_at_bound",
                                   "judges_not_converged"]
    assert table[["parameter", "judges", "judges_at_bound", "judges_not_converged"]].values.tolist() == [
        ["lambda", 4, 4, 0]]
