"""Figure for the graded-judgment experiments (Wilbur and Kim 2011): per-judge log probability by method."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import plt, save_figure

__all__ = ["plot_loglik_by_judge"]


def plot_loglik_by_judge(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """Per-judge log probability of each method minus the uniform baseline, one panel per protocol
    (Wilbur and Kim, Tables 2 and 3, as differences from eq. 11's uniform prediction)."""
    protocols = list(dict.fromkeys(table["protocol"]))
    fig, axes = plt.subplots(len(protocols), 1, figsize=(7.2, 3.4 * len(protocols)), squeeze=False)
    for ax, protocol in zip(axes[:, 0], protocols):
        rows = table[table["protocol"] == protocol]
        uniform = rows[rows["method"] == "uniform"].set_index("judge")["loglik"]
        judges = list(uniform.index)
        x = np.arange(len(judges))
        many = len(judges) > 40
        for method, g in rows[rows["method"] != "uniform"].groupby("method", sort=False):
            y = g.set_index("judge")["loglik"].reindex(judges) - uniform
            ax.plot(x, y.to_numpy(), marker="o", markersize=2 if many else 4, linestyle="none" if many else "-",
                    linewidth=1, label=method)
        ax.axhline(0.0, color="black", linewidth=0.8)
        if many:
            ax.set_xlabel(f"held-out judge ({len(judges)} judges)")
        else:
            ax.set_xticks(x, [str(j) for j in judges], rotation=90, fontsize=7)
            ax.set_xlabel("held-out judge")
        ax.set_ylabel("log P - uniform")
        ax.set_title(f"{dataset}: {protocol.replace('_', ' ')}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    save_figure(fig, paths)
