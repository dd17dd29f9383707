"""Bradley-Terry with covariates (core.pairwise.covariates) against scipy and the leaderboard's bradley_terry."""
import numpy as np
import pytest
from scipy.optimize import approx_fprime, minimize
from scipy.special import expit

from manyjudges.core.pairwise.bradley_terry import fit_bt_centred, pair_counts
from manyjudges.core.pairwise.covariates import (
    _covariate_objective,
    covariate_hessian,
    feature_differences,
    fit_covariate_bt,
    standardised,
)


def _verdicts(seed, n=400, n_models=5, n_cov=2):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_models, n)
    b = (a + rng.integers(1, n_models, n)) % n_models
    x = rng.normal(size=(n, n_cov))
    s = np.linspace(-1, 1, n_models)
    z = s[a] - s[b] + x @ np.linspace(0.8, -0.4, n_cov)
    u = rng.random(n)
    y = np.where(u < 0.1, 0.5, (rng.random(n) < expit(z)).astype(float))
    w = rng.integers(1, 3, n).astype(float)
    return a, b, x, y, w, n_models


def _direct_loss(theta, a, b, x, y, w, n_models, reg):
    """The written-out negative log-likelihood by a loop over verdicts, ridge on s and gamma, no centring term."""
    s, gamma = theta[:n_models], theta[n_models:]
    total = 0.0
    for i in range(len(a)):
        z = s[a[i]] - s[b[i]] + x[i] @ gamma
        total -= w[i] * (y[i] * np.log(expit(z)) + (1 - y[i]) * np.log(expit(-z)))
    return total + 0.5 * reg * (s @ s + gamma @ gamma)


@pytest.mark.parametrize("reg", [0.0, 0.5])
def test_fit_equals_scipy_on_the_written_out_likelihood(reg):
    a, b, x, y, w, m = _verdicts(1, n=150)
    s, gamma = fit_covariate_bt(a, b, x, y, w, m, reg)
    res = minimize(_direct_loss, np.zeros(m + x.shape[1]), args=(a, b, x, y, w, m, reg), method="BFGS",
                   options={"gtol": 1e-9})
    ref_s = res.x[:m] - res.x[:m].mean()
    np.testing.assert_allclose(s, ref_s, atol=1e-5)
    np.testing.assert_allclose(gamma, res.x[m:], atol=1e-5)
    assert abs(s.sum()) < 1e-9


def test_gradient_and_hessian_match_finite_differences():
    a, b, x, y, w, m = _verdicts(2, n=60)
    theta = np.random.default_rng(3).normal(size=m + x.shape[1])
    grad = _covariate_objective(theta, a, b, x, y, w, 0.3)[1]
    np.testing.assert_allclose(grad, approx_fprime(theta, lambda t: _covariate_objective(t, a, b, x, y, w, 0.3)[0],
                                                   1e-6), rtol=1e-4, atol=1e-4)
    hess = covariate_hessian(theta, a, b, x, w, 0.3)
    numeric = approx_fprime(theta, lambda t: _covariate_objective(t, a, b, x, y, w, 0.3)[1], 1e-6)
    np.testing.assert_allclose(hess, numeric, rtol=1e-4, atol=1e-4)


def test_without_covariates_equals_bradley_terry_per_pair():
    a, b, x, y, w, m = _verdicts(4)
    s, gamma = fit_covariate_bt(a, b, np.zeros((len(a), 0)), y, w, m, 0.01)
    assert gamma.shape == (0,)
    win = np.concatenate([a, b])
    lose = np.concatenate([b, a])
    weight = np.concatenate([w * y, w * (1 - y)])
    keep = weight > 0
    pa, pb, w_ab, w_ba = pair_counts(win[keep], lose[keep], m, weight[keep])
    np.testing.assert_allclose(s, fit_bt_centred(pa, pb, w_ab, w_ba, m, 0.01), atol=1e-8)


def test_gamma_fixed_at_zero_by_a_zero_covariate_column_equals_no_covariate():
    a, b, x, y, w, m = _verdicts(5)
    plain = fit_covariate_bt(a, b, np.zeros((len(a), 0)), y, w, m, 0.01)[0]
    # a covariate that is zero everywhere cannot move: its gradient is reg gamma, 0 at the start
    s, gamma = fit_covariate_bt(a, b, np.zeros((len(a), 1)), y, w, m, 0.01)
    np.testing.assert_allclose(s, plain, atol=1e-7)
    assert gamma[0] == 0.0
    # without the ridge the Hessian is singular there: L-BFGS-B, the same scores
    s0, gamma0 = fit_covariate_bt(a, b, np.zeros((len(a), 1)), y, w, m, 0.0)
    np.testing.assert_allclose(s0, fit_covariate_bt(a, b, np.zeros((len(a), 0)), y, w, m, 0.0)[0], atol=1e-6)
    assert gamma0[0] == 0.0


def test_warm_start_and_row_order_give_the_same_fit():
    a, b, x, y, w, m = _verdicts(6)
    s, gamma = fit_covariate_bt(a, b, x, y, w, m, 0.01)
    perm = np.random.default_rng(0).permutation(len(a))
    s2, gamma2 = fit_covariate_bt(a[perm], b[perm], x[perm], y[perm], w[perm], m, 0.01,
                                  x0=np.concatenate([s + 0.1, gamma - 0.1]))
    np.testing.assert_allclose(s2, s, atol=1e-8)
    np.testing.assert_allclose(gamma2, gamma, atol=1e-8)


def test_feature_differences_and_standardised():
    d = feature_differences(np.array([500.0, 20.0, 0.0, 3.0]), np.array([520.0, 40.0, 0.0, 0.0]))
    np.testing.assert_allclose(d, [-20 / 1020, -20 / 60, 0.0, 1.0])
    z, mean, sd = standardised(d[:, None])
    np.testing.assert_allclose(z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(z.std(axis=0), 1.0)
    with pytest.raises(ValueError, match="constant"):
        standardised(np.ones((5, 1)))


def test_a_covariate_that_separates_the_outcomes_keeps_a_finite_optimum():
    a = np.array([0, 1, 2, 0, 1, 2])
    b = np.array([1, 2, 0, 2, 0, 1])
    x = np.array([[1.0], [1.0], [1.0], [-1.0], [-1.0], [-1.0]])
    y = (x[:, 0] > 0).astype(float)  # the first answer wins exactly when its covariate is positive
    w = np.ones(6)
    s, gamma = fit_covariate_bt(a, b, x, y, w, 3, 0.01)
    grad = _covariate_objective(np.concatenate([s, gamma]), a, b, x, y, w, 0.01)[1]
    assert np.isfinite(gamma).all() and np.abs(grad).max() < 1e-8
