"""The ordered-list section of results/REPRODUCTION.md (Kim, Zhai, Han, ECIR 2010, Tables 1-4)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.io.sources import preflib
from manyjudges.io.tables.orderings import read_orderings
from manyjudges.orderings import simulate
from manyjudges.orderings.experiment import DEFAULT_ED_OVER, DEFAULT_NOISE_ROUNDING
from manyjudges.orderings.readings import NOTE as READINGS_NOTE
from manyjudges.orderings.readings import _ordering_readings
from manyjudges.reporting.formatting import comparison_data, dataset_heading, diff_cell
from manyjudges.reporting.paper_values import paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["PAPER_SOURCES", "report_section"]

_METHOD_ORDER = ["ac_tau", "ac_sp", "wca_tau", "wca_sp", "rba_tau", "rba_sp", "frespa"]
_PAPER = "Kim, Zhai, Han (ECIR 2010)"
#: config sources holding the paper's own data: none (Barzilay et al.'s sentence orderings are not public)
PAPER_SOURCES: tuple[str, ...] = ()
#: data caveats by dataset ``source``, printed only under a dataset of that source
DATA_NOTES = {"simulate": simulate.REPORT_NOTE, "preflib": preflib.REPORT_NOTE}

#: how the report states the noise experiment's readings
NOISE_COUNT_TEXT = {"floor": "floor(r n)", "half_up": "round(r n) (halves up)"}
ED_OVER_TEXT = {"all": "averaged over every ordering of the noisy set, random ones included",
                "judges": "averaged over the n human judges (the random orderings are gold standards only)"}

#: Tables 2-4: (paper table number, swept FreSPA parameters, heading)
SWEEP_TABLES = [
    (2, ["w_len", "w_sup"], "Table 2: FreSPA ED with different wLen and wSup"),
    (3, ["max_len_ratio", "min_len_ratio"],
     "Table 3: FreSPA ED with different maxLen/k (minLen = 2) and minLen/k (maxLen = k)"),
    (4, ["min_sup"], "Table 4: FreSPA ED with different minSup"),
]


def _tied_share(orderings: pd.DataFrame) -> float:
    """Share of (set, judge) orderings that give one rank to two or more items."""
    keys = ["set_id", "judge"]
    tied = orderings.duplicated(keys + ["rank"])
    return float(tied.groupby([orderings[k] for k in keys]).any().mean())


def _dataset_summary(orderings: pd.DataFrame) -> str:
    """'S sets, J judges per set (min-max), K items per set (min-max)'."""
    per_set = orderings.groupby("set_id").agg(judges=("judge", "nunique"), items=("item", "nunique"))
    ties = _tied_share(orderings)
    return (
        f"{len(per_set)} sets; judges per set {per_set.judges.min()}-{per_set.judges.max()} "
        f"(mean {per_set.judges.mean():.1f}); items per set {per_set['items'].min()}-{per_set['items'].max()} "
        f"(mean {per_set['items'].mean():.1f}); orderings with ties: {100 * ties:.0f}%"
    )


def calibration_markdown(orderings: pd.DataFrame, ed: pd.DataFrame, paper: pd.DataFrame,
                         spec: Mapping[str, Any]) -> str:
    """Describe what a simulated panel is calibrated to and what it misses, computed from the run.

    The text gives the judges' mean pairwise Kendall tau and Spearman rho (macro averages over sets)
    and, at noise 0, each paper method's ED minus the paper's (Table 1). Empty without a
    ``target_mean_tau``.
    """
    from manyjudges.core.correlation import kendall_tau_matrix, spearman_rho_matrix
    from manyjudges.io.tables.orderings import orderings_to_rank_matrices

    if spec.get("target_mean_tau") is None:
        return ""
    taus, rhos = [], []
    for _, _, ranks in orderings_to_rank_matrices(orderings).values():
        n = len(ranks)
        if n < 2:
            continue
        off = ~np.eye(n, dtype=bool)
        taus.append(float(np.nanmean(kendall_tau_matrix(ranks)[off])))
        rhos.append(float(np.nanmean(spearman_rho_matrix(ranks)[off])))
    tau, rho = float(np.mean(taus)), float(np.mean(rhos))
    p0 = (paper[(paper["table"] == "1") & np.isclose(paper["noise_ratio"].astype(float), 0)]
          .set_index("method")["paper_value"].astype(float))
    text = (f"Calibration, measured on this run: one Mallows dispersion, set so the judges' mean pairwise Kendall "
            f"tau is {spec['target_mean_tau']:g}; this panel's is {tau:.3f} (it is AC-tau's ED at noise 0, "
            "docs/methods.md section 3.7")
    text += f"; the paper's: {p0['ac_tau']:.3f})" if "ac_tau" in p0 else ")"
    text += (". That one parameter also fixes every other noise-0 value: the judges' mean Spearman rho is "
             f"{rho:.3f}, {rho / tau:.2f} times their tau")
    if {"ac_tau", "ac_sp"} <= set(p0.index):
        text += f" (the paper's AC-sp/AC-tau EDs: {p0['ac_sp'] / p0['ac_tau']:.2f})"
    at0 = ed[np.isclose(ed["noise_ratio"], 0)].set_index("method")["ed_mean"]
    gaps = [(m, float(at0[m]) - float(p0[m])) for m in _METHOD_ORDER if m in at0.index and m in p0.index]
    if gaps:
        text += "; ED at noise 0, ours - paper: " + ", ".join(f"{m} {g:+.3f}" for m, g in gaps)
        above = [m for m, g in gaps if g > 0.02]
        below = [m for m, g in gaps if g < -0.02]
        if above and below:
            text += (f". {', '.join(above)} sit above the paper's and {', '.join(below)} below, so no single "
                     "dispersion matches them all (docs/methods.md, section 7.1, gives the dispersion each would need)")
    return text + ".\n"


def _table1_markdown(ours: pd.DataFrame, paper: pd.DataFrame, paper_method: Mapping[str, str] | None = None) -> str:
    """Table 1 (ED by noise ratio and method) with Max-Min and % degradation rows.

    ``paper_method`` maps a configured method name to the registry name whose paper
    value it is compared with (e.g. frespa_judges -> frespa).
    """
    paper_method = dict(paper_method or {})
    p1 = paper[paper["table"] == "1"]
    methods = [m for m in _METHOD_ORDER if m in set(ours["method"])] + sorted(set(ours["method"]) - set(_METHOD_ORDER))
    ratios = sorted(set(ours["noise_ratio"]))
    head = "| noise ratio | " + " | ".join(methods) + " |\n|---|" + "---|" * len(methods) + "\n"
    lines = []
    ours_grid: dict[str, dict[float, float]] = {m: {} for m in methods}
    paper_grid: dict[str, dict[float, float]] = {m: {} for m in methods}
    for r in ratios:
        cells = []
        for m in methods:
            row = ours[(ours["method"] == m) & np.isclose(ours["noise_ratio"], r)]
            ed = float(row["ed_mean"].iloc[0]) if len(row) else np.nan
            sd = float(row["ed_sd"].iloc[0]) if len(row) else np.nan
            ours_grid[m][r] = ed
            at = (p1["method"] == paper_method.get(m, m)) & np.isclose(p1["noise_ratio"], r)
            pv = p1[at]["paper_value"].astype(float)
            pval = float(pv.iloc[0]) if len(pv) else np.nan
            paper_grid[m][r] = pval
            cells.append(diff_cell(ed, pval, 3, sd=sd))
        lines.append(f"| {r:g} | " + " | ".join(cells) + " |")

    def derived(label: str, fn) -> str:
        cells = [diff_cell(fn(ours_grid[m]), fn(paper_grid[m]), 3) for m in methods]
        return f"| {label} | " + " | ".join(cells) + " |"

    def max_min(grid: dict[float, float]) -> float:
        vals = [v for v in grid.values() if not np.isnan(v)]
        return max(vals) - min(vals) if vals else np.nan

    def degradation(grid: dict[float, float]) -> float:
        if 0 not in grid or not grid:
            return np.nan
        last = grid[max(grid)]
        return 100 * (grid[0] - last) / grid[0] if grid[0] else np.nan

    lines.append(derived("Max-Min", max_min))
    lines.append(derived("% degradation (r=0 to max r)", degradation))
    return head + "\n".join(lines) + "\n"


def _sweep_markdown(ours: pd.DataFrame, paper: pd.DataFrame, table_no: int, parameters: list[str]) -> str:
    """Tables 2-4: ED by parameter value, original (r=0) and noisy (r=0.5), paper beside ours."""
    pt = paper[paper["table"] == str(table_no)]
    ratios = sorted(set(ours["noise_ratio"]))
    out = []
    for param in parameters:
        sub = ours[ours["parameter"] == param]
        if sub.empty:
            continue
        head = f"| {param} | " + " | ".join(f"r = {r:g}: ours ± sd (paper, diff)" for r in ratios) + " |\n"
        head += "|---|" + "---|" * len(ratios) + "\n"
        rows = []
        for value in sorted(set(sub["value"])):
            cells = []
            for r in ratios:
                row = sub[np.isclose(sub["value"], value) & np.isclose(sub["noise_ratio"], r)]
                ed = float(row["ed_mean"].iloc[0]) if len(row) else np.nan
                sd = float(row["ed_sd"].iloc[0]) if len(row) else np.nan
                at = ((pt["parameter"] == param) & np.isclose(pt["value"].astype(float), value)
                      & np.isclose(pt["noise_ratio"], r))
                pv = pt[at]["paper_value"].astype(float)
                pval = float(pv.iloc[0]) if len(pv) else np.nan
                cells.append(diff_cell(ed, pval, 4, sd=sd))
            rows.append(f"| {value:g} | " + " | ".join(cells) + " |")
        out.append(head + "\n".join(rows) + "\n")
    return "\n".join(out)


def _rounded(values: pd.Series) -> pd.Series:
    """Float coordinates rounded for matching ours with the paper's (read from text)."""
    return values.astype(float).round(9)


