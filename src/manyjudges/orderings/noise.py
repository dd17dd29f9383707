"""Noise for robustness experiments: orderings drawn uniformly at random (Kim et al. 2010, s.4)."""
from __future__ import annotations

import numpy as np

from manyjudges.core.ranks import ranks_from_orders


def random_orderings(rng: np.random.Generator, count: int, n_items: int) -> np.ndarray:
    """``count`` strict orderings of ``n_items`` items, uniform over permutations, as ranks."""
    if count <= 0:
        return np.empty((0, n_items))
    orders = np.argsort(rng.random((count, n_items)), axis=1)
    return ranks_from_orders(orders)


#: how r n random orderings are counted when r n is not a whole number (docs/methods.md, "Noise")
NOISE_ROUNDINGS = ("floor", "half_up")


def noise_count(ratio: float, n_judges: int, rounding: str = "floor") -> int:
    """Return the number of random orderings added for noise ratio r to a set of n judges' orderings.

    Kim, Zhai, Han (2010, s.5.4) add "nr random orders to a data set with n original judgments"
    (10 orderings at r = 0.5: 5). Where r n is fractional: ``floor`` takes its whole part
    (0.25 x 10: 2), ``half_up`` rounds to the nearest count, halves up (0.25 x 10: 3).
    """
    if rounding not in NOISE_ROUNDINGS:
        raise ValueError(f"noise rounding must be one of {', '.join(NOISE_ROUNDINGS)}, got {rounding!r}")
    # the tiny tolerance keeps r n = 0.3 x 10 = 2.9999999999999996 at 3
    exact = ratio * n_judges + (0.5 if rounding == "half_up" else 0.0)
    return int(np.floor(exact + 1e-9))
