"""The consensus-measure section of results/REPRODUCTION.md (Lin, Li, Guo, arXiv 1704.08464)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.consensus.experiment import summarise_aggregators
from manyjudges.io.sources import clef_runs, search_results
from manyjudges.reporting.formatting import comparison_data, data_kind
from manyjudges.reporting.paper_values import paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["PAPER_SOURCES", "report_section"]

#: config sources holding the paper's own data: Lin, Li and Guo's Google and Bing lists
PAPER_SOURCES = ("search_results",)

#: data notes by dataset ``source``, printed only under a dataset of that source
DATA_NOTES = {"search_results": search_results.REPORT_NOTE, "clef_runs": clef_runs.REPORT_NOTE}


def _search_markdown(table: pd.DataFrame, dataset: str, ref: pd.DataFrame,
                     spec: Mapping[str, Any]) -> list[str]:
    """Google vs Bing (consensus.tsv): kappa, kappa by length and LCS length beside the reference values."""
    parts = [
        f"### Google vs Bing: `{dataset}` (real data; `results/consensus/{dataset}/consensus.tsv`)\n",
        *([DATA_NOTES[spec["source"]] + "\n"] if spec.get("source") in DATA_NOTES else []),
        "| list set | lambda | gamma | kappa ours (reference, diff) | kappa_l ours (reference) "
        "| LCS length ours (reference) |\n|---|---|---|---|---|---|",
    ]
    for _, row in table.iterrows():
        r = ref[(ref["list_set"] == row["list_set"]) & np.isclose(ref["lambda"], row["lambda"])
                & np.isclose(ref["gamma"], row["gamma"])]
        kap = r[r["statistic"] == "kappa"]["paper_value"]
        lengths = r[r["statistic"] == "kappa_by_length"]["paper_value"]
        lcs = r[r["statistic"] == "lcs_length"]["paper_value"]
        kap_text = f"{row['kappa']:.4f}" + (
            f" ({float(kap.iloc[0]):g}, {row['kappa'] - float(kap.iloc[0]):+.4f})" if len(kap) else "")
        same = ", same" if len(lengths) and str(row["kappa_by_length"]) == lengths.iloc[0] else ", DIFFERENT"
        len_text = str(row["kappa_by_length"]) + (f" ({lengths.iloc[0]}{same})" if len(lengths) else "")
        lcs_text = str(row["lcs_length"]) + (f" ({lcs.iloc[0]})" if len(lcs) else "")
        parts.append(f"| {row['list_set']} | {row['lambda']:g} | {row['gamma']:g} | {kap_text} | {len_text} "
                     f"| {lcs_text} |")
    parts.append("")
    return parts


def _search_cells(table: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """Return the search table's kappa cells, one per row of ``table`` (consensus.tsv).

    Columns: list_set, lambda, gamma, ours (kappa) and paper_value (the authors' code's kappa, NaN where it
    has none).
    """
    kap = ref[ref["statistic"] == "kappa"]
    keys = ["list_set", "lam", "gam"]
    refs = pd.DataFrame({"list_set": kap["list_set"].astype(str).to_numpy(),
                         "lam": kap["lambda"].astype(float).round(9).to_numpy(),
                         "gam": kap["gamma"].astype(float).round(9).to_numpy(),
                         "paper_value": kap["paper_value"].astype(float).to_numpy()})
    cells = pd.DataFrame({"list_set": table["list_set"].astype(str).to_numpy(), "lambda": table["lambda"].to_numpy(),
                          "gamma": table["gamma"].to_numpy(), "ours": table["kappa"].astype(float).to_numpy()})
    cells["lam"], cells["gam"] = cells["lambda"].astype(float).round(9), cells["gamma"].astype(float).round(9)
    return cells.merge(refs, on=keys, how="left")[["list_set", "lambda", "gamma", "ours", "paper_value"]]


def _consensus_comparisons(paths: Sequence[str | Path], datasets: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Return the search tables' kappa cells beside the reference values (long, :data:`CELL_COLUMNS`).

    The other tables (aggregators, sensitivity) have no paper values. LCS lengths and kappa by length are
    not counted.
    """
    ref = paper_values("lin2017")
    frames = []
    for path in map(Path, paths):
        if path.name != "consensus.tsv":
            continue
        dataset = path.parent.name
        cells = _search_cells(pd.read_csv(path, sep="\t", dtype={"kappa_by_length": str}), ref)
        key = ("list_set=" + cells["list_set"] + ";lambda=" + cells["lambda"].map("{:g}".format)
               + ";gamma=" + cells["gamma"].map("{:g}".format))
        data = comparison_data(datasets.get(dataset, {}).get("source"), PAPER_SOURCES)
        frames.append(cells.assign(paper="lin2017", table="search", dataset=dataset, data=data, method="", key=key))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CELL_COLUMNS]


