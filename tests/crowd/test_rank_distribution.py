"""Rank distributions (Niu et al. 2015, s.4.1.3): Algorithm 2 (FFT divide and conquer) vs Algorithm 1."""
from __future__ import annotations

import numpy as np
import pytest
from reference import enumerate_pmf
from scipy.stats import binom

from manyjudges.crowd.rank_distribution import (
    FFT_MIN_DEGREE,
    bernoulli_sum_pmf,
    bernoulli_sum_pmf_direct,
)


@pytest.mark.parametrize("k", range(11))
def test_direct_and_fft_match_enumeration(k):
    rng = np.random.default_rng(k)
    q = rng.random(k)
    if k > 3:
        q[:2] = [0.0, 1.0]  # degenerate factors
    expected = enumerate_pmf(q)
    np.testing.assert_allclose(bernoulli_sum_pmf_direct(q), expected, atol=1e-14)
    for min_degree in (1, 2, FFT_MIN_DEGREE):
        got = bernoulli_sum_pmf(q, fft_min_degree=min_degree)
        assert got.shape == (k + 1,)
        np.testing.assert_allclose(got, expected, atol=1e-14)


@pytest.mark.parametrize("min_degree", [1, FFT_MIN_DEGREE])
def test_fft_matches_direct_k_1_to_70_batched(min_degree):
    rng = np.random.default_rng(0)
    for k in range(1, 71):
        q = rng.random((3, 2, k))
        fft = bernoulli_sum_pmf(q, fft_min_degree=min_degree)
        direct = bernoulli_sum_pmf_direct(q)
        assert fft.shape == (3, 2, k + 1)
        np.testing.assert_allclose(fft, direct, atol=1e-13, err_msg=f"k={k}")
        np.testing.assert_allclose(fft.sum(axis=-1), 1.0, atol=1e-12)
        assert (fft >= 0).all()


@pytest.mark.parametrize("k", [37, 128, 200, 257, 513])
def test_fft_matches_direct_large(k):
    rng = np.random.default_rng(k)
    q = rng.random((4, k))
    q[0] = rng.beta(0.2, 0.2, k)  # many near-0 / near-1 probabilities
    q[1, : k // 2] = 0.5
    fft = bernoulli_sum_pmf(q)
    np.testing.assert_allclose(fft, bernoulli_sum_pmf_direct(q), atol=1e-13)
    np.testing.assert_allclose(fft.sum(axis=-1), 1.0, atol=1e-12)
    assert (fft >= 0).all()


def test_the_default_uses_fft_levels_from_small_k(monkeypatch):
    """Rows of k > FFT_MIN_DEGREE factors go through the FFT level (not only direct products)."""
    import manyjudges.crowd.rank_distribution as rd

    calls = []
    original = rd._multiply_pairs_fft
    monkeypatch.setattr(rd, "_multiply_pairs_fft", lambda poly, d: calls.append(d) or original(poly, d))
    rd.bernoulli_sum_pmf(np.full((2, FFT_MIN_DEGREE + 1), 0.3))
    assert calls == [FFT_MIN_DEGREE]
    calls.clear()
    rd.bernoulli_sum_pmf(np.full(100, 0.3), fft_min_degree=1)
    assert calls == [1, 2, 4, 8, 16, 32, 64]


def test_equal_probabilities_give_the_binomial():
    for k, p in [(1, 0.3), (9, 0.5), (70, 0.2), (300, 0.5)]:
        np.testing.assert_allclose(bernoulli_sum_pmf(np.full(k, p)), binom.pmf(np.arange(k + 1), k, p), atol=1e-13)


def test_direct_pair_products_add_in_the_order_of_the_double_loop():
    """One product a_s b_u per (s, u), added to (a b)_{s+u} from 0 in increasing s: the numbers of
    the plain double loop over (s, u), bit for bit."""
    import manyjudges.crowd.rank_distribution as rd

    rng = np.random.default_rng(5)
    for d in (1, 2, 4):
        coef = rng.uniform(size=(d + 1, 3, 8))
        a, b = coef[..., 0::2], coef[..., 1::2]
        loop = [np.zeros(a[0].shape) for _ in range(2 * d + 1)]
        for s in range(d + 1):
            for u in range(d + 1):
                loop[s + u] += a[s] * b[u]
        assert np.array_equal(rd._multiply_pairs_direct(coef), np.stack(loop))
