"""Panels and small helpers shared by the graded tests (the references are in tests/reference/graded.py)."""
from __future__ import annotations

import numpy as np

from manyjudges.graded.panel import GradedPanel

# --------------------------------------------------------------------------------------------
# Test panels
# --------------------------------------------------------------------------------------------

K3 = 3

#: 6 items x 4 judges, every label present
DENSE = np.array([
    [0, 1, 0, 2],
    [1, 1, 2, 1],
    [2, 2, 1, 2],
    [0, 0, 0, 1],
    [1, 2, 1, 1],
    [2, 1, 2, 0],
])

#: 6 items x 4 judges with missing labels (-1): an item with one label, an unlabelled item,
#: judge 3 never says 0 (D[3, 0] falls back to pi), and judge 2 says 0 only on item 1, which
#: judge 0 alone shares (so D^(-0)[2, 0] falls back to pi^(-0) inside the objective)
SPARSE = np.array([
    [0, 1, -1, 2],
    [1, -1, 0, -1],
    [-1, 2, 2, 2],
    [2, -1, -1, -1],
    [-1, -1, -1, -1],
    [0, 0, 1, 1],
])

PANELS = {"dense": DENSE, "sparse": SPARSE}


def panel_of(matrix: np.ndarray, k: int = K3) -> GradedPanel:
    return GradedPanel.from_matrix(np.asarray(matrix), k)


def structured_matrix(n_items: int, n_judges: int, k: int, seed: int, per_item: int | None = None,
                      noise: float = 0.8) -> np.ndarray:
    """Labels = rounded latent + judge noise (so Gaussian / vote models have something to find);
    ``per_item`` judges per item (a sparse crowd panel), else dense."""
    rng = np.random.default_rng(seed)
    latent = rng.uniform(0, k - 1, n_items)
    scale = noise * rng.uniform(0.5, 2.0, n_judges)
    m = np.clip(np.rint(latent[:, None] + scale[None, :] * rng.normal(size=(n_items, n_judges))), 0, k - 1)
    m = m.astype(int)
    if per_item is not None:
        for d in range(n_items):
            drop = rng.choice(n_judges, n_judges - per_item, replace=False)
            m[d, drop] = -1
    return m


def triples(panel: GradedPanel) -> list[tuple[int, int, int]]:
    """The raw data the references work on."""
    return list(zip(panel.item.tolist(), panel.judge.tolist(), panel.label.tolist()))


def central_gradient(f, x, h=1e-6):
    g = np.zeros_like(x)
    for n in range(len(x)):
        e = np.zeros_like(x)
        e[n] = h
        g[n] = (f(x + e) - f(x - e)) / (2 * h)
    return g


YU_PANELS = {
    "dense": structured_matrix(10, 5, 4, seed=1),
    "sparse": structured_matrix(14, 6, 4, seed=2, per_item=3),
}

#: a small sparse crowd panel: 10 items, 5 judges, 3 labels per item
CROWD = structured_matrix(10, 5, K3, seed=21, per_item=3)
#: a tinier one for M5 (its cross induction refits the model per lambda, inner and outer fold)
TINY_CROWD = structured_matrix(8, 4, K3, seed=21, per_item=3)
