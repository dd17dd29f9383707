"""Simulated panels of orderings shaped like the papers' (unavailable) data.

``sim_barzilay``: sets of items, each ordered by several judges drawn from a Mallows
model around a random reference ordering (repeated insertion model, Doignon et al. 2004),
its dispersion calibrated so the mean pairwise Kendall tau between judges matches a
target (0.45: Kim et al.'s AC-tau ED of 0.454 equals that mean; docs/methods.md, "Ordered lists" section).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from manyjudges.core.correlation import kendall_tau_matrix
from manyjudges.core.random_streams import rng_for
from manyjudges.core.ranks import ranks_from_orders

#: The data caveat the orderings report prints under a simulated dataset.
REPORT_NOTE = (
    "Stands in for the paper's data (Barzilay et al. sentence orderings: 10 sets, about 10 assessors each), "
    "which is not public: shaped like it and calibrated, by its one Mallows dispersion, to one number only, the "
    "judges' mean pairwise Kendall tau that the paper's AC-tau ED at noise 0 implies. Every other value follows "
    "from that dispersion and is on simulated data (the line below says how far the noise-0 values miss the "
    "paper's); the paper's values compare in the ranking of methods and the trends."
)


def mallows_orders(rng: np.random.Generator, reference: np.ndarray, phi: float, count: int) -> np.ndarray:
    """``count`` orders (rows of items, best first) from Mallows(reference, phi), phi in (0, 1].

    Repeated insertion: the i-th reference item goes to position j in 0..i with
    probability proportional to phi^(i - j); phi = 1 is uniform, phi -> 0 the reference.
    Each insertion draws one uniform number and takes the position where it falls in the
    cumulative probabilities, as ``rng.choice(i + 1, p=...)`` does (the same draws, the same
    orders), with the cumulative probabilities computed once per position instead of per draw.
    """
    k = len(reference)
    cdfs = []
    for i in range(k):
        w = phi ** (i - np.arange(i + 1, dtype=float))
        cdf = (w / w.sum()).cumsum()
        cdf /= cdf[-1]
        cdfs.append(cdf)
    orders = np.empty((count, k), dtype=int)
    for c, draws in enumerate(rng.random((count, k))):
        current: list[int] = []
        for i in range(k):
            current.insert(int(cdfs[i].searchsorted(draws[i], side="right")), int(reference[i]))
        orders[c] = current
    return orders


def expected_mean_tau(phi: float, n_items: Sequence[int], draws: int = 300, seed: int = 0) -> float:
    """Monte Carlo mean pairwise Kendall tau of Mallows(phi) panels with these set sizes."""
    rng = rng_for(seed, "calibration", phi)
    taus = []
    for k in n_items:
        ranks = ranks_from_orders(mallows_orders(rng, np.arange(k), phi, draws))
        t = kendall_tau_matrix(ranks)
        taus.append((t.sum() - np.trace(t)) / (draws * (draws - 1)))
    return float(np.mean(taus))


def calibrate_dispersion(target_tau: float, n_items: Sequence[int], iterations: int = 18, seed: int = 0) -> float:
    """Mallows phi whose expected mean pairwise tau is ``target_tau`` (bisection; tau falls as phi rises)."""
    if not 0.0 < target_tau < 1.0:
        raise ValueError(f"target mean tau must be in (0, 1), got {target_tau}")
    lo, hi = 1e-6, 1.0
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if expected_mean_tau(mid, n_items, seed=seed) > target_tau:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def simulate_ordering_panel(
    seed: int,
    items_per_set: Sequence[int],
    judges_per_set: int | Sequence[int],
    target_mean_tau: float,
    name: str = "sim_barzilay",
) -> pd.DataFrame:
    """Canonical orderings table (set_id, judge, item, rank) of a simulated panel."""
    items_per_set = [int(k) for k in items_per_set]
    if any(k < 2 for k in items_per_set):
        raise ValueError(f"every set needs at least 2 items, got {items_per_set}")
    # np.isscalar (which also takes numpy's integers) narrows neither branch: the casts say what each one holds
    judges = ([int(cast(int, judges_per_set))] * len(items_per_set) if np.isscalar(judges_per_set)
              else [int(j) for j in cast(Sequence[int], judges_per_set)])
    if len(judges) != len(items_per_set) or any(j < 2 for j in judges):
        raise ValueError("judges_per_set must be one integer >= 2 or one per set")
    phi = calibrate_dispersion(target_mean_tau, sorted(set(items_per_set)), seed=seed)
    rows = []
    width = len(str(len(items_per_set)))
    for s, (k, n) in enumerate(zip(items_per_set, judges)):
        rng = rng_for(seed, name, s)
        reference = rng.permutation(k)
        ranks = ranks_from_orders(mallows_orders(rng, reference, phi, n))
        set_id = f"s{s + 1:0{width}d}"
        for j in range(n):
            for item in range(k):
                rows.append((set_id, f"j{j + 1:02d}", str(item + 1), int(ranks[j, item])))
    return pd.DataFrame(rows, columns=["set_id", "judge", "item", "rank"])
