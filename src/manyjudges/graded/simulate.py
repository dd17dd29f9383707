"""``sim_medline``: a simulated panel shaped like Wilbur and Kim's (unpublished) MEDLINE judgments.

100 queries x 50 documents = 5000 (query, document) pairs, 13 judges (7 "trained",
6 "untrained"), labels 0..4 (docs/methods.md, graded section). Each pair has a latent relevance
x = a_q + e (a query effect and a document effect, both normal). Judge j sees
y = x + noise_j * s * eps and gives the number of its thresholds below y; the thresholds are
a common ladder, shifted by a judge bias and stretched by a judge spacing. Untrained judges
are noisier, and the configured "hard" judges (the paper's 0 and 12, predicted worse than
uniform by most methods) are much noisier and biased. The global noise scale s is
calibrated by bisection so that M1's cross-induction average log-probability matches a
target (the paper's -7433 against the uniform -8047.19).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from manyjudges.graded.panel import GradedPanel
from manyjudges.random_streams import rng_for

#: The data caveat the graded report prints under a simulated dataset.
REPORT_NOTE = (
    "Stands in for the paper's 13-judge MEDLINE panel, which is not public: only the ordering of methods and "
    "the scale are comparable with the paper's values, never a judge's value."
)


def _latent_and_noise(seed: int, n_queries: int, docs_per_query: int, n_judges: int, n_trained: int,
                      n_labels: int, hard_judges: Sequence[int], hard_noise: float, hard_bias: float):
    rng = rng_for(seed, "sim_medline")
    n_items = n_queries * docs_per_query
    latent = np.repeat(rng.normal(0, 0.6, n_queries), docs_per_query) + rng.normal(0, 1.0, n_items)
    eps = rng.normal(size=(n_items, n_judges))
    bias = rng.normal(0, 0.3, n_judges)
    spacing = rng.uniform(0.8, 1.25, n_judges)
    noise = np.where(np.arange(n_judges) < n_trained, 1.0, 1.4)
    for j, sign in zip(hard_judges, np.resize([1.0, -1.0], len(hard_judges))):
        noise[j] *= hard_noise
        bias[j] += sign * hard_bias
    ladder = np.linspace(-1.5, 1.5, n_labels - 1)
    thresholds = bias[:, None] + spacing[:, None] * ladder[None, :]
    return latent, eps, noise, thresholds


def _labels(latent, eps, noise, thresholds, scale: float) -> np.ndarray:
    y = latent[:, None] + scale * noise[None, :] * eps
    return (y[:, :, None] > thresholds[None, :, :]).sum(2)


def simulate_medline_panel(seed: int, n_queries: int = 100, docs_per_query: int = 50, n_judges: int = 13,
                           n_trained: int = 7, n_labels: int = 5, hard_judges: Sequence[int] = (0, 12),
                           hard_noise: float = 2.5, hard_bias: float = 0.8, target_m1_ave: float | None = -7433.0,
                           noise_scale: float = 1.0, iterations: int = 24) -> tuple[pd.DataFrame, float]:
    """(grades table, noise scale used). With ``target_m1_ave`` the scale is calibrated so M1's
    cross-induction average log-probability per judge equals it (rescaled to the item count
    if the panel is not 5000 items), and a ValueError says so if the bisection cannot get
    within 1%; otherwise ``noise_scale`` is used as given."""
    from manyjudges.graded.protocols import cross_induction, loglik_by_judge
    from manyjudges.graded.votes import M1

    bad = [j for j in hard_judges if not 0 <= j < n_judges]
    if bad:
        raise ValueError(f"hard_judges {bad} outside 0..{n_judges - 1} (n_judges = {n_judges})")
    parts = _latent_and_noise(seed, n_queries, docs_per_query, n_judges, n_trained, n_labels,
                              hard_judges, hard_noise, hard_bias)
    n_items = n_queries * docs_per_query

    def m1_ave(scale: float) -> float:
        panel = GradedPanel.from_matrix(_labels(*parts, scale), n_labels)
        res = cross_induction(M1(), panel, np.arange(n_judges))
        return float(loglik_by_judge(res.predictions)["loglik"].mean())

    scale = noise_scale
    if target_m1_ave is not None:
        target = target_m1_ave * n_items / 5000.0
        lo, hi = 0.01, 5.0
        for _ in range(iterations):
            mid = np.sqrt(lo * hi)
            if m1_ave(mid) > target:  # too predictable: more noise
                lo = mid
            else:
                hi = mid
        scale = float(np.sqrt(lo * hi))
        achieved = m1_ave(scale)
        if abs(achieved - target) > 0.01 * abs(target):
            raise ValueError(
                f"calibration failed: M1's average log probability is {achieved:.1f} at noise scale {scale:.3g}, "
                f"target {target:.1f} (more than 1% off; on small panels it need not fall monotonically with the "
                "noise). Choose another target_m1_ave, or set target_m1_ave: null and give noise_scale.")
    labels = _labels(*parts, scale)
    q = np.repeat(np.arange(n_queries), docs_per_query)
    d = np.tile(np.arange(docs_per_query), n_queries)
    items = np.char.add(np.char.add(np.char.add("q", q.astype(str)), "_d"), d.astype(str))
    grades = pd.DataFrame({
        "item": np.repeat(items, n_judges),
        "judge": np.tile([f"judge{j:02d}" for j in range(n_judges)], n_items),
        "label": labels.ravel(),
    })
    return grades, scale
