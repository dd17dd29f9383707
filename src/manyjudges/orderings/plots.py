"""Figures for the ordered-list experiments (Kim, Zhai, Han 2010): ED by noise (Table 1) and the
FreSPA parameter sweeps (Tables 2-4)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from manyjudges.reporting.figures import plt, save_figure

__all__ = ["plot_ed_by_noise", "plot_frespa_sweep"]


def plot_ed_by_noise(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """ED (mean, sd bars) against noise ratio, one line per method (paper Table 1)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method, rows in table.groupby("method", sort=False):
        rows = rows.sort_values("noise_ratio")
        ax.errorbar(rows["noise_ratio"], rows["ed_mean"], yerr=rows["ed_sd"], marker="o", capsize=3, label=method)
    ax.set_xlabel("noise ratio r (random orderings added per judge)")
    ax.set_ylabel("evaluation discriminativeness (ED)")
    ax.set_title(f"ED vs noise: {dataset}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    save_figure(fig, paths)


def plot_frespa_sweep(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """One panel per swept FreSPA parameter, a line per noise ratio (paper Tables 2-4)."""
    params = list(dict.fromkeys(table["parameter"]))
    fig, axes = plt.subplots(1, len(params), figsize=(3.2 * len(params), 3.4), squeeze=False)
    for ax, param in zip(axes[0], params):
        rows = table[table["parameter"] == param]
        for ratio, sub in rows.groupby("noise_ratio"):
            sub = sub.sort_values("value")
            x = list(range(len(sub))) if param in ("w_len", "w_sup") else sub["value"]
            ax.errorbar(x, sub["ed_mean"], yerr=sub["ed_sd"], marker="o", capsize=2, label=f"r = {ratio:g}")
            if param in ("w_len", "w_sup"):
                ax.set_xticks(range(len(sub)), [f"{v:g}" for v in sub["value"]], rotation=60, fontsize=7)
        ax.set_xlabel(param)
        ax.set_ylabel("ED")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"FreSPA parameter sweeps: {dataset}")
    fig.tight_layout()
    save_figure(fig, paths)
