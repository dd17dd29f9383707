"""Figure for the graded-judgment experiments (Wilbur and Kim 2011): per-judge log probability by method.

The paper's values are drawn beside ours when given.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.graded.report import PROTOCOL_TABLES, _paper_judge
from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

__all__ = ["plot_loglik_by_judge"]


def _paper_gain(paper: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Return the paper's per-judge log probabilities of ``protocol``'s table (2 or 3) minus its uniform prediction.

    The uniform prediction is eq. 11's; columns judge (the paper's number), method, gain.
    """
    rows = paper[(paper["table"].astype(str) == PROTOCOL_TABLES[protocol][0]) & (paper["statistic"] == "loglik")]
    rows = rows[rows["judge"].map(lambda j: isinstance(j, (int, float)) and not np.isnan(j))]
    uniform = paper[paper["table"].astype(str) == "eq11"]["paper_value"].astype(float)
    base = float(uniform.iloc[0]) if len(uniform) else np.nan
    return pd.DataFrame({"judge": rows["judge"].astype(int).to_numpy(), "method": rows["method"].to_numpy(),
                         "gain": rows["paper_value"].astype(float).to_numpy() - base})


def plot_loglik_by_judge(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path],
                         paper: pd.DataFrame | None = None) -> None:
    """Plot the per-judge log probability of each method minus the uniform baseline, one panel per protocol.

    These are Wilbur and Kim's Tables 2 and 3, as differences from eq. 11's uniform prediction.

    ``paper``: the paper's values (wilbur2011 rows of ``paper_values``), for a panel standing in for the
    paper's: each method's Table 2/3 value minus eq. 11's, at the judge of the same number (``judge07`` = 7),
    drawn as hollow markers in the method's colour (dashed, as ours, when judges are few).
    """
    protocols = list(dict.fromkeys(table["protocol"]))
    fig, axes = plt.subplots(len(protocols), 1, figsize=(8.6, 3.4 * len(protocols)), squeeze=False)
    for ax, protocol in zip(axes[:, 0], protocols):
        rows = table[table["protocol"] == protocol]
        uniform = rows[rows["method"] == "uniform"].set_index("judge")["loglik"]
        judges = list(uniform.index)
        x = np.arange(len(judges))
        many = len(judges) > 40
        gains = _paper_gain(paper, protocol) if paper is not None and protocol in PROTOCOL_TABLES else None
        drawn = False
        for method, g in rows[rows["method"] != "uniform"].groupby("method", sort=False):
            y = g.set_index("judge")["loglik"].reindex(judges) - uniform
            (line,) = ax.plot(x, y.to_numpy(), marker="o", markersize=2 if many else 4,
                              linestyle="none" if many else "-", linewidth=1, label=method)
            ref = gains[gains["method"] == method].set_index("judge")["gain"] if gains is not None else None
            if ref is not None and len(ref):
                py = np.array([ref.get(_paper_judge(j), np.nan) for j in judges], dtype=float)
                if not np.isnan(py).all():
                    ax.plot(x, py, **paper_style(line.get_color(), line=not many))
                    drawn = True
        ax.axhline(0.0, color="black", linewidth=0.8)
        if many:
            ax.set_xlabel(f"held-out judge ({len(judges)} judges)")
        else:
            ax.set_xticks(x, [str(j) for j in judges], rotation=90, fontsize=7)
            ax.set_xlabel("held-out judge")
        ax.set_ylabel("log P - uniform")
        ax.set_title(f"{dataset}: {protocol.replace('_', ' ')}")
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        if drawn:
            handle = paper_handle("dashed, hollow: paper" if not many else "hollow: paper", line=not many)
            handles, labels = [*handles, handle], [*labels, handle.get_label()]
        ax.legend(handles, labels, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    save_figure(fig, paths)
