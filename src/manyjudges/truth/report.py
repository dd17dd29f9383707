"""The truth-inference section of REPRODUCTION.md.

Each dataset's summary, every method's accuracy beside the published accuracies on the same benchmark set, and
the best of ours against EBCC's.

Published values (``resources/paper_values.tsv``): EBCC, IBCC and BWA from Li, Rubinstein and Cohn's
released notebooks (paper ``li2019``), and crowd-kit's JOSS table (``ustalov2024``); keyed by our dataset
name (``truth_product`` ...) and our method name where we have the same method.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.reporting.formatting import as_float, comparison_data, data_kind, fmt, signed
from manyjudges.reporting.paper_values import paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["published_accuracy", "report_section"]

#: the papers whose accuracies are compared, and how the report names them
_PAPERS = {"li2019": "Li, Rubinstein, Cohn (ICML 2019), released notebooks",
          "ustalov2024": "Ustalov, Pavlichenko, Tseitlin (JOSS 2024), crowd-kit"}
#: the method the published best is (the strongest published method on these sets)
REFERENCE = ("li2019", "ebcc")
#: config sources that are the very data the published accuracies were computed on
PAPER_SOURCES = ("truth_benchmark",)


def published_accuracy(paper: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """``paper, method, accuracy`` of every published accuracy on ``dataset`` (empty when none)."""
    if "dataset" not in paper:
        return pd.DataFrame(columns=["paper", "method", "accuracy"])
    rows = paper[paper["paper"].isin(list(_PAPERS)) & (paper["table"] == "accuracy") & (paper["dataset"] == dataset)]
    return pd.DataFrame({"paper": rows["paper"].to_numpy(), "method": rows["method"].to_numpy(),
                         "accuracy": rows["paper_value"].astype(float).to_numpy()})


def _method(methods: Mapping[str, Any], name: str) -> str:
    return ((methods.get(name) or {}).get("method")) or name


def _truth_comparisons(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                      methods: Mapping[str, Any], paper: pd.DataFrame) -> pd.DataFrame:
    """Every (dataset, method) accuracy with a published value for the same method (long, :data:`CELL_COLUMNS`)."""
    frames = []
    for name, files in results.items():
        acc = pd.read_csv(files["accuracy"], sep="\t")
        published = published_accuracy(paper, name)
        for source_paper in _PAPERS:
            ref = published[published["paper"] == source_paper].set_index("method")["accuracy"]
            rows = [(row.method, as_float(row.accuracy), float(ref[_method(methods, str(row.method))]))
                    for row in acc.itertuples(index=False) if _method(methods, str(row.method)) in ref.index]
            if rows:
                frame = pd.DataFrame(rows, columns=["method", "ours", "paper_value"])
                frames.append(frame.assign(paper=source_paper, table="accuracy", dataset=name,
                                           data=comparison_data(datasets.get(name, {}).get("source"), PAPER_SOURCES),
                                           key="method=" + frame["method"]))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CELL_COLUMNS]


def _summary_line(summary: pd.DataFrame) -> str:
    s = dict(zip(summary["statistic"], summary["value"]))
    text = (f"{int(s['labels']):,} labels of {int(s['items']):,} items by {int(s['judges']):,} judges, "
            f"{int(s['classes'])} classes; labels per item {float(s['labels_per_item_mean']):.2f} on average "
            f"({int(s['labels_per_item_min'])}-{int(s['labels_per_item_max'])}); "
            f"truth for {int(s['items_with_truth']):,} items; Krippendorff's alpha (nominal) "
            f"{float(s['alpha_nominal']):.4f}")
    if "alpha_ordinal" in s:
        text += f", ordinal {float(s['alpha_ordinal']):.4f}"
    return text + "."


def _truth_markdown(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any], paper: pd.DataFrame) -> str:
    """Render the section: per dataset its summary and a table method | ours | seconds | published.

    Then, over the datasets EBCC was published on, the best of ours against EBCC's published accuracy.
    """
    parts = ["## Truth inference: one class per item from crowd labels\n",
             "Accuracy = the share of the items with a truth whose inferred class equals it. Published accuracies: "
             + "; ".join(f"`{k}` = {v}" for k, v in _PAPERS.items())
             + " (`docs/methods.md`, truth inference). Seconds are one fit, measured in this run.\n"]
    best_rows = []
    for name, files in results.items():
        spec = datasets.get(name, {})
        acc = pd.read_csv(files["accuracy"], sep="\t")
        summary = pd.read_csv(files["summary"], sep="\t")
        published = published_accuracy(paper, name)
        parts.append(f"### Dataset `{name}` ({data_kind(spec.get('source'))})\n")
        if spec.get("description"):
            parts.append(f"{spec['description']}\n")
        parts.append(_summary_line(summary) + "\n")
        lines = ["| method | accuracy | published (same method) | ours - published | time |", "|---|---|---|---|---|"]
        for row in acc.itertuples(index=False):
            same = published[published["method"] == _method(methods, str(row.method))]
            pub = "; ".join(f"{fmt(v, 4)} (`{p}`)" for p, v in zip(same["paper"], same["accuracy"]))
            diff = "; ".join(signed(as_float(row.accuracy) - v, 4) for v in same["accuracy"])
            seconds = f"{as_float(row.seconds):.3f} s"
            lines.append(f"| {row.method} | {fmt(as_float(row.accuracy), 4)} | {pub} | {diff} | {seconds} |")
        ours = set(_method(methods, m) for m in acc["method"])
        for row in published[~published["method"].isin(ours)].itertuples(index=False):
            lines.append(f"| {row.method} (published only) |  | {fmt(row.accuracy, 4)} (`{row.paper}`) |  |  |")
        parts.append("\n".join(lines) + "\n")
        ref = published[(published["paper"] == REFERENCE[0]) & (published["method"] == REFERENCE[1])]
        if not ref.empty and acc["accuracy"].notna().any():
            top = acc.iloc[acc["accuracy"].astype(float).argmax()]  # acc's index is its rows' positions
            best_rows.append((name, str(top["method"]), float(top["accuracy"]), float(ref["accuracy"].iloc[0])))
    if best_rows:
        lines = ["| dataset | our best method | its accuracy | EBCC published | ours - EBCC |", "|---|---|---|---|---|"]
        lines += [f"| {d} | {m} | {fmt(a, 4)} | {fmt(e, 4)} | {signed(a - e, 4)} |" for d, m, a, e in best_rows]
        mean_ours, mean_ebcc = np.mean([r[2] for r in best_rows]), np.mean([r[3] for r in best_rows])
        lines.append(f"| mean over {len(best_rows)} | | {fmt(mean_ours, 4)} | {fmt(mean_ebcc, 4)} | "
                     f"{signed(mean_ours - mean_ebcc, 4)} |")
        parts.append("### The best of ours against EBCC's published accuracy\n")
        parts.append("Per dataset, the most accurate of the configured methods (a choice made on the same truth it "
                     "is scored on, so it flatters the row), against EBCC's published accuracy (EBCC's own restarts "
                     "are chosen by their evidence bound, not by the truth); the last row is the mean.\n")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def report_section(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any] | None) -> ReportSection:
    """Return the truth-inference part of the report: the section and its cells of ``results``.

    The section is :func:`_truth_markdown`, the cells :func:`_truth_comparisons`, of ``results``
    ({dataset: {"accuracy": path, "summary": path}}), none without results. No readings.
    """
    if not results:
        return ReportSection("truth", "", pd.DataFrame(columns=CELL_COLUMNS))
    published = paper_values()
    return ReportSection("truth", _truth_markdown(results, datasets or {}, methods or {}, published),
                         _truth_comparisons(results, datasets or {}, methods or {}, published))
