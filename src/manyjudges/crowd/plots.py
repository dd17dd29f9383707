"""Crowd figures (Niu et al., WSDM 2015).

Table 2 as bars, Figure 1 (with vs without annotator skill),
Figure 2 (estimated vs true skill distributions), Figures 3-4 (metrics vs added spammers); Table 2 with
the paper's values beside ours when given.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.reporting.figures import paper_handle, paper_style, plt, save_figure

FIGURE_METRICS = ("P@10", "MAP", "NDCG@10", "RBP")


def plot_table2(table: pd.DataFrame, dataset: str, png: str | Path, pdf: str | Path,
                paper: pd.DataFrame | None = None) -> None:
    """Mean P@10, MAP, NDCG@10, RBP per method (ranking_metrics.tsv), grouped bars.

    ``paper``: the paper's values for the dataset this one stands for (niu2015 rows of ``paper_values``,
    see :func:`manyjudges.crowd.report.figure_paper_values`); Table 2's value of each method and metric is
    drawn as a hollow black-edged marker on its bar (the bar's own colour would hide it inside the bar).
    """
    methods = list(dict.fromkeys(table["method"]))
    t2 = paper[paper["table"].astype(str) == "2"] if paper is not None else None
    drawn = False
    fig, ax = plt.subplots(figsize=(max(6.4, 0.6 * len(methods) + 3), 4.0))
    width = 0.8 / len(FIGURE_METRICS)
    x = np.arange(len(methods))
    for k, metric in enumerate(FIGURE_METRICS):
        rows = table[table["metric"] == metric].set_index("method")["value"]
        ax.bar(x + k * width, [rows.get(m, np.nan) for m in methods], width, label=metric)
        if t2 is None:
            continue
        ref = t2[t2["metric"] == metric].drop_duplicates("method").set_index("method")["paper_value"].astype(float)
        y = np.array([ref.get(m, np.nan) for m in methods], dtype=float)
        if not np.isnan(y).all():
            ax.plot(x + k * width, y, **{**paper_style("black", line=False), "markersize": 5})
            drawn = True
    ax.set_xticks(x + 0.4 - width / 2, methods, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("mean over topics")
    ax.set_title(f"Ranking quality by method: {dataset}")
    ax.grid(axis="y", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if drawn:
        handle = paper_handle("hollow: paper", line=False)
        handles, labels = [*handles, handle], [*labels, handle.get_label()]
    ax.legend(handles, labels, fontsize=8, ncol=len(handles), loc="lower center", bbox_to_anchor=(0.5, 1.08))
    fig.tight_layout()
    save_figure(fig, [png, pdf])


def plot_skill_ablation(by_topic: pd.DataFrame, pairs: Sequence[Sequence[str]], dataset: str,
                          png: str | Path, pdf: str | Path) -> None:
    """Figure 1: each [with skill, without skill] pair of methods, P@10 / MAP / NDCG@10 / RBP."""
    means = by_topic.groupby(["method", "metric"])["value"].mean()
    pairs = [p for p in pairs if p[0] in by_topic["method"].values and p[1] in by_topic["method"].values]
    fig, axes = plt.subplots(1, len(FIGURE_METRICS), figsize=(3.2 * len(FIGURE_METRICS), 3.6), squeeze=False)
    for ax, metric in zip(axes[0], FIGURE_METRICS):
        x = np.arange(len(pairs))
        ax.bar(x - 0.2, [means.get((a, metric), np.nan) for a, _ in pairs], 0.4, label="with skill")
        ax.bar(x + 0.2, [means.get((b, metric), np.nan) for _, b in pairs], 0.4, label="skill fixed (-eq)")
        ax.set_xticks(x, [a for a, _ in pairs], rotation=45, ha="right", fontsize=7)
        ax.set_title(metric)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"With vs without annotator skill: {dataset}")
    fig.tight_layout()
    save_figure(fig, [png, pdf])


def plot_skill_distributions(skill: pd.DataFrame, kl: pd.DataFrame, bins: int, dataset: str,
                               png: str | Path, pdf: str | Path, max_topics: int = 9) -> None:
    """Figure 2: per topic, histogram of eq (18) accuracy vs each method's estimated skill."""
    topics = list(dict.fromkeys(skill["topic"]))[:max_topics] if not skill.empty else []
    n = max(len(topics), 1)
    cols = min(3, n)
    rows_n = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows_n, cols, figsize=(3.6 * cols, 2.9 * rows_n), squeeze=False)
    edges = np.linspace(0, 1, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    mean_kl = kl.groupby("method")["kl"].mean() if not kl.empty else pd.Series(dtype=float)
    for ax, topic in zip(axes.ravel(), topics):
        rows = skill[skill["topic"] == topic]
        truth = rows.drop_duplicates("judge")["accuracy"].dropna().clip(0, 1)
        ax.bar(centres, np.histogram(truth, edges)[0] / max(len(truth), 1), width=1 / bins, color="0.2",
               alpha=0.5, label="accuracy vs truth (eq 18)")
        for method, sub in rows.groupby("method", sort=False):
            est = sub["skill"].dropna().clip(0, 1)
            label = f"{method} (mean KL {mean_kl.get(method, np.nan):.2f})"
            ax.plot(centres, np.histogram(est, edges)[0] / max(len(est), 1), marker=".", label=label)
        ax.set_title(f"topic {topic}", fontsize=8)
        ax.set_xlabel("skill")
    for ax in axes.ravel()[len(topics):]:
        ax.axis("off")
    if topics:
        axes.ravel()[0].legend(fontsize=6)
    else:
        axes[0][0].text(0.5, 0.5, "no method estimates judge skill", ha="center")
    fig.suptitle(f"Annotator skill distributions: {dataset}")
    fig.tight_layout()
    save_figure(fig, [png, pdf])


def plot_robustness(summary: pd.DataFrame, cv: pd.DataFrame, spammer: str, dataset: str,
                    png: str | Path, pdf: str | Path) -> None:
    """Figures 3-4: metric vs ratio of added spammers, a line per method (CV in the legend)."""
    rows = summary[summary["spammer"] == spammer]
    cvs = cv[cv["spammer"] == spammer].set_index(["method", "metric"])["cv"]
    fig, axes = plt.subplots(1, len(FIGURE_METRICS), figsize=(3.6 * len(FIGURE_METRICS), 3.8), squeeze=False)
    for ax, metric in zip(axes[0], FIGURE_METRICS):
        for method, sub in rows[rows["metric"] == metric].groupby("method", sort=False):
            sub = sub.sort_values("ratio")
            label = f"{method} (CV {cvs.get((method, metric), np.nan):.3f})"
            ax.plot(sub["ratio"], sub["mean"], marker=".", label=label)
        ax.set_title(metric)
        ax.set_xlabel(f"ratio of added {spammer} spammers")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=5)
    fig.suptitle(f"Robustness to {spammer} spammers: {dataset}")
    fig.tight_layout()
    save_figure(fig, [png, pdf])