def _aggregators_markdown(table: pd.DataFrame, dataset: str, spec: Mapping[str, Any]) -> list[str]:
    """Rank aggregators judged by consensus with their inputs (aggregators.tsv); ours only."""
    kind = data_kind(spec.get("source"))
    summary = summarise_aggregators(table)
    parts = [
        f"### Rank aggregators judged by consensus: `{dataset}` "
        f"({kind}; `results/consensus/{dataset}/aggregators.tsv`)\n",
        "Each set's inputs are aggregated; the aggregate (cut to the inputs' length) is compared with each input by "
        "log2(1 + kappa({aggregate, input})) / log2(1 + kappa({aggregate})) "
        "(1 = the input holds the aggregate's order). "
        "The paper has no table for this: ours only, best first.\n",
        "| aggregator | consensus with inputs, mean ± sd over sets | mean LCS length of aggregate + all inputs "
        "| sets |\n|---|---|---|---|",
    ]
    for _, row in summary.iterrows():
        parts.append(f"| {row['aggregator']} | {row['pairwise_mean']:.4f} ± {row['pairwise_sd']:.4f} "
                     f"| {row['lcs_mean']:.2f} | {int(row['sets'])} |")
    parts.append("")
    return parts


def _sensitivity_markdown(table: pd.DataFrame) -> list[str]:
    """Log kappa after perturbing one list, relative to the unperturbed set (sensitivity.tsv)."""
    parts = [
        "### Sensitivity to perturbing one list (simulated; `results/consensus/sensitivity/sensitivity.tsv`)\n",
        "One of the otherwise identical lists is perturbed; cells are log kappa relative to the unperturbed set "
        "(mean over replicates for random adjacent swaps).\n",
    ]
    grid = list(dict.fromkeys(zip(table["lambda"], table["gamma"])))
    for kind in dict.fromkeys(table["kind"]):
        sub = table[table["kind"] == kind]
        parts.append(f"{kind.replace('_', ' ')}:\n")
        parts.append("| step | " + " | ".join(f"lambda={lam:g}, gamma={gam:g}" for lam, gam in grid)
                     + " |\n|---|" + "---|" * len(grid))
        for step in sorted(set(sub["step"])):
            cells = []
            for lam, gam in grid:
                at = (sub["step"] == step) & np.isclose(sub["lambda"], lam) & np.isclose(sub["gamma"], gam)
                v = sub[at]["log_kappa_ratio"]
                cells.append(f"{float(v.iloc[0]):.4f}" if len(v) else "n/a")
            parts.append(f"| {step} | " + " | ".join(cells) + " |")
        parts.append("")
    return parts


def _consensus_markdown(paths: Sequence[str | Path], datasets: Mapping[str, Mapping[str, Any]]) -> str:
    """Render the consensus-measure section: reference numbers beside ours, aggregators, sensitivity.

    ``paths``: consensus.tsv, aggregators.tsv and sensitivity.tsv tables under results/consensus/<dataset>/,
    each rendered by its file name, in the given order.
    """
    ref = paper_values("lin2017")
    parts = [
        "## Lin, Li, Guo (arXiv 1704.08464): consensus measure of a set of rankings\n",
        "The arXiv text's formulas are garbled; the measure follows docs/methods.md (consensus section) and the "
        "authors' released code. Reference values are that code's output on the authors' own data (first ranking as "
        "reference).\n",
    ]
    for path in paths:
        path = Path(path)
        table = pd.read_csv(path, sep="\t", dtype={"kappa_by_length": str})
        dataset = path.parent.name
        if path.name == "consensus.tsv":
            parts += _search_markdown(table, dataset, ref, datasets.get(dataset, {}))
        elif path.name == "aggregators.tsv":
            parts += _aggregators_markdown(table, dataset, datasets.get(dataset, {}))
        elif path.name == "sensitivity.tsv":
            parts += _sensitivity_markdown(table)
    return "\n".join(parts) + "\n"


def report_section(tables: Sequence[str | Path], datasets: Mapping[str, Mapping[str, Any]]) -> ReportSection:
    """Return the consensus part of the report: the section and its cells of ``tables``.

    The section is :func:`_consensus_markdown`, the cells :func:`_consensus_comparisons`, of ``tables``
    (consensus.tsv, aggregators.tsv, sensitivity.tsv under results/consensus/<dataset>/, in the order
    shown), none without tables; ``datasets``: the specs of their datasets. The paper leaves nothing to
    read: no readings.
    """
    if not tables:
        return ReportSection("consensus", "", pd.DataFrame(columns=CELL_COLUMNS))
    return ReportSection("consensus", _consensus_markdown(tables, datasets), _consensus_comparisons(tables, datasets))
