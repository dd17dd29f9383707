"""The truth-inference figure: accuracy by method on one dataset, with the published accuracies beside."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

__all__ = ["plot_accuracy"]


def plot_accuracy(accuracy: pd.DataFrame, dataset: str, png: str | Path, pdf: str | Path,
                  published: pd.DataFrame | None = None) -> None:
    """Horizontal bars of ``accuracy.tsv`` (method, accuracy); ``published`` (method, accuracy): every
    published accuracy on this dataset, a hollow black-edged marker on the bar of the same method, or
    its own row below ours when we have no such method (e.g. IBCC, BWA)."""
    methods = list(accuracy["method"])
    values = list(accuracy["accuracy"].astype(float))
    extra: list[str] = []
    if published is not None and not published.empty:
        extra = [m for m in dict.fromkeys(published["method"]) if m not in methods]
    rows = methods + extra
    y = np.arange(len(rows))[::-1]
    fig, ax = plt.subplots(figsize=(6.4, 0.35 * len(rows) + 1.6))
    ax.barh(y[: len(methods)], values, color="tab:blue", height=0.6)
    if extra or (published is not None and not published.empty):
        ref = published.drop_duplicates("method").set_index("method")["accuracy"].astype(float)
        ax.plot([ref.get(m, np.nan) for m in rows], y, **{**paper_style("black", line=False), "markersize": 6})
        ax.legend([paper_handle("hollow: published", line=False)], ["hollow: published"], fontsize=8,
                  loc="lower right")
    finite = [v for v in values if np.isfinite(v)]
    low = min(finite + list(published["accuracy"].astype(float) if published is not None else [])) if finite else 0
    ax.set_xlim(max(0.0, np.floor(low * 20) / 20 - 0.05), 1.0)
    ax.set_yticks(y, rows, fontsize=8)
    ax.set_xlabel("accuracy on the items with a truth")
    ax.set_title(f"Truth inference: {dataset}")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, [png, pdf])
