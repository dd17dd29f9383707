"""Crowd-BT's Hessian against finite differences of its gradient and of its value, and the projected Newton
minimiser against scipy's L-BFGS-B (``minimize``) on the same objective with bounds."""
import numpy as np
import pytest
from scipy.optimize import minimize

from manyjudges.core.pairwise.crowd_bt import _crowd_bt_hessian, _crowd_bt_projected_newton, crowd_bt_objective


def judgments(seed, n_items=6, n_judges=4, size=300):
    rng = np.random.default_rng(seed)
    s = np.linspace(1.0, -1.0, n_items)
    eta = np.linspace(0.95, 0.6, n_judges)
    judge = rng.integers(0, n_judges, size)
    i = rng.integers(0, n_items, size)
    j = (i + rng.integers(1, n_items, size)) % n_items
    p = eta[judge] / (1 + np.exp(-(s[i] - s[j]))) + (1 - eta[judge]) / (1 + np.exp(s[i] - s[j]))
    first = rng.random(size) < p
    win, lose = np.where(first, i, j), np.where(first, j, i)
    return judge, win, lose, rng.integers(1, 4, size).astype(float)


@pytest.mark.parametrize("prior, virtual_weight, reg", [((1.0, 1.0), 1.0, 0.0), ((2.0, 3.0), 0.5, 0.2)])
def test_hessian_is_the_derivative_of_the_gradient_and_the_second_derivative_of_the_value(prior, virtual_weight,
                                                                                          reg):
    judge, win, lose, count = judgments(1)
    args = (judge, win, lose, count, 6, virtual_weight, reg, prior)
    x = np.concatenate([np.random.default_rng(2).normal(size=6), [0.3, 0.55, 0.8, 0.9]])
    hess = _crowd_bt_hessian(x, *args)
    h = 1e-5
    steps = np.eye(len(x)) * h
    by_gradient = np.array([(crowd_bt_objective(x + e, *args)[1] - crowd_bt_objective(x - e, *args)[1]) / (2 * h)
                            for e in steps])
    np.testing.assert_allclose(hess, by_gradient, rtol=1e-6, atol=1e-5)
    h = 1e-4
    value = lambda v: crowd_bt_objective(v, *args)[0]  # noqa: E731
    k, m = 2, 8  # one score-score entry and one score-eta entry from the value alone
    for a, b in ((k, 4), (k, m)):
        ea, eb = np.eye(len(x))[a] * h, np.eye(len(x))[b] * h
        second = (value(x + ea + eb) - value(x + ea - eb) - value(x - ea + eb) + value(x - ea - eb)) / (4 * h * h)
        assert second == pytest.approx(hess[a, b], rel=1e-4, abs=1e-4)
    assert np.array_equal(hess, hess.T)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_projected_newton_reaches_scipys_lbfgsb_minimum_with_etas_on_their_bounds(seed):
    judge, win, lose, count = judgments(seed)
    win[judge == 0], lose[judge == 0] = np.maximum(win, lose)[judge == 0], np.minimum(win, lose)[judge == 0]
    args = (judge, win, lose, count, 6, 1.0, 0.0, (1.0, 1.0))
    bounds = [(None, None)] * 6 + [(0.01, 0.99)] * 4
    x0 = np.concatenate([np.zeros(6), np.full(4, 0.7)])
    theirs = minimize(crowd_bt_objective, x0, args=args, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 10000}).x
    ours = _crowd_bt_projected_newton(theirs + np.concatenate([np.full(6, 0.1), np.zeros(4)]), args, 4, (0.01, 0.99),
                                     1e-9)
    assert ours is not None
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    assert crowd_bt_objective(ours, *args)[0] <= crowd_bt_objective(theirs, *args)[0] + 1e-9
    assert (ours[6:] >= 0.01).all() and (ours[6:] <= 0.99).all()
