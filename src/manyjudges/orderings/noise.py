"""Noise for robustness experiments: orderings drawn uniformly at random (Kim et al. 2010, s.4)."""
from __future__ import annotations

import numpy as np

from manyjudges.ranks import ranks_from_orders


def random_orderings(rng: np.random.Generator, count: int, n_items: int) -> np.ndarray:
    """``count`` strict orderings of ``n_items`` items, uniform over permutations, as ranks."""
    if count <= 0:
        return np.empty((0, n_items))
    orders = np.argsort(rng.random((count, n_items)), axis=1)
    return ranks_from_orders(orders)


def noise_count(ratio: float, n_judges: int) -> int:
    """round(r n) random orderings for noise ratio r (half-up, not banker's rounding)."""
    return int(np.floor(ratio * n_judges + 0.5))