def _table1_cells(ours: pd.DataFrame, paper: pd.DataFrame, paper_method: Mapping[str, str] | None = None
                 ) -> pd.DataFrame:
    """Return Table 1's cells, one per row of ``ours`` (ed_by_noise.tsv).

    Columns: method, noise_ratio, ours (ED mean) and paper_value (the paper's ED of the method it maps
    to by ``paper_method``, NaN where it has none).
    """
    p1 = paper[paper["table"] == "1"]
    ref = pd.DataFrame({"paper_method": p1["method"].to_numpy(), "r": _rounded(p1["noise_ratio"]).to_numpy(),
                        "paper_value": p1["paper_value"].astype(float).to_numpy()})
    cells = pd.DataFrame({"method": ours["method"].to_numpy(), "noise_ratio": ours["noise_ratio"].to_numpy(),
                          "ours": ours["ed_mean"].astype(float).to_numpy()})
    cells["paper_method"] = cells["method"].map(lambda m: dict(paper_method or {}).get(m, m))
    cells["r"] = _rounded(cells["noise_ratio"])
    out = cells.merge(ref, on=["paper_method", "r"], how="left")
    return out[["method", "noise_ratio", "ours", "paper_value"]]


def _sweep_cells(ours: pd.DataFrame, paper: pd.DataFrame, table_no: int, parameters: list[str]) -> pd.DataFrame:
    """Return Tables 2-4's cells, one per row of ``ours`` (frespa_sweep.tsv) for ``parameters``.

    Columns: parameter, value, noise_ratio, ours (ED mean) and paper_value (NaN where the paper has none).
    """
    pt = paper[paper["table"] == str(table_no)]
    keys = ["parameter", "v", "r"]
    ref = pd.DataFrame({"parameter": pt["parameter"].to_numpy(), "v": _rounded(pt["value"]).to_numpy(),
                        "r": _rounded(pt["noise_ratio"]).to_numpy(),
                        "paper_value": pt["paper_value"].astype(float).to_numpy()})
    sub = ours[ours["parameter"].isin(parameters)]
    cells = pd.DataFrame({"parameter": sub["parameter"].to_numpy(), "value": sub["value"].to_numpy(),
                          "noise_ratio": sub["noise_ratio"].to_numpy(), "ours": sub["ed_mean"].astype(float).to_numpy(),
                          "v": _rounded(sub["value"]).to_numpy(), "r": _rounded(sub["noise_ratio"]).to_numpy()})
    out = cells.merge(ref, on=keys, how="left")
    return out[["parameter", "value", "noise_ratio", "ours", "paper_value"]]


