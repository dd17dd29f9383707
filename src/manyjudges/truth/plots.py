"""The truth-inference figure: accuracy by method on one dataset, with the published accuracies beside."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

__all__ = ["plot_accuracy"]


def plot_accuracy(accuracy: pd.DataFrame, dataset: str, png: str | Path, pdf: str | Path,
                  published: pd.DataFrame | None = None, method_of: Mapping[str, str] | None = None) -> None:
    """Horizontal bars of ``accuracy.tsv`` (method, accuracy), one per configured entry.

    ``published`` (method, accuracy): every published accuracy on this dataset, a hollow black-edged marker on
    the bar of the entry whose method it is (``method_of``: entry -> registry method, default the entry's
    name), or on a row of its own below ours for a method we do not run (e.g. IBCC, BWA).
    """
    entries = list(accuracy["method"])
    method_of = dict(method_of or {})
    published = published if published is not None and not published.empty else None
    ran = {method_of.get(e, e) for e in entries}
    extra = [] if published is None else [m for m in dict.fromkeys(published["method"]) if m not in ran]
    rows = entries + extra
    y = np.arange(len(rows))[::-1]
    fig, ax = plt.subplots(figsize=(6.4, 0.35 * len(rows) + 1.6))
    values = accuracy["accuracy"].astype(float).to_numpy()
    ax.barh(y[: len(entries)], values, color="tab:blue", height=0.6)
    shown: list[float] = values.tolist()
    if published is not None:
        ref = published.drop_duplicates("method").set_index("method")["accuracy"].astype(float)
        marks = [ref.get(method_of.get(r, r), np.nan) for r in rows]
        ax.plot(marks, y, **{**paper_style("black", line=False), "markersize": 6})
        ax.legend([paper_handle("hollow: published", line=False)], ["hollow: published"], fontsize=8,
                  loc="lower right")
        shown += marks
    finite = [v for v in shown if np.isfinite(v)]
    low = min(finite) if finite else 0.0
    ax.set_xlim(max(0.0, np.floor(low * 20) / 20 - 0.05), 1.0)
    ax.set_yticks(y, rows, fontsize=8)
    ax.set_xlabel("accuracy on the items with a truth")
    ax.set_title(f"Truth inference: {dataset}")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, [png, pdf])


def plot_replay(curves: pd.DataFrame, summary: pd.DataFrame, dataset: str, png: str | Path, pdf: str | Path) -> None:
    """Accuracy against the share of labels bought, one line per policy.

    ``curves``: policy, share, accuracy, each line ending where the advice stopped; the all-labels accuracy
    dotted, each policy's share at the stop and shortfall in the legend.
    """
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    share = summary.set_index("policy")["stop_share"]
    short = summary.set_index("policy")["shortfall"]
    for policy, curve in curves.groupby("policy", sort=False):
        said = f"stops at {float(share[policy]):.2f}, short by {float(short[policy]):+.3f}"
        ax.plot(curve["share"], curve["accuracy"], lw=1.4, marker=".", ms=3, label=f"{policy} ({said})")
    target = float(summary["all_labels_accuracy"].iloc[0])
    ax.axhline(target, color="grey", lw=0.8, ls=":", label="all-labels accuracy")
    ax.set_xlabel("share of the labels bought")
    ax.set_ylabel("accuracy on the items with a truth")
    ax.set_title(f"Where the next labels go: {dataset}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    save_figure(fig, [png, pdf])
