"""manyjudges.core.solvers against the scipy calls it stands for, on the crowd objectives: the same numbers
bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
import scipy
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize, rosen, rosen_der

from manyjudges.core import solvers
from manyjudges.core.pairwise.bradley_terry import bt_hessian, bt_objective, pair_counts
from manyjudges.core.pairwise.crowd_bt import crowd_bt_objective
from manyjudges.core.solvers import cholesky_solve, lbfgsb
from manyjudges.crowd.bradley_terry import strict_pairs

from .test_bradley_terry import crowd


def _crowd_bt_problem(seed: int):
    topic, _ = crowd(n=9, good=5, malicious=2, per_judge=12, good_accuracy=0.8, seed=seed)
    n, m = topic.n_items, topic.n_judges
    judge, win, lose = strict_pairs(topic)
    keys, count = np.unique((judge * n + win) * n + lose, return_counts=True)
    args = (keys // (n * n), keys // n % n, keys % n, count.astype(float), n, 1.0, 0.0, (1.0, 1.0))
    x0 = np.concatenate([np.random.default_rng(seed).normal(size=n), np.full(m, 0.9)])
    return (lambda x: crowd_bt_objective(x, *args)), x0, [(None, None)] * n + [(0.01, 0.99)] * m, topic


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lbfgsb_is_minimize_bit_for_bit(seed):
    fun, x0, bounds, topic = _crowd_bt_problem(seed)
    options = {"maxiter": 5000, "gtol": 1e-6, "ftol": 1e-15, "maxcor": 20}
    ref = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds, options=options)
    x, nit = lbfgsb(fun, x0, bounds, maxiter=5000, gtol=1e-6, ftol=1e-15, maxcor=20)
    assert np.array_equal(x, ref.x) and nit == ref.nit
    # unbounded, stopped by maxiter (no ridge: the scores drift)
    a, b, w_ab, w_ba = pair_counts(*strict_pairs(topic)[1:], topic.n_items)

    def bt(s):
        return bt_objective(s, a, b, w_ab, w_ba, 0.0)

    zeros = np.zeros(topic.n_items)
    ref = minimize(bt, zeros, jac=True, method="L-BFGS-B", options={"maxiter": 7, "gtol": 1e-12, "ftol": 1e-15})
    x, nit = lbfgsb(bt, zeros, maxiter=7, gtol=1e-12, ftol=1e-15)
    assert np.array_equal(x, ref.x) and nit == ref.nit == 7


def test_lbfgsb_falls_back_to_minimize(monkeypatch):
    fun, x0, bounds, _ = _crowd_bt_problem(0)
    fast = lbfgsb(fun, x0, bounds, gtol=1e-6)
    monkeypatch.setattr(solvers, "_DIRECT", False)
    slow = lbfgsb(fun, x0, bounds, gtol=1e-6)
    assert np.array_equal(fast[0], slow[0]) and fast[1] == slow[1]


def test_the_installed_scipy_is_one_the_setulb_adapter_was_written_for():
    """Fails on a scipy release outside SETULB_SCIPY_VERSIONS: the fits then run the public minimize (the
    same numbers, slower). Check _lbfgsb_setulb against that release's _minimize_lbfgsb, then list it."""
    release = tuple(int(v) for v in scipy.__version__.split(".")[:2])
    assert solvers.setulb_supported(), (
        f"scipy {scipy.__version__} is outside the releases {solvers.SETULB_SCIPY_VERSIONS} that "
        "manyjudges.core.solvers._lbfgsb_setulb (scipy's private L-BFGS-B routine) was written for and tested on")
    assert release in solvers.SETULB_SCIPY_VERSIONS and solvers._DIRECT


@pytest.mark.parametrize("version, supported", [
    ("1.14.1", False), ("1.15.0", True), ("1.16.2", True), ("1.17.1", True), ("1.18.0", False),
    ("1.18.0rc1", False), ("2.0.0", False),
])
def test_setulb_supported_reads_the_release(version, supported):
    assert solvers.setulb_supported(version) is supported


@pytest.mark.parametrize("bounds", [None, [(-1.5, 0.8), (None, 0.6), (0.0, None), (None, None)]])
def test_the_setulb_adapter_finds_minimizes_minimum(bounds):
    """The adapter and the public minimize(method="L-BFGS-B") on the 4-d Rosenbrock function, free and boxed:
    the same minimum (to a tight tolerance; in fact the same bits) in the same iterations."""
    def fun(x):
        return float(rosen(x)), rosen_der(x)

    x0 = np.array([-1.2, 1.0, -0.5, 0.3])
    ref = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds, options={"gtol": 1e-10, "ftol": 1e-15})
    got = solvers._lbfgsb_setulb(fun, x0, bounds, maxiter=15000, gtol=1e-10, ftol=1e-15, maxcor=10, maxls=20,
                                 maxfun=15000)
    assert ref.status == 0 and got.converged
    np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=1e-12)
    assert fun(got.x)[0] == pytest.approx(ref.fun, rel=1e-12, abs=1e-15)
    assert got.n_iter == ref.nit and np.array_equal(got.x, ref.x)
    if bounds is None:
        np.testing.assert_allclose(got.x, np.ones(4), atol=1e-6)


