"""Every fitted graded method reaches its stop rule on the default config's panel, never its cap:
L-BFGS-B to its projected-gradient tolerance (M2, M3, M23, M4-learned), EM to its posterior
tolerance (Dawid-Skene), Yu's fixed point (M4), the maximum-entropy fits (M5)."""
from pathlib import Path

import numpy as np
import pytest
import yaml

from manyjudges.core.solvers import lbfgsb_fit
from manyjudges.graded import GradedPanel, make_graded_method
from manyjudges.graded.m4 import SIGMA_BOUNDS, M4Learned
from manyjudges.graded.panel import prior_without_own
from manyjudges.graded.simulate import panel_options, simulate_medline_panel
from manyjudges.graded.votes import LBFGS_OPTIONS, M1, THETA_BOUND, WeightedVotes, _VotesObjective

CONFIG = Path(__file__).resolve().parents[2] / "config" / "config.yaml"


@pytest.fixture(scope="module")
def train():
    """The default config's simulated panel without its first judge (one cross-induction fold)."""
    config = yaml.safe_load(CONFIG.read_text())
    spec = config["graded"]["datasets"]["sim_medline"]
    grades, _ = simulate_medline_panel(seed=config["seed"], **panel_options(spec))
    return GradedPanel.from_table(grades, int(spec["n_classes"])).without([0])


def assert_stationary(fun, x, lower, upper, scale):
    """The stop rule met: L-BFGS-B's projected gradient in the scaled variables u = x / scale under
    gtol, or (where the sum of thousands of log probabilities reaches its rounding floor first) a
    restarted fit lowering f by nothing measurable."""
    f, g = fun(x)
    u = x / scale
    if np.max(np.abs(np.clip(u - scale * g, lower / scale, upper / scale) - u)) <= LBFGS_OPTIONS["gtol"]:
        return
    again = lbfgsb_fit(fun, x, list(zip(lower, upper)), maxiter=200, gtol=LBFGS_OPTIONS["gtol"], ftol=0.0, scale=scale)
    assert fun(again.x)[0] >= f - 1e-12 * abs(f)


@pytest.mark.parametrize("method", ["m2", "m3", "m23", "m4", "m4_learned", "dawid_skene", "m5"])
def test_every_fit_meets_its_stop_rule_on_the_default_panel(train, method):
    params = {"inner_folds": 4} if method == "m5" else {}   # the default config's M5
    predictor = make_graded_method(method, params).fit(train)
    predictor.predict_proba()
    assert predictor.fits_ > 0
    assert predictor.capped_fits_ == 0 and predictor.converged_


@pytest.mark.parametrize("method", ["m2", "m3", "m23"])
def test_weighted_votes_stop_at_a_stationary_point(train, method):
    predictor = make_graded_method(method).fit(train)
    assert isinstance(predictor, WeightedVotes)
    theta = predictor.parameters_["theta"]
    votes = predictor._votes(train)
    fun = _VotesObjective(votes, M1().choose_parameters(train)["tau"]).value_and_gradient
    bound = np.full(len(theta), THETA_BOUND)
    assert_stationary(fun, theta, -bound, bound, votes.scale())


def test_m4_learned_stops_at_a_stationary_point(train):
    predictor = M4Learned().fit(train)
    x = np.concatenate([predictor.parameters_["theta"], [np.log(predictor.parameters_["sigma"])]])
    prior_t = prior_without_own(train)[np.arange(train.n_entries), train.label]
    n_others = np.bincount(train.item, minlength=train.n_items)[train.item] - 1
    lower = np.r_[np.full(train.n_judges, -THETA_BOUND), np.log(SIGMA_BOUNDS[0])]
    upper = np.r_[np.full(train.n_judges, THETA_BOUND), np.log(SIGMA_BOUNDS[1])]
    assert_stationary(lambda v: M4Learned.objective(v, train, prior_t, n_others), x, lower, upper,
                      M4Learned.scale(train, n_others))


def test_a_fit_on_its_cap_is_counted_and_reported(train, caplog):
    from manyjudges.graded.experiment import parameter_table, predict_part

    small = train.select(train.item < 300)
    preds, params = predict_part(small, make_graded_method("m3", {"max_iter": 2}), "cross_induction", 0, 1)
    assert not params["converged"].any()
    assert parameter_table(params)[["parameter", "judges_not_converged"]].values.tolist() == [["tau", 12]]
    assert any("stopped on their iteration cap" in r.getMessage() for r in caplog.records)
