"""Figures of a panel of LLM judges (:func:`manyjudges.arena.judges.measures.judge_measures`).

The position bias of each judge with its Wilson interval, and a heatmap of the judges' pairwise
agreement or error correlation.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import plt, save_figure

__all__ = ["plot_judge_heatmap", "plot_position_bias"]

#: the pairs columns :func:`plot_judge_heatmap` can draw, and their titles
_HEATMAP_VALUES = {"agreement": "Agreement between judges", "error_correlation": "Correlation of the judges' errors"}


def _save(fig: plt.Figure, paths: str | Path | Sequence[str | Path] | None) -> plt.Figure:
    if paths is not None:
        save_figure(fig, [paths] if isinstance(paths, (str, Path)) else list(paths))
    return fig


def plot_position_bias(judges: pd.DataFrame, paths: str | Path | Sequence[str | Path] | None = None,
                       title: str = "Position bias of each judge") -> plt.Figure:
    """Plot the first-win rate per judge, a dot with its Wilson interval as whiskers.

    The first-win rate is the share of its decisive verdicts won by the answer shown first; a dashed
    line marks 0.5 (no position bias).

    Parameters
    ----------
    judges : pandas.DataFrame
        The ``judges`` table: ``judge, first_win_rate, first_win_low, first_win_high``.
    paths : path or paths, optional
        Where to save the figure (PNG, or PDF for ``.pdf``); saving closes it.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = judges.sort_values(["first_win_rate", "judge"], na_position="first").reset_index(drop=True)
    y = np.arange(len(rows))
    rate = rows["first_win_rate"].to_numpy(dtype=float)
    low = rows["first_win_low"].to_numpy(dtype=float)
    high = rows["first_win_high"].to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(6.0, max(2.0, 0.35 * len(rows) + 1.2)))
    ax.hlines(y, low, high, color="0.35", linewidth=1)  # the interval as drawn, even where rounding puts
    ax.plot(rate, y, "o", color="C0", label="first-win rate (Wilson interval)")  # the rate a hair outside
    ax.axvline(0.5, color="0.5", linestyle="--", linewidth=1, label="no position bias")
    ax.set_yticks(y, rows["judge"].astype(str))
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("share of decisive verdicts won by the answer shown first")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return _save(fig, paths)


def plot_judge_heatmap(pairs: pd.DataFrame, paths: str | Path | Sequence[str | Path] | None = None,
                       value: str = "agreement", title: str | None = None) -> plt.Figure:
    """Plot a judges x judges heatmap of one column of the ``pairs`` table, mirrored; the diagonal is left empty.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The ``pairs`` table: ``judge_a, judge_b`` and ``value``.
    paths : path or paths, optional
        Where to save the figure; saving closes it.
    value : {"agreement", "error_correlation"}
    title : str, optional
        Default: :data:`_HEATMAP_VALUES` of ``value``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if value not in _HEATMAP_VALUES:
        raise ValueError(f"value must be one of {', '.join(_HEATMAP_VALUES)}, got {value!r}")
    names = sorted(set(pairs["judge_a"].astype(str)) | set(pairs["judge_b"].astype(str)))
    position = {name: k for k, name in enumerate(names)}
    matrix = np.full((len(names), len(names)), np.nan)
    a = pairs["judge_a"].astype(str).map(position).to_numpy(dtype=int)
    b = pairs["judge_b"].astype(str).map(position).to_numpy(dtype=int)
    matrix[a, b] = matrix[b, a] = pairs[value].to_numpy(dtype=float)
    low = -1.0 if value == "error_correlation" else 0.0
    size = max(3.5, 0.5 * len(names) + 2.0)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    image = ax.imshow(matrix, vmin=low, vmax=1.0, cmap="RdBu_r" if low < 0 else "viridis")
    for i, j in zip(*np.nonzero(np.isfinite(matrix))):
        ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7,
                color="white" if low == 0 and matrix[i, j] < 0.5 else "black")
    ax.set_xticks(np.arange(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(np.arange(len(names)), names, fontsize=8)
    fig.colorbar(image, ax=ax, label=value.replace("_", " "))
    ax.set_title(title or _HEATMAP_VALUES[value])
    fig.tight_layout()
    return _save(fig, paths)
