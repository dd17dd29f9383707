"""Figures for the consensus-measure experiments (Lin, Li, Guo).

Log kappa over the lambda x gamma grid, rank aggregators judged by consensus, and sensitivity to perturbing
one list; the grid with the reference values of the authors' code beside ours when given.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

__all__ = ["plot_consensus_grid", "plot_aggregators", "plot_sensitivity"]


def plot_consensus_grid(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path],
                        paper: pd.DataFrame | None = None) -> None:
    """Log kappa against lambda, one line per gamma, one panel per list set.

    ``paper``: the reference values (lin2017 rows of ``paper_values``: the authors' code on their own lists);
    each reference kappa of a panel's list set is drawn as a large hollow marker at its (lambda, gamma), in the
    colour of that gamma's line (grey when the grid has no such gamma).
    """
    kappas = paper[paper["statistic"] == "kappa"] if paper is not None else None
    sets = list(dict.fromkeys(table["list_set"]))
    fig, axes = plt.subplots(1, len(sets), figsize=(4.2 * len(sets), 3.6), squeeze=False, sharey=True)
    for ax, name in zip(axes[0], sets):
        rows = table[table["list_set"] == name]
        colours = {}
        for gamma, sub in rows.groupby("gamma"):
            sub = sub.sort_values("lambda")
            (line,) = ax.plot(sub["lambda"], np.log10(sub["kappa"]), marker="o", label=f"gamma = {gamma:g}")
            colours[round(float(gamma), 9)] = line.get_color()
        ref = kappas[kappas["list_set"].astype(str) == str(name)] if kappas is not None else None
        handles, labels = ax.get_legend_handles_labels()
        if ref is not None and len(ref):
            for gamma, sub in ref.groupby(ref["gamma"].astype(float), sort=True):
                sub = sub.sort_values("lambda")
                ax.plot(sub["lambda"].astype(float), np.log10(sub["paper_value"].astype(float)),
                        **{**paper_style(colours.get(round(gamma, 9), "0.35"), line=False), "markersize": 10})
            handle = paper_handle("large hollow: reference", line=False)
            handles, labels = [*handles, handle], [*labels, handle.get_label()]
        ax.set_title(name)
        ax.set_xlabel("lambda (gap weight)")
        ax.set_ylabel("log10 kappa")
        ax.grid(alpha=0.3)
        ax.legend(handles, labels, fontsize=7, loc="upper left")
    fig.suptitle(f"Consensus measure over lambda x gamma: {dataset}")
    fig.tight_layout()
    save_figure(fig, paths)


def plot_aggregators(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """Mean pairwise consensus of each aggregator's output with its inputs (sd bars), best first."""
    summary = (
        table.groupby("aggregator")["pairwise_consensus"].agg(["mean", "std"]).fillna(0.0).sort_values("mean",
                                                                                                       ascending=False)
    )
    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    ax.bar(summary.index, summary["mean"], yerr=summary["std"], capsize=4, color="tab:blue", alpha=0.8)
    ax.set_ylabel("consensus with the inputs")
    ax.set_title(f"Aggregators judged by consensus: {dataset}")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, paths)


def plot_sensitivity(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """Log kappa relative to the unperturbed set against perturbation size, per (lambda, gamma)."""
    kinds = list(dict.fromkeys(table["kind"]))
    fig, axes = plt.subplots(1, len(kinds), figsize=(5.0 * len(kinds), 3.6), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        rows = table[table["kind"] == kind]
        for (lam, gamma), sub in rows.groupby(["lambda", "gamma"], sort=False):
            sub = sub.sort_values("step")
            ax.plot(sub["step"], sub["log_kappa_ratio"], marker="o", label=f"lambda={lam:g}, gamma={gamma:g}")
        ax.set_xlabel("adjacent swaps" if kind == "adjacent_swaps" else "places the top item is moved down")
        ax.set_ylabel("log kappa / log kappa (unperturbed)")
        ax.set_title(kind.replace("_", " "))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, paths)
