"""SQUAREM and the fixed-point stopping rule of :mod:`manyjudges.core.em_acceleration` on a one-parameter EM whose
fixed point is known (the mixing weight of two known normals, its maximum likelihood found by bisection)."""
from __future__ import annotations

import numpy as np
import pytest

from manyjudges.core.em_acceleration import _remaining_distance, iterate_em


def toy_em(x):
    """EM for the weight w of a two-component mixture with known components (a linear-rate EM, fixed point = MLE):
    data y ~ w N(0, 1) + (1 - w) N(1.5, 1); the map w -> mean responsibility of component 0."""
    y = TOY_DATA
    w = float(x[0])
    a = w * np.exp(-0.5 * y ** 2)
    b = (1 - w) * np.exp(-0.5 * (y - 1.5) ** 2)
    objective = float(np.sum(np.log(a + b)))
    new = float(np.mean(a / (a + b)))
    a2, b2 = new * np.exp(-0.5 * y ** 2), (1 - new) * np.exp(-0.5 * (y - 1.5) ** 2)
    return np.array([new]), float(np.sum(np.log(a2 + b2))), objective


TOY_DATA = np.random.default_rng(0).normal(0.0, 1.0, 300) * 1.0 + np.where(
    np.random.default_rng(1).random(300) < 0.4, 0.0, 1.5)


def toy_mle():
    """The MLE of w by bisection on the score (the log-likelihood is concave in w)."""
    y = TOY_DATA
    f0, f1 = np.exp(-0.5 * y ** 2), np.exp(-0.5 * (y - 1.5) ** 2)
    lo, hi = 1e-12, 1 - 1e-12
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.sum((f0 - f1) / (mid * f0 + (1 - mid) * f1)) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def test_squarem_reaches_the_toy_fixed_point_in_fewer_steps():
    mle = toy_mle()
    plain = iterate_em(toy_em, np.array([0.9]), tol=1e-12, max_iter=100000, accelerate=False,
                       project=lambda x: np.clip(x, 0.0, 1.0))
    fast = iterate_em(toy_em, np.array([0.9]), tol=1e-12, max_iter=100000, accelerate=True,
                      project=lambda x: np.clip(x, 0.0, 1.0))
    assert plain.converged and fast.converged
    assert abs(plain.state[0] - mle) < 1e-9 and abs(fast.state[0] - mle) < 1e-9
    assert fast.n_iter < plain.n_iter / 2
    assert np.diff(fast.trace).min() >= -1e-9  # the objective never falls from one accepted state to the next
    assert np.diff(plain.trace).min() >= -1e-9


def test_remaining_distance_is_the_geometric_tail():
    # x_n = r^n: the step s = r^n (1 - r), the distance of x_{n+1} to 0 is r^(n+1) = s r / (1 - r)
    r, n = 0.9, 40
    s = r ** n * (1 - r)
    assert _remaining_distance(s, r) == pytest.approx(r ** (n + 1), rel=1e-12)
    assert _remaining_distance(s, 0.1) == s  # a fast rate: the step itself bounds it
    assert _remaining_distance(1.0, 1.5) == pytest.approx(0.9999 / 0.0001)  # clipped rate