def _orderings_comparisons(
    ed_tables: Mapping[str, str | Path],
    sweep_tables: Mapping[str, str | Path],
    datasets: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, Mapping[str, Any]] | None,
    paper: pd.DataFrame,
) -> pd.DataFrame:
    """Return every cell of Tables 1-4 this section shows, ours beside the paper's (long, :data:`CELL_COLUMNS`).

    Table 1's derived rows (Max-Min, % degradation) are left out.
    """
    paper_method = {name: (entry or {}).get("method", name) for name, entry in dict(methods or {}).items()}
    frames = []
    for name in ed_tables:
        data = comparison_data(datasets.get(name, {}).get("source"), PAPER_SOURCES)
        t1 = _table1_cells(pd.read_csv(ed_tables[name], sep="\t"), paper, paper_method)
        frames.append(t1.assign(paper="kim2010", table="1", dataset=name, data=data,
                                key="noise_ratio=" + t1["noise_ratio"].map("{:g}".format)))
        if name not in sweep_tables:
            continue
        sweep = pd.read_csv(sweep_tables[name], sep="\t")
        for no, params, _ in SWEEP_TABLES:
            cells = _sweep_cells(sweep, paper, no, params)
            if cells.empty:
                continue
            key = (cells["parameter"] + "=" + cells["value"].map("{:g}".format)
                   + ";noise_ratio=" + cells["noise_ratio"].map("{:g}".format))
            frames.append(cells.assign(paper="kim2010", table=str(no), dataset=name, data=data, method="frespa",
                                       key=key))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CELL_COLUMNS]


