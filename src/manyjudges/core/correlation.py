"""Rank correlations between orderings, vectorised over all pairs of rows.

Kendall tau-b and the Spearman correlation of average ranks, with the semantics of
``scipy.stats.kendalltau`` and ``scipy.stats.spearmanr`` (tie-aware); docs/methods.md, "Ordered lists" section.
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.ranks import as_rank_matrix, average_ranks


def _pair_signs(ranks: np.ndarray) -> np.ndarray:
    r = as_rank_matrix(ranks)
    k = r.shape[1]
    a, b = np.triu_indices(k, 1)
    return np.sign(r[:, a] - r[:, b])


def kendall_tau_matrix(x: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Kendall tau-b between every row of ``x`` and every row of ``y``.

    tau_b = sum_{a<b} sgn_x sgn_y / sqrt(T_x T_y), T = number of untied pairs
    (Kendall 1945; scipy.stats.kendalltau). A fully tied row gives NaN, as scipy does.
    """
    sx = _pair_signs(x)
    sy = sx if y is None else _pair_signs(y)
    num = sx @ sy.T
    tx = np.count_nonzero(sx, axis=1).astype(float)
    ty = np.count_nonzero(sy, axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / np.sqrt(np.outer(tx, ty))


def spearman_rho_matrix(x: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Spearman rho (Pearson correlation of average ranks) between rows of ``x`` and ``y``.

    rho = 1 - 6 sum d^2 / (k(k^2-1)) without ties; scipy.stats.spearmanr with ties.
    """

    def standardise(r: np.ndarray) -> np.ndarray:
        a = average_ranks(r)
        a = a - a.mean(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return a / np.linalg.norm(a, axis=1, keepdims=True)

    zx = standardise(x)
    zy = zx if y is None else standardise(y)
    return np.clip(zx @ zy.T, -1.0, 1.0)


CORRELATIONS = {"kendall": kendall_tau_matrix, "spearman": spearman_rho_matrix}


def correlation_matrix(x: np.ndarray, y: np.ndarray | None = None, kind: str = "kendall") -> np.ndarray:
    """Normalised correlation (c + 1) / 2 in [0, 1] between rows (reading: docs/methods.md, "Ordered lists").

    NaN (a fully tied ordering) maps to 0.5: no information either way.
    """
    try:
        corr = CORRELATIONS[kind]
    except KeyError:
        raise ValueError(f"unknown correlation {kind!r}; choose one of {sorted(CORRELATIONS)}") from None
    c = (corr(x, y) + 1.0) / 2.0
    return np.where(np.isnan(c), 0.5, c)


def rowwise_correlation(x: np.ndarray, y: np.ndarray, kind: str = "kendall") -> np.ndarray:
    """Normalised correlation between row i of ``x`` and row i of ``y`` (same shapes)."""
    x, y = as_rank_matrix(x), as_rank_matrix(y)
    if kind == "kendall":
        sx, sy = _pair_signs(x), _pair_signs(y)
        with np.errstate(invalid="ignore", divide="ignore"):
            c = (sx * sy).sum(axis=1) / np.sqrt(np.count_nonzero(sx, axis=1) * np.count_nonzero(sy, axis=1))
    elif kind == "spearman":
        ax, ay = average_ranks(x), average_ranks(y)
        ax = ax - ax.mean(axis=1, keepdims=True)
        ay = ay - ay.mean(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            c = np.clip((ax * ay).sum(axis=1) / (np.linalg.norm(ax, axis=1) * np.linalg.norm(ay, axis=1)), -1, 1)
    else:
        raise ValueError(f"unknown correlation {kind!r}; choose one of {sorted(CORRELATIONS)}")
    c = (c + 1.0) / 2.0
    return np.where(np.isnan(c), 0.5, c)
