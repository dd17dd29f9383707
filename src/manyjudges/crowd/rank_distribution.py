"""Distribution of a sum of independent Bernoulli variables (rank distributions, Niu et al. s.4.1.3).

The rank of item j for annotator i (0-based: the number of items ranked above j) is
``r = sum_{l != j} X_jl`` with independent ``X_jl ~ Bernoulli(q_l)``, ``q_l = 1 - p'_jl``
(eq 12). Its pmf is the convolution of the two-point distributions ``[1 - q_l, q_l]``:

- :func:`bernoulli_sum_pmf_direct`: the sequential convolution of Algorithm 1, O(k^2);
  the reference.
- :func:`bernoulli_sum_pmf`: the divide-and-conquer of Algorithm 2, O(k log^2 k): the
  factors are multiplied pairwise, level by level, each level one batched FFT over all
  rows and all pairs at once (the first levels, tiny polynomials, by direct products).

Both take ``q`` of shape ``(..., k)`` and return the pmf of shape ``(..., k + 1)``
(index = number of successes), vectorised over the leading axes.
"""
from __future__ import annotations

import numpy as np

FFT_MIN_DEGREE = 8  # D&C levels multiplying factors of lower degree convolve directly (faster)


def bernoulli_sum_pmf_direct(q: np.ndarray) -> np.ndarray:
    """Pmf of ``sum_l Bernoulli(q_l)`` by sequential convolution (Algorithm 1, eq 10).

    ``P^(t) = P^(t-1) * [1 - q_t, q_t]``, starting from ``P^(0) = [1]``; each step touches
    only the ``t + 1`` entries that can be non-zero, vectorised over the leading axes.

    Parameters
    ----------
    q : numpy.ndarray, shape (..., k)
        Success probabilities.

    Returns
    -------
    numpy.ndarray, shape (..., k + 1)
        ``[P(S = 0), ..., P(S = k)]``.
    """
    q = np.asarray(q, dtype=float)
    k = q.shape[-1]
    pmf = np.zeros(q.shape[:-1] + (k + 1,))
    pmf[..., 0] = 1.0
    for t in range(k):
        qt = q[..., t : t + 1]
        up = pmf[..., : t + 1] * qt  # one more success
        pmf[..., : t + 1] *= 1.0 - qt
        pmf[..., 1 : t + 2] += up
    return pmf


def bernoulli_sum_pmf(q: np.ndarray, fft_min_degree: int = FFT_MIN_DEGREE) -> np.ndarray:
    """Pmf of ``sum_l Bernoulli(q_l)`` by divide and conquer with FFT (Algorithm 2).

    The k factors ``[1 - q_l, q_l]`` are padded to ``K = 2^L`` with degenerate ``[1, 0]``
    factors (they leave the sum unchanged). Level T multiplies neighbouring pairs of
    degree-``d`` polynomials (``d = 2^(T-1)``) into degree ``2d``, for all rows and all
    pairs at once (:func:`_multiply_pairs_fft`). Levels with ``d < fft_min_degree`` multiply
    directly (:func:`_multiply_pairs_direct`: cheaper than many tiny FFTs, same numbers);
    ``fft_min_degree=1`` runs every level by FFT. After ``L`` levels the pmf is trimmed to
    ``k + 1`` entries, FFT round-off below 0 is clipped to 0 and the pmf renormalised.

    Parameters
    ----------
    q : numpy.ndarray, shape (..., k)
        Success probabilities.
    fft_min_degree : int
        Factors of at least this degree are multiplied by FFT.

    Returns
    -------
    numpy.ndarray, shape (..., k + 1)
        ``[P(S = 0), ..., P(S = k)]``.
    """
    q = np.asarray(q, dtype=float)
    k = q.shape[-1]
    size = 1 << max(k - 1, 0).bit_length()
    padded = np.zeros(q.shape[:-1] + (size,))
    padded[..., :k] = q
    coef = np.empty((2,) + padded.shape)  # coefficient-major: coef[e, ..., t] = factor t's x^e
    np.subtract(1.0, padded, out=coef[0])
    coef[1] = padded
    d = 1  # degree of every factor at this level
    while d < size and d < fft_min_degree:
        coef = _multiply_pairs_direct(coef)
        d *= 2
    poly = np.ascontiguousarray(coef.transpose(tuple(range(1, coef.ndim)) + (0,)))  # (..., size / d, d + 1)
    while d < size:
        poly = _multiply_pairs_fft(poly, d)
        d *= 2
    pmf = np.maximum(poly[..., 0, : k + 1], 0.0)
    return pmf / pmf.sum(axis=-1, keepdims=True)


def _multiply_pairs_fft(poly: np.ndarray, d: int) -> np.ndarray:
    """Products of factors ``2t`` and ``2t + 1`` (axis -2) of degree ``d``, by FFT.

    A circular convolution of size ``2d`` (``rfft``/``irfft`` on the last axis) wraps only
    the top coefficient ``a_d b_d`` of the degree-``2d`` product onto index 0; that
    coefficient is computed exactly, subtracted from index 0 and appended.
    """
    spec = np.fft.rfft(poly, n=2 * d, axis=-1)
    prod = np.fft.irfft(spec[..., 0::2, :] * spec[..., 1::2, :], n=2 * d, axis=-1)
    top = poly[..., 0::2, d] * poly[..., 1::2, d]
    prod[..., 0] -= top
    return np.concatenate([prod, top[..., None]], axis=-1)


def _multiply_pairs_direct(coef: np.ndarray) -> np.ndarray:
    """Products of factors ``2t`` and ``2t + 1`` given coefficient-major (``coef[e, ..., t]``).

    ``(a b)_e = sum_{s + u = e} a_s b_u``, summed from 0 in increasing s: for each s one product
    ``a_s b_u`` for every u at once, over all rows and pairs (long contiguous loops, unlike a
    short last axis).
    """
    a, b = coef[..., 0::2], coef[..., 1::2]
    d = len(coef) - 1
    prod = np.zeros((2 * d + 1,) + a.shape[1:])
    for s in range(d + 1):
        prod[s:s + d + 1] += a[s] * b
    return prod