def _orderings_markdown(
    ed_tables: Mapping[str, str | Path],
    sweep_tables: Mapping[str, str | Path],
    datasets: Mapping[str, Mapping[str, Any]],
    orderings_tables: Mapping[str, str | Path] | None,
    methods: Mapping[str, Mapping[str, Any]] | None,
    paper: pd.DataFrame,
    noise_reading: Mapping[str, str] | None = None,
) -> str:
    """Return the Markdown for every ordered-list dataset.

    Table 1 from ``ed_tables[name]``, Tables 2-4 from ``sweep_tables[name]`` (when present); ``paper``:
    the kim2010 paper values; ``noise_reading``: the run's ``ed_over`` and ``noise_rounding`` (default:
    the library's).
    """
    reading = {"ed_over": DEFAULT_ED_OVER, "noise_rounding": DEFAULT_NOISE_ROUNDING, **(noise_reading or {})}
    parts = [
        f"## {_PAPER}: evaluating an ordered list against many gold orderings\n",
        "Cells read `ours ± sd over noise replicates (paper, ours - paper)`. The paper's values are on its own "
        "data, which is not public; each dataset's note says how far they compare.\n",
    ]
    methods = dict(methods or {})
    paper_method = {name: (entry or {}).get("method", name) for name, entry in methods.items()}
    notes = [
        f"- `{name}`: {entry['description']}"
        + (f" (compared with the paper's `{paper_method[name]}`)" if paper_method[name] != name else "")
        for name, entry in methods.items()
        if entry and entry.get("description")
    ]
    if notes:
        parts.append("Configured methods beyond the paper's seven:\n\n" + "\n".join(notes) + "\n")
    for name in ed_tables:
        spec = datasets.get(name, {})
        parts += dataset_heading(name, spec, DATA_NOTES)
        orderings = (read_orderings(orderings_tables[name]) if orderings_tables and name in orderings_tables
                     else None)
        if orderings is not None:
            parts.append(f"Data used: {_dataset_summary(orderings)}.\n")
        ed = pd.read_csv(ed_tables[name], sep="\t")
        if orderings is not None and spec.get("source") == "simulate":
            parts.append(calibration_markdown(orderings, ed, paper, spec))
        parts.append(f"#### Table 1: ED by method and noise ratio (`results/orderings/{name}/ed_by_noise.tsv`)\n")
        reps = int(ed.loc[ed['noise_ratio'] > 0, 'replicates'].max()) if (ed['noise_ratio'] > 0).any() else 1
        parts.append(f"Noise: {NOISE_COUNT_TEXT[reading['noise_rounding']]} random orderings added to each set's "
                     f"n gold orderings; ED {ED_OVER_TEXT[reading['ed_over']]}; {reps} replicates per r > 0 (the "
                     "paper used one draw). The Readings section compares these choices with the paper.\n")
        parts.append(_table1_markdown(ed, paper, paper_method))
        if name in sweep_tables:
            sweep = pd.read_csv(sweep_tables[name], sep="\t")
            for no, params, title in SWEEP_TABLES:
                text = _sweep_markdown(sweep, paper, no, params)
                if text:
                    parts.append(f"#### {title}\n")
                    parts.append(text)
    return "\n".join(parts)


