"""PPI++ (core.prediction_powered) against the formulas written out here and scipy's scalar minimiser."""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from manyjudges.core.prediction_powered import power_tuned_lambda, ppi_covariance, ppi_mean, worth


def panel(seed, n=40, big_n=400, bias=0.2, noise=0.3):
    """Human labels h and predictions lab = h + bias + noise on n labelled units; N unlabelled predictions."""
    rng = np.random.default_rng(seed)
    h = rng.normal(0.0, 1.0, n + big_n)
    lab = h + bias + rng.normal(0.0, noise, n + big_n)
    return h[:n], lab[:n], lab[n:]


def test_mean_matches_the_written_out_estimate_and_variance():
    h, lab, u = panel(0)
    for lam in (0.0, 0.3, 1.0):
        got = ppi_mean(h, lab, u, lam)
        n, big_n = len(h), len(u)
        estimate = sum(h) / n + lam * (sum(u) / big_n - sum(lab) / n)
        d = [hi - lam * li for hi, li in zip(h, lab)]
        dbar = sum(d) / n
        ubar = sum(u) / big_n
        variance = sum((x - dbar) ** 2 for x in d) / (n - 1) / n + lam ** 2 * sum(
            (x - ubar) ** 2 for x in u) / (big_n - 1) / big_n
        assert got.estimate == pytest.approx(estimate, abs=1e-12)
        assert got.variance == pytest.approx(variance, rel=1e-10)
        assert got.lam == lam


def test_humans_alone_is_lambda_zero_and_worth_n():
    h, lab, u = panel(1)
    got = ppi_mean(h, lab, u, 0.0)
    assert got.estimate == pytest.approx(h.mean())
    assert got.variance == pytest.approx(h.var(ddof=1) / len(h))
    assert got.worth == pytest.approx(len(h))


def test_power_tuning_minimises_the_plug_in_variance():
    """lambda* against scipy minimising Var(h)/n - 2 lambda C/n + lambda^2 V (1/n + 1/N) over [0, 1]."""
    h, lab, u = panel(2, noise=0.8)
    n, big_n = len(h), len(u)
    c = np.cov(h, lab)[0, 1]
    v = np.var(np.concatenate([lab, u]), ddof=1)
    best = minimize_scalar(lambda lam: (h.var(ddof=1) - 2 * lam * c) / n + lam ** 2 * v * (1 / n + 1 / big_n),
                           bounds=(0, 1), method="bounded", options={"xatol": 1e-10})
    got = ppi_mean(h, lab, u)
    assert 0 < got.lam < 1
    assert got.lam == pytest.approx(best.x, abs=1e-6)
    assert got.worth > n  # good predictions are worth more than the n labels alone


def test_lambda_clips_to_zero_for_useless_predictions_and_one_for_perfect_ones():
    rng = np.random.default_rng(3)
    h = rng.normal(size=30)
    assert ppi_mean(h, -h, rng.normal(size=300)).lam == 0.0
    u = rng.normal(size=100000) * h.std(ddof=1) / 2
    assert ppi_mean(h, h / 2, u).lam == 1.0  # C = 2 V: lambda* near 2 / (1 + n / N), clipped to 1
    same = (u - u.mean()) / u.std(ddof=1) * h.std(ddof=1) + h.mean()  # the mean and variance of h exactly
    assert 0.99 < ppi_mean(h, h, same).lam < 1.0  # C = V: lambda* near 1 / (1 + n / N)


def test_the_overlap_identity():
    """Predictions on all n + N units with lambda_all equal ours (unlabelled: the N others) with
    lambda_all N / (n + N)."""
    h, lab, u = panel(4)
    n, big_n = len(h), len(u)
    lam_all = 0.7
    everything = np.concatenate([lab, u])
    overlapped = h.mean() + lam_all * (everything.mean() - lab.mean())
    assert ppi_mean(h, lab, u, lam_all * big_n / (n + big_n)).estimate == pytest.approx(overlapped, abs=1e-12)


def test_the_mean_interval_covers_and_narrows():
    """Seeded: 400 panels with a biased predictor, 95% intervals of PPI++ cover the true mean 0 about 95% of
    the time, and are narrower than the humans' alone."""
    z = 1.959963984540054
    covered, ratio = 0, []
    for seed in range(400):
        h, lab, u = panel(100 + seed, n=50, big_n=1000, bias=0.5, noise=0.4)
        got = ppi_mean(h, lab, u)
        covered += abs(got.estimate) <= z * np.sqrt(got.variance)
        ratio.append(np.sqrt(got.variance / got.variance_alone))
    assert 0.92 <= covered / 400 <= 0.98
    assert np.mean(ratio) < 0.6


def test_vector_functions_reduce_to_the_mean():
    h, lab, u = panel(5)
    one = np.ones((1, 1))
    lam = power_tuned_lambda(h[:, None], lab[:, None], u[:, None], one)
    assert lam == pytest.approx(ppi_mean(h, lab, u).lam)
    cov = ppi_covariance(h[:, None], lab[:, None], u[:, None], one, lam)
    assert cov[0, 0] == pytest.approx(ppi_mean(h, lab, u, lam).variance)
    assert worth(10, np.eye(2), 2 * np.eye(2)) == pytest.approx(5.0)


def test_bad_input():
    with pytest.raises(ValueError, match="one value per labelled unit"):
        ppi_mean([1.0, 2.0], [1.0], [0.0])
    with pytest.raises(ValueError, match="at least 2 labelled"):
        ppi_mean([1.0], [1.0], [0.0])
    with pytest.raises(ValueError, match=r"lambda must be in \[0, 1\]"):
        ppi_mean([1.0, 2.0], [1.0, 2.0], [0.0], lam=1.5)
