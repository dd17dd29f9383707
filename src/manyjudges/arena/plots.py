"""Figures of the arena section.

Each method's scores with their bootstrap intervals (one panel per method, the models in the order of
the first method's ranking); the judges' figures are :mod:`manyjudges.arena.judge_plots`'.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.arena.judge_plots import plot_judge_heatmap
from manyjudges.reporting.figures import plt, save_figure

__all__ = ["plot_agreement", "plot_leaderboard"]

#: the most judges the agreement heatmap shows (those with the most verdicts)
_HEATMAP_JUDGES = 30


def _busiest_pairs(pairs: pd.DataFrame, judges: pd.DataFrame, limit: int = _HEATMAP_JUDGES) -> pd.DataFrame:
    """Return the rows of the ``pairs`` table between the ``limit`` judges with the most verdicts.

    The count is the ``judges`` table's ``verdicts``; equal counts by judge name; all of them when
    there are at most ``limit``.
    """
    if len(judges) <= limit:
        return pairs
    ranked = judges.assign(judge=judges["judge"].astype(str)).sort_values(["verdicts", "judge"],
                                                                         ascending=[False, True])
    kept = set(ranked["judge"].iloc[:limit])
    return pairs[pairs["judge_a"].astype(str).isin(kept) & pairs["judge_b"].astype(str).isin(kept)]


def plot_leaderboard(table: pd.DataFrame, paths: str | Path | Sequence[str | Path] | None = None,
                     title: str = "Leaderboard", method_of: Mapping[str, str] | None = None,
                     method: str = "bradley_terry") -> plt.Figure:
    """Plot one panel per method: each model's score as a dot and its percentile interval as whiskers.

    The interval is (``ci_low``, ``ci_high``), the best at the top; the rows follow the first method's
    ranking in every panel, so that the methods' orders can be compared row by row. Scores are on each
    method's own scale (log-strengths, Elo points), hence one x axis per panel.

    Parameters
    ----------
    table : pandas.DataFrame
        The ``leaderboard`` table: ``method, model, rank, score, ci_low, ci_high``; without a ``method``
        column (the table ``manyjudges arena leaderboard`` writes), one panel of ``method``.
    paths : path or paths, optional
        Where to save the figure (PNG, or PDF for ``.pdf``); saving closes it.
    title : str
    method_of : mapping, optional
        Entry name -> the built-in method it runs (default: the name), for the axes' units.
    method : str
        The method of a table without a ``method`` column (``elo``: Elo points; else log-strengths).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if "method" not in table.columns:
        table = table.assign(method=method)
    methods = list(pd.unique(table["method"]))
    first = table[table["method"] == methods[0]].sort_values(["rank", "model"])
    order = list(first["model"].astype(str))
    order += sorted(set(table["model"].astype(str)) - set(order))
    y = np.arange(len(order))[::-1]  # the best at the top
    size = (max(6.0, 2.8 * len(methods) + 1.2), max(2.2, 0.28 * len(order) + 1.2))
    fig, axes = plt.subplots(1, len(methods), figsize=size,
                             sharey=True, squeeze=False, layout="constrained")  # constrained: room for the title
    for ax, name in zip(axes[0], methods):
        rows = table[table["method"] == name]
        rows = rows.set_index(rows["model"].astype(str)).reindex(order)
        score = rows["score"].to_numpy(dtype=float)
        low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
        has = np.isfinite(low) & np.isfinite(high)
        # a line from low to high: a percentile interval need not contain the full-data score
        ax.hlines(y[has], low[has], high[has], color="0.45", linewidth=1)
        ax.plot(score, y, "o", color="C0", markersize=4)
        elo = (method_of or {}).get(name, name) == "elo"
        ax.axvline(float(np.nanmean(score)), color="0.7", linewidth=0.8, linestyle=":")
        ax.set_title(str(name), fontsize=9)
        ax.set_xlabel("Elo points" if elo else "score (log-strength)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(y, order, fontsize=7 if len(order) > 20 else 8)
    axes[0][0].set_ylim(-0.7, len(order) - 0.3)
    fig.suptitle(title)
    if paths is not None:
        save_figure(fig, [paths] if isinstance(paths, (str, Path)) else list(paths))
    return fig


def plot_agreement(pairs: pd.DataFrame, judges: pd.DataFrame, paths: str | Path | Sequence[str | Path] | None = None,
                   title: str = "Agreement between the judges", limit: int = _HEATMAP_JUDGES) -> plt.Figure:
    """Plot the judges' pairwise agreement as a heatmap (:func:`~manyjudges.arena.judge_plots.plot_judge_heatmap`).

    Between the ``limit`` judges with the most verdicts (:func:`_busiest_pairs`; the title says so when
    there are more); a panel of one judge, which has no pair, gets an empty figure that says so.
    """
    if len(judges) > limit:
        title += f"\n(the {limit} of {len(judges)} judges with the most verdicts)"
    shown = _busiest_pairs(pairs, judges, limit)
    if shown.empty:
        fig, ax = plt.subplots(figsize=(4.0, 2.0))
        ax.text(0.5, 0.5, "no two judges judged a common unit", ha="center", va="center")
        ax.set_axis_off()
        ax.set_title(title)
        if paths is not None:
            save_figure(fig, [paths] if isinstance(paths, (str, Path)) else list(paths))
        return fig
    return plot_judge_heatmap(shown, paths, title=title)