def report_section(
    ed_tables: Mapping[str, str | Path],
    sweep_tables: Mapping[str, str | Path],
    datasets: Mapping[str, Mapping[str, Any]],
    orderings_tables: Mapping[str, str | Path] | None = None,
    methods: Mapping[str, Mapping[str, Any]] | None = None,
    noise_reading: Mapping[str, str] | None = None,
    reading_tables: Mapping[str, Mapping[str, str | Path]] | None = None,
    reading_variants: Mapping[str, Mapping[str, str]] | None = None,
    sweep_noise_ratios: Sequence[float] = (),
    sweep_reading_tables: Mapping[str, Mapping[str, str | Path]] | None = None,
    sweep_reading_variants: Mapping[str, Mapping[str, str]] | None = None,
    sweep_method: str = "frespa",
) -> ReportSection:
    """Return the ordered-list part of the report, every table keyed by dataset.

    The section (:func:`_orderings_markdown`) and its cells (:func:`_orderings_comparisons`) of Table 1 (``ed_tables``)
    and Tables 2-4 (``sweep_tables``), none without ``ed_tables``; and the readings
    (:func:`manyjudges.orderings.readings._ordering_readings`: ``reading_tables`` {dataset: {variant: path}}
    under ``noise_reading``, the run's, and ``reading_variants``; ``sweep_reading_tables`` under
    ``sweep_reading_variants``; the ``sweep_noise_ratios``; ``noise_reading`` is needed with ``reading_tables``).
    """
    readings = _ordering_readings(ed_tables, reading_tables or {}, datasets, methods, noise_reading or {},
                                 reading_variants or {}, sweep_noise_ratios, sweep_tables, sweep_reading_tables,
                                 sweep_reading_variants, sweep_method)
    if not ed_tables:
        return ReportSection("orderings", "", pd.DataFrame(columns=CELL_COLUMNS), readings, READINGS_NOTE)
    kim = paper_values("kim2010")
    return ReportSection(
        "orderings",
        _orderings_markdown(ed_tables, sweep_tables, datasets, orderings_tables, methods, kim, noise_reading),
        _orderings_comparisons(ed_tables, sweep_tables, datasets, methods, kim),
        readings,
        READINGS_NOTE,
    )