def test_cholesky_solve_is_cho_solve_bit_for_bit():
    rng = np.random.default_rng(3)
    for n in (1, 4, 30):
        root = rng.normal(size=(n, n))
        a, b = root @ root.T + 0.1 * np.eye(n), rng.normal(size=n)
        assert np.array_equal(cholesky_solve(a, b), cho_solve(cho_factor(a, check_finite=False), b))
    assert cholesky_solve(-np.eye(3), np.ones(3)) is None
    assert cholesky_solve(np.eye(3), np.ones(3), check_finite=False) is not None
    with pytest.raises(ValueError, match="infs or NaNs"):
        cholesky_solve(np.full((2, 2), np.nan), np.ones(2), check_finite=True)


def test_lbfgsb_fit_says_whether_it_converged_and_scales_its_variables():
    """A badly scaled bounded quadratic (curvatures 1 to 1e6): the scaled fit reaches the exact minimum
    (scipy's answer to the same problem) in fewer iterations; a fit stopped on its cap says so."""
    from manyjudges.core.solvers import lbfgsb_fit

    curvature = np.logspace(0, 6, 40)
    target = np.linspace(-2.0, 2.0, 40)
    lower, upper = np.full(40, -1.5), np.full(40, 1.5)

    def fun(x):
        return 0.5 * float(curvature @ (x - target) ** 2), curvature * (x - target)

    bounds = list(zip(lower, upper))
    exact = np.clip(target, lower, upper)
    plain = lbfgsb_fit(fun, np.zeros(40), bounds, gtol=1e-8, ftol=0.0)
    scaled = lbfgsb_fit(fun, np.zeros(40), bounds, gtol=1e-8, ftol=0.0, scale=1 / np.sqrt(curvature))
    assert scaled.converged and plain.converged
    np.testing.assert_allclose(scaled.x, exact, atol=1e-8)
    assert scaled.n_iter < plain.n_iter
    capped = lbfgsb_fit(fun, np.zeros(40), bounds, maxiter=2, gtol=1e-8, ftol=0.0)
    assert not capped.converged and capped.n_iter == 2


def _bt_problem(seed: int):
    topic, _ = crowd(n=9, good=5, malicious=2, per_judge=12, good_accuracy=0.8, seed=seed)
    a, b, w_ab, w_ba = pair_counts(*strict_pairs(topic)[1:], topic.n_items)

    def fun(s):
        return bt_objective(s, a, b, w_ab, w_ba, 0.01)

    def hess(s):
        return bt_hessian(s, a, b, w_ab, w_ba, 0.01)

    return fun, hess, topic.n_items


@pytest.mark.parametrize("seed", [0, 1])
def test_newton_warm_reaches_damped_newtons_optimum_from_near_it_and_refuses_from_far(seed):
    fun, hess, n = _bt_problem(seed)
    optimum = solvers.damped_newton(fun, hess, np.zeros(n), 100, 1e-12)
    near = optimum + np.random.default_rng(seed).normal(scale=0.05, size=n)
    warm = solvers.newton_warm(fun, hess, near, 1e-10)
    assert warm is not None and np.abs(fun(warm)[1]).max() <= 1e-10
    assert np.allclose(warm, optimum, atol=1e-9)
    # a budget of one step cannot reach 1e-10 from 0.05 away: None, the caller's cue for damped Newton
    assert solvers.newton_warm(fun, hess, near, 1e-10, max_steps=1) is None
    # a full step from far away overshoots (max |g| grows): None
    assert solvers.newton_warm(fun, hess, optimum + 40.0 * (np.arange(n) % 2), 1e-10) is None


def test_newton_polish_returns_its_start_when_the_gradient_is_within_tol():
    fun, hess, n = _bt_problem(0)
    x = solvers.damped_newton(fun, hess, np.zeros(n), 100, 1e-6)
    assert np.array_equal(solvers.newton_polish(fun, hess, x, tol=1e-6), x)
    polished = solvers.newton_polish(fun, hess, x)
    assert np.abs(fun(polished)[1]).max() < np.abs(fun(x)[1]).max()
