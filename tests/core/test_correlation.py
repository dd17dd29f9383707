import numpy as np
import pytest
from reference import random_panel, reverse_by_loop
from scipy.stats import kendalltau, spearmanr

from manyjudges.core.correlation import (
    correlation_matrix,
    kendall_tau_matrix,
    rowwise_correlation,
    spearman_rho_matrix,
)
from manyjudges.core.ranks import reverse_ranks


@pytest.mark.parametrize("ties", [False, True])
def test_kendall_and_spearman_match_scipy(ties):
    rng = np.random.default_rng(1)
    x = random_panel(rng, 6, 9, ties=ties)
    y = random_panel(rng, 4, 9, ties=ties)
    tau, rho = kendall_tau_matrix(x, y), spearman_rho_matrix(x, y)
    for i in range(len(x)):
        for j in range(len(y)):
            assert tau[i, j] == pytest.approx(kendalltau(x[i], y[j]).statistic, abs=1e-12)
            assert rho[i, j] == pytest.approx(spearmanr(x[i], y[j]).statistic, abs=1e-12)


def test_textbook_formulas_without_ties():
    rng = np.random.default_rng(2)
    k = 7
    a, b = rng.permutation(k) + 1.0, rng.permutation(k) + 1.0
    discordant = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i in range(k) for j in range(i + 1, k))
    assert kendall_tau_matrix(a, b)[0, 0] == pytest.approx(1 - 2 * discordant / (k * (k - 1) / 2))
    assert spearman_rho_matrix(a, b)[0, 0] == pytest.approx(1 - 6 * np.sum((a - b) ** 2) / (k * (k * k - 1)))


def test_normalised_range_and_reverse():
    rng = np.random.default_rng(3)
    x = random_panel(rng, 5, 8, ties=True)
    for kind in ("kendall", "spearman"):
        c = correlation_matrix(x, None, kind)
        assert np.all((c >= 0) & (c <= 1))
        assert np.allclose(np.diag(c), 1.0)
        # C(rev O, g) = 1 - C(O, g), also with ties
        assert np.allclose(correlation_matrix(reverse_ranks(x), x, kind), 1 - c)
        assert np.allclose(rowwise_correlation(x, x[::-1], kind), np.diag(correlation_matrix(x, x[::-1], kind)))


def test_reverse_ranks_keeps_ties():
    r = np.array([1.0, 2, 2, 4, 5])
    assert reverse_ranks(r)[0].tolist() == reverse_by_loop(r).tolist() == [5, 3, 3, 2, 1]


def test_unknown_correlation():
    with pytest.raises(ValueError, match="unknown correlation"):
        correlation_matrix(np.array([[1.0, 2.0]]), None, "pearson")
