"""Figures for the ordered-list experiments (Kim, Zhai, Han 2010).

ED by noise (Table 1) and the FreSPA parameter sweeps (Tables 2-4), each with the paper's values
beside ours when given.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

__all__ = ["plot_ed_by_noise", "plot_frespa_sweep"]

#: FreSPA parameters whose sweep is plotted at evenly spaced positions (their values span 0-100)
INDEXED = ("w_len", "w_sup")


def _legend(ax: plt.Axes, with_paper: bool, **kwargs) -> None:
    """Draw the axes' legend outside it, on the right (a fixed place, clear of the lines).

    The legend has a 'paper' entry when the paper's values are drawn.
    """
    handles, labels = ax.get_legend_handles_labels()
    if with_paper:
        handle = paper_handle()
        handles, labels = [*handles, handle], [*labels, handle.get_label()]
    ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5), **kwargs)


def plot_ed_by_noise(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path],
                     paper: pd.DataFrame | None = None) -> None:
    """ED (mean, sd bars) against noise ratio, one line per method (paper Table 1).

    ``paper``: the paper's values (:func:`manyjudges.reporting.paper_values.paper_values` rows of kim2010);
    Table 1's ED of each plotted method of the same name is drawn dashed with hollow markers in its colour.
    """
    p1 = paper[paper["table"].astype(str) == "1"] if paper is not None else None
    drawn = False
    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    for method, rows in table.groupby("method", sort=False):
        rows = rows.sort_values("noise_ratio")
        bars = ax.errorbar(rows["noise_ratio"], rows["ed_mean"], yerr=rows["ed_sd"], marker="o", capsize=3,
                           label=method)
        ref = p1[p1["method"] == method].sort_values("noise_ratio") if p1 is not None else None
        if ref is not None and len(ref):
            ax.plot(ref["noise_ratio"].astype(float), ref["paper_value"].astype(float),
                    **paper_style(bars.lines[0].get_color()))
            drawn = True
    ax.set_xlabel("noise ratio r (random orderings added per judge)")
    ax.set_ylabel("evaluation discriminativeness (ED)")
    ax.set_title(f"ED vs noise: {dataset}")
    ax.grid(alpha=0.3)
    _legend(ax, drawn, fontsize=8)
    fig.tight_layout()
    save_figure(fig, paths)


def plot_frespa_sweep(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path],
                      paper: pd.DataFrame | None = None) -> None:
    """One panel per swept FreSPA parameter, a line per noise ratio (paper Tables 2-4).

    ``paper``: the paper's values (kim2010 rows of ``paper_values``); its Tables 2-4 ED at each plotted
    parameter value and noise ratio is drawn dashed with hollow markers in the colour of that ratio's line.
    """
    sweeps = paper[paper["table"].astype(str).isin(["2", "3", "4"])] if paper is not None else None
    params = list(dict.fromkeys(table["parameter"]))
    fig, axes = plt.subplots(1, len(params), figsize=(3.2 * len(params) + 1.6, 3.4), squeeze=False)
    drawn = False
    for ax, param in zip(axes[0], params):
        rows = table[table["parameter"] == param]
        for ratio, sub in rows.groupby("noise_ratio"):
            sub = sub.sort_values("value")
            x = list(range(len(sub))) if param in INDEXED else sub["value"]
            bars = ax.errorbar(x, sub["ed_mean"], yerr=sub["ed_sd"], marker="o", capsize=2, label=f"r = {ratio:g}")
            if param in INDEXED:
                ax.set_xticks(range(len(sub)), [f"{v:g}" for v in sub["value"]], rotation=60, fontsize=7)
            if sweeps is None:
                continue
            ref = sweeps[(sweeps["parameter"] == param) & np.isclose(sweeps["noise_ratio"].astype(float), ratio)]
            values = sub["value"].to_numpy(dtype=float)
            at = [np.flatnonzero(np.isclose(values, v)) for v in ref["value"].astype(float)]
            keep = [len(i) > 0 for i in at]
            if any(keep):
                pos = np.array([i[0] for i, k in zip(at, keep) if k])
                y = ref["paper_value"].astype(float).to_numpy()[keep]
                order = np.argsort(pos, kind="stable")
                px = pos[order] if param in INDEXED else values[pos[order]]
                ax.plot(px, y[order], **paper_style(bars.lines[0].get_color()))
                drawn = True
        ax.set_xlabel(param)
        ax.set_ylabel("ED")
        ax.grid(alpha=0.3)
    _legend(axes[0][-1], drawn, fontsize=7)  # one legend: every panel has the same ratios in the same colours
    fig.suptitle(f"FreSPA parameter sweeps: {dataset}")
    fig.tight_layout()
    save_figure(fig, paths)
