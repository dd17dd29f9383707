"""Figures for the ordered-list experiments (PNG and PDF from one matplotlib figure)."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

PDF_METADATA = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}


def _save(fig: plt.Figure, paths: Sequence[str | Path]) -> None:
    for path in paths:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if str(path).endswith(".pdf"):
            fig.savefig(path, metadata=PDF_METADATA)
        else:
            fig.savefig(path, dpi=150, metadata={"Software": None})
    plt.close(fig)


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
    _save(fig, paths)


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
    _save(fig, paths)


def plot_consensus_grid(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """log kappa against lambda, one line per gamma, one panel per list set."""
    import numpy as np

    sets = list(dict.fromkeys(table["list_set"]))
    fig, axes = plt.subplots(1, len(sets), figsize=(4.2 * len(sets), 3.6), squeeze=False, sharey=True)
    for ax, name in zip(axes[0], sets):
        rows = table[table["list_set"] == name]
        for gamma, sub in rows.groupby("gamma"):
            sub = sub.sort_values("lambda")
            ax.plot(sub["lambda"], np.log10(sub["kappa"]), marker="o", label=f"gamma = {gamma:g}")
        ax.set_title(name)
        ax.set_xlabel("lambda (gap weight)")
        ax.set_ylabel("log10 kappa")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"Consensus measure over lambda x gamma: {dataset}")
    fig.tight_layout()
    _save(fig, paths)


def plot_aggregators(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """Mean pairwise consensus of each aggregator's output with its inputs (sd bars), best first."""
    summary = (
        table.groupby("aggregator")["pairwise_consensus"].agg(["mean", "std"]).fillna(0.0).sort_values("mean", ascending=False)
    )
    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    ax.bar(summary.index, summary["mean"], yerr=summary["std"], capsize=4, color="tab:blue", alpha=0.8)
    ax.set_ylabel("consensus with the inputs")
    ax.set_title(f"Aggregators judged by consensus: {dataset}")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    _save(fig, paths)


def plot_sensitivity(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """log kappa relative to the unperturbed set against perturbation size, per (lambda, gamma)."""
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
    _save(fig, paths)


def plot_loglik_by_judge(table: pd.DataFrame, dataset: str, paths: Sequence[str | Path]) -> None:
    """Per-judge log probability of each method minus the uniform baseline, one panel per protocol
    (Wilbur and Kim, Tables 2 and 3, as differences from eq. 11's uniform prediction)."""
    import numpy as np

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
    _save(fig, paths)
