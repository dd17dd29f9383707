"""The graded-judgment section of results/REPRODUCTION.md (Wilbur and Kim 2011, Tables 1-5)."""
from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.graded import simulate
from manyjudges.reporting.formatting import as_int, comparison_data, data_kind, fmt
from manyjudges.reporting.paper_values import key_value, paper_lookup, paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["PAPER_SOURCES", "figure_paper_values", "report_section"]

_PAPER_METHODS = ["m1", "m2", "m3", "m23", "m4", "m5"]
SINGLE = {"m1": "tau", "m4": "sigma", "m5": "lambda"}
#: more judges than this: per-judge tables are summarised (best-method counts), not listed
MAX_LISTED_JUDGES = 30
#: key columns of the paper values (judge numbers as ints, blank coordinates as None)
PAPER_KEY = ("protocol", "judge", "method", "method_a", "method_b", "statistic")
#: config sources holding the paper's own data: none (the MEDLINE panel is not public)
PAPER_SOURCES: tuple[str, ...] = ()
#: paper table of each protocol: (log probabilities, pairwise comparisons)
PROTOCOL_TABLES = {"cross_induction": ("2", "4"), "single_parameter": ("3", "5")}
#: data caveats by dataset ``source``, printed only under a dataset of that source
DATA_NOTES = {"simulate": simulate.REPORT_NOTE}


def _paper_judge(judge: Any) -> Any:
    """Return the paper's judge number of one of ours ('judge07' -> 7); other names unchanged."""
    m = re.fullmatch(r"judge0*(\d+)", str(judge))
    return int(m.group(1)) if m else judge


def _loglik_markdown(loglik: pd.DataFrame, protocol: str, paper: dict, simulated: bool) -> str:
    rows = loglik[loglik["protocol"] == protocol]
    if rows.empty:
        return ""
    wide = rows.pivot(index="judge", columns="method", values="loglik")
    methods = [m for m in wide.columns if m != "uniform"] + ["uniform"]
    ordered = [m for m in _PAPER_METHODS if m in methods] + [m for m in methods if m not in _PAPER_METHODS]
    wide = wide[ordered]
    n_items = rows.drop_duplicates("judge").set_index("judge")["n_items"]
    scored = [m for m in ordered if m != "uniform"]
    best = wide[scored].idxmax(axis=1)
    lines = []
    if len(wide) <= MAX_LISTED_JUDGES:
        head = "| judge | labels | " + " | ".join(ordered) + " |"
        lines += [head, "|" + "---|" * (len(ordered) + 2)]
        for judge, r in wide.iterrows():
            cells = []
            for m in ordered:
                cell = fmt(r[m], 0, missing="") + ("\\*" if m == best.at[judge] else "")
                p = paper.get((protocol, _paper_judge(judge), m, None, None, "loglik")) if simulated else None
                if p is not None:
                    cell += f" ({fmt(p, 0, missing='')})"
                cells.append(cell)
            lines.append(f"| {judge} | {as_int(n_items.at[judge])} | " + " | ".join(cells) + " |")
    ave = wide.mean()
    cells = []
    for m in ordered:
        cell = fmt(ave[m], 0, missing="")
        p = paper.get((protocol, "Ave", m, None, None, "loglik")) if simulated else None
        if p is not None:
            cell += f" ({fmt(p, 0, missing='')})"
        cells.append(cell)
    if len(wide) > MAX_LISTED_JUDGES:
        lines += ["| | " + " | ".join(ordered) + " |", "|" + "---|" * (len(ordered) + 1)]
        lines.append("| mean over judges | " + " | ".join(cells) + " |")
        counts = best.value_counts()
        lines.append("| judges best | "
                     + " | ".join(str(int(counts.get(m, 0))) if m != "uniform" else "" for m in ordered) + " |")
        above = (wide[scored].sub(wide["uniform"], axis=0) > 0).sum()
        lines.append("| judges above uniform | "
                     + " | ".join(str(int(above.get(m, 0))) if m != "uniform" else "" for m in ordered) + " |")
    else:
        lines.append("| Ave | | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def paper_correlations(loglik: pd.DataFrame, protocol: str, paper: dict) -> pd.DataFrame:
    """Correlate our per-judge S(k) with the paper's under ``protocol``, per method with per-judge paper values.

    Each row: the judges compared and the Pearson r and Kendall tau-b (scipy.stats) between our S(k) and
    the paper's over those judges.
    """
    from scipy import stats

    rows = loglik[(loglik["protocol"] == protocol) & (loglik["method"] != "uniform")]
    out = []
    methods = list(dict.fromkeys(rows["method"]))
    for m in [m for m in _PAPER_METHODS if m in methods] + [m for m in methods if m not in _PAPER_METHODS]:
        pairs = [(float(r["loglik"]), paper[key]) for _, r in rows[rows["method"] == m].iterrows()
                 if (key := (protocol, _paper_judge(r["judge"]), m, None, None, "loglik")) in paper
                 and isinstance(key[1], int)]
        if len(pairs) < 3:
            continue
        ours, theirs = np.array(pairs).T
        constant = np.ptp(ours) == 0 or np.ptp(theirs) == 0  # no correlation defined
        out.append({"method": m, "judges": len(pairs),
                    "pearson_r": np.nan if constant else float(stats.pearsonr(ours, theirs)[0]),
                    "kendall_tau_b": np.nan if constant else float(stats.kendalltau(ours, theirs, variant="b")[0])})
    return pd.DataFrame(out, columns=["method", "judges", "pearson_r", "kendall_tau_b"])


def _correlation_markdown(loglik: pd.DataFrame, protocol: str, paper: dict, calibrated_m1: bool) -> str:
    table = paper_correlations(loglik, protocol, paper)
    if table.empty:
        return ""
    lines = ["Per-judge agreement with the paper: correlation over judges between our S(k) and the paper's "
             "(Pearson r, Kendall tau-b)"
             + ("; M1's cross induction is calibrated to the paper's values, so its correlation is near 1 by "
                "construction" if calibrated_m1 else "") + ".\n",
             "| method | judges | Pearson r | Kendall tau-b |", "|---|---|---|---|"]
    for _, r in table.iterrows():
        lines.append(f"| {r['method']} | {int(r['judges'])} | {fmt(r['pearson_r'], 3)} | "
                     f"{fmt(r['kendall_tau_b'], 3)} |")
    return "\n".join(lines) + "\n"


def _calibration_text(spec: Mapping[str, Any], loglik: pd.DataFrame) -> str:
    """Describe how the simulated panel was calibrated.

    When it was calibrated per judge, the text gives the largest per-judge gap reached (computed from
    the M1 cross-induction rows).
    """
    by_judge = spec.get("target_m1_by_judge")
    if by_judge is None:
        target = spec.get("target_m1_ave", -7433.0)
        return (f"noise calibrated so M1's cross-induction average is {target:g} per 5000 labels "
                "(the paper's M1: -7433)" if target is not None
                else f"noise scale {spec.get('noise_scale', 1.0):g} as configured (not calibrated)")
    targets = simulate.m1_targets(by_judge, int(spec.get("n_judges", 13)))
    source = ("the paper's Table 2 M1 value for that judge" if isinstance(by_judge, str)
              else "its configured target")
    tolerance = spec.get("calibration_tolerance", simulate.CALIBRATION_TOLERANCE)
    text = (f"each judge's noise (and, where needed, its thresholds) calibrated so that its M1 cross-induction "
            f"log probability equals {source} (per {simulate.LABELS_PER_TARGET} labels; tolerance "
            f"{tolerance:g} x |target|)")
    m1 = loglik[(loglik["method"] == "m1") & (loglik["protocol"] == "cross_induction")]
    if m1.empty:
        return text + "; M1 is not configured, so the values reached are not shown"
    judge = m1["judge"].map(_paper_judge).to_numpy()
    scaled = targets[judge.astype(int)] * m1["n_items"].to_numpy() / simulate.LABELS_PER_TARGET
    gap = np.abs(m1["loglik"].to_numpy() - scaled)
    worst = int(np.argmax(gap / np.abs(scaled)))
    return (text + f"; reached within {gap.max():.2f} nats for every judge (largest relative gap "
            f"{(gap / np.abs(scaled)).max():.2g}, {m1['judge'].iloc[worst]})")


def _at_bound(row: pd.DataFrame) -> str:
    """' (at a bound of its search for k of n judges)' from parameters.tsv's judges_at_bound, if any."""
    k = int(row["judges_at_bound"].iloc[0]) if "judges_at_bound" in row else 0
    return f" (at a bound of its search for {k} of {int(row['judges'].iloc[0])} judges)" if k else ""


def _p(value: float) -> str:
    """Format a p-value; 0 means it underflowed double precision."""
    return "< 1e-300" if value == 0 else f"{value:.3g}"


def _pairwise_markdown(pairwise: pd.DataFrame, protocol: str, paper: dict, simulated: bool) -> str:
    rows = pairwise[pairwise["protocol"] == protocol]
    if rows.empty:
        return ""
    lines = ["| judge | A vs B | A better | B better | ties | Wilcoxon p |", "|---|---|---|---|---|---|"]
    listed = rows["judge"].nunique() <= MAX_LISTED_JUDGES
    for (a, b), g in rows.groupby(["method_a", "method_b"], sort=False):
        def cell(value: int, stat: str, judge: Any, star: bool, a: Hashable = a, b: Hashable = b) -> str:
            text = f"{int(value)}" + ("\\*" if star else "")
            p = paper.get((protocol, judge, None, a, b, stat)) if simulated else None
            return text + (f" ({int(p)})" if p is not None else "")

        if listed:
            for _, r in g.iterrows():
                sig = r["p_value"] < 0.05
                j = _paper_judge(r["judge"])
                lines.append(f"| {r['judge']} | {a} vs {b} | "
                             f"{cell(r['a_better'], 'a_better', j, sig and r['a_better'] > r['b_better'])} | "
                             f"{cell(r['b_better'], 'b_better', j, sig and r['b_better'] > r['a_better'])} | "
                             f"{cell(r['ties'], 'ties', j, False)} | {_p(r['p_value'])} |")
        tot = g[["a_better", "b_better", "ties"]].sum()
        sig_a = int(((g["p_value"] < 0.05) & (g["a_better"] > g["b_better"])).sum())
        sig_b = int(((g["p_value"] < 0.05) & (g["b_better"] > g["a_better"])).sum())
        lines.append(f"| Total | {a} vs {b} | {cell(tot['a_better'], 'a_better', 'Total', False)} | "
                     f"{cell(tot['b_better'], 'b_better', 'Total', False)} | "
                     f"{cell(tot['ties'], 'ties', 'Total', False)} | "
                     f"A significantly better for {sig_a} judges, B for {sig_b} |")
    return "\n".join(lines) + "\n"


def _loglik_cells(loglik: pd.DataFrame, protocol: str, paper: Mapping[tuple, float]) -> pd.DataFrame:
    """Return Tables 2/3's per-judge cells of one protocol (loglik_by_judge.tsv rows).

    Columns: judge, method, ours (log probability) and paper_value (``paper``: a :func:`paper_lookup` of the
    table by :data:`PAPER_KEY`; NaN where it has none). The Ave row is derived, so left out.
    """
    rows = loglik[loglik["protocol"] == protocol]
    values = [paper.get((protocol, _paper_judge(j), m, None, None, "loglik"), float("nan"))
              for j, m in zip(rows["judge"], rows["method"])]
    return pd.DataFrame({"judge": rows["judge"].to_numpy(), "method": rows["method"].to_numpy(),
                         "ours": rows["loglik"].astype(float).to_numpy(), "paper_value": values})


def _pairwise_cells(pairwise: pd.DataFrame, protocol: str, paper: Mapping[tuple, float]) -> pd.DataFrame:
    """Return Tables 4/5's per-judge 'A better' counts of one protocol (pairwise_tests.tsv rows).

    Columns: judge, pair ('A vs B'), ours and paper_value (NaN where the paper has none). 'B better' and ties
    are left out: with 'A better' they sum to the judge's labels, so their differences would cancel; the Total
    row is derived.
    """
    rows = pairwise[pairwise["protocol"] == protocol]
    values = [paper.get((protocol, _paper_judge(j), None, a, b, "a_better"), float("nan"))
              for j, a, b in zip(rows["judge"], rows["method_a"], rows["method_b"])]
    return pd.DataFrame({"judge": rows["judge"].to_numpy(), "pair": (rows["method_a"] + " vs " + rows["method_b"])
                         .to_numpy(), "ours": rows["a_better"].astype(float).to_numpy(), "paper_value": values})


def _graded_comparisons(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                       paper: pd.DataFrame) -> pd.DataFrame:
    """Return every per-judge cell of Tables 2-5 this section shows (long, :data:`CELL_COLUMNS`).

    Paper values only beside simulated panels, as in the tables. Table 1 (three different parameters, lambda on
    another scale) is not counted; Tables 4/5 count their 'A better' cells, with no method column (compared cell
    by cell).
    """
    frames = []
    for name, paths in results.items():
        source = datasets.get(name, {}).get("source")
        data = comparison_data(source, PAPER_SOURCES)
        luts = {t: paper_lookup(paper, t, PAPER_KEY, key=key_value) if source == "simulate" else {}
                for t in ("2", "3", "4", "5")}
        loglik = pd.read_csv(paths["loglik"], sep="\t", dtype={"judge": str})
        pairwise = pd.read_csv(paths["pairwise"], sep="\t", dtype={"judge": str})
        for protocol, (table, _) in PROTOCOL_TABLES.items():
            cells = _loglik_cells(loglik, protocol, luts[table])
            if not cells.empty:
                frames.append(cells.assign(paper="wilbur2011", table=table, dataset=name, data=data,
                                           key="judge=" + cells["judge"]))
        for protocol, (_, table) in PROTOCOL_TABLES.items():
            cells = _pairwise_cells(pairwise, protocol, luts[table])
            if not cells.empty:
                frames.append(cells.assign(paper="wilbur2011", table=table, dataset=name, data=data, method="",
                                           key="judge=" + cells["judge"] + ";" + cells["pair"] + ";a_better"))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CELL_COLUMNS]


def figure_paper_values(spec: Mapping[str, Any], paper: pd.DataFrame) -> pd.DataFrame | None:
    """Return the paper values a dataset's figure shows beside ours.

    ``paper`` for a simulated panel (which stands in for the paper's), None for any other, as in the
    report's tables.
    """
    return paper if spec.get("source") == "simulate" else None


def _graded_markdown(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                    paper: pd.DataFrame, methods: Mapping[str, Any] | None = None) -> str:
    """Markdown for every graded dataset: ``results[name]`` has paths loglik, pairwise, parameters, grades."""
    lut = {t: paper_lookup(paper, t, PAPER_KEY, key=key_value) for t in ("1", "2", "3", "4", "5")}
    parts = [
        "## Wilbur and Kim 2011: predicting an unseen judge's graded labels\n",
        "Paper values appear only beside simulated panels, which stand in for the paper's (each dataset's note "
        "says how far they compare); other panels have no paper values. "
        "Log probabilities are natural logs summed over a held-out judge's labels; cells read `ours (paper)`; "
        "\\* marks the best method in a row (Tables 2, 3) or the side a Wilcoxon test favours at p < 0.05 "
        "(Tables 4, 5).\n",
    ]
    notes = _method_notes(methods or {})
    if notes:
        parts.append("Configured methods (rows beyond the paper's six, and non-default settings):\n\n"
                     + "\n".join(notes) + "\n")
    for name, paths in results.items():
        parts.extend(_dataset_markdown(name, paths, datasets.get(name, {}), lut))
    return "\n".join(parts)


def _method_notes(methods: Mapping[str, Any]) -> list[str]:
    """One line per configured method with a description or settings: ``- `name`: text (settings: ...)``."""
    notes = []
    for name, entry in methods.items():
        entry = entry or {}
        text = entry.get("description", "")
        if entry.get("params"):
            settings = ", ".join(f"{k} = {v}" for k, v in entry["params"].items())
            text = f"{text} (settings: {settings})" if text else f"settings: {settings}"
        if text:
            notes.append(f"- `{name}`: {text}")
    return notes


def _dataset_markdown(name: str, paths: Mapping[str, str | Path], spec: Mapping[str, Any],
                      lut: Mapping[str, Any]) -> list[str]:
    """Return the parts of one dataset's section: its heading and notes, the data used, Tables 1 to 5."""
    simulated = spec.get("source") == "simulate"
    parts = [f"### Dataset `{name}` ({data_kind(spec.get('source'))})\n"]
    if spec.get("description"):
        parts.append(f"{spec['description']}.\n")
    if spec.get("source") in DATA_NOTES:
        parts.append(DATA_NOTES[spec["source"]] + "\n")
    loglik = pd.read_csv(paths["loglik"], sep="\t", dtype={"judge": str})
    if simulated:
        shape = (f"{spec.get('n_queries', 100)} queries x {spec.get('docs_per_query', 50)} documents, "
                 f"{spec.get('n_judges', 13)} judges, labels 0-{spec.get('n_labels', 5) - 1}")
        parts.append(f"Simulated: {shape}; {_calibration_text(spec, loglik)}.\n")
    grades = pd.read_csv(paths["grades"], sep="\t", usecols=["item", "judge"], dtype=str)
    held = loglik.drop_duplicates("judge")
    parts.append(
        f"Data used: {len(grades)} labels, {grades['item'].nunique()} items, {grades['judge'].nunique()} judges; "
        f"{len(held)} judges held out and scored (at least {spec.get('min_labels_per_judge', 1)} label(s) each) "
        f"on {int(held['n_items'].sum())} labels in all"
        + (f"; test judges held out in {spec['outer_folds']} groups" if spec.get("outer_folds") else "")
        + (f"; inner folds for refitting methods: {spec['inner_folds']} judge groups"
           if spec.get("inner_folds") else "")
        + ".\n")
    parts.append("#### Table 1: optimal single parameters\n")
    parts.append(_single_parameter_table(pd.read_csv(paths["parameters"], sep="\t"), lut["1"], simulated))
    parts.append("Our penalty is lambda/2 ||W||^2 on the mean log-likelihood per instance; the paper's scaling "
                 "of lambda is not stated, so lambda values are comparable only in order of magnitude.\n")
    parts.append("#### Table 2: log probability per held-out judge, rigorous cross induction\n")
    parts.append(_loglik_markdown(loglik, "cross_induction", lut["2"], simulated))
    calibrated = spec.get("target_m1_by_judge") is not None
    if simulated:
        parts.append(_correlation_markdown(loglik, "cross_induction", lut["2"], calibrated))
    parts.append("#### Table 3: log probability per held-out judge, one parameter for all judges\n")
    parts.append(_loglik_markdown(loglik, "single_parameter", lut["3"], simulated))
    if simulated:
        parts.append(_correlation_markdown(loglik, "single_parameter", lut["3"], False))
    pairwise = pd.read_csv(paths["pairwise"], sep="\t", dtype={"judge": str})
    parts.append("#### Table 4: pairwise comparisons (cross induction)\n")
    parts.append(_pairwise_markdown(pairwise, "cross_induction", lut["4"], simulated))
    parts.append("#### Table 5: pairwise comparisons (single parameter)\n")
    parts.append(_pairwise_markdown(pairwise, "single_parameter", lut["5"], simulated))
    return parts


def _single_parameter_table(params: pd.DataFrame, lut: Mapping[Any, Any], simulated: bool) -> str:
    """Format Table 1: each single-parameter method's optimum and its cross-induction mean (min-max) over judges.

    The paper's value is shown beside a simulated panel's.
    """
    lines = ["| method | parameter | single-parameter optimum | cross induction: mean (min-max) over judges |",
             "|---|---|---|---|"]
    for m, par in SINGLE.items():
        rows = params[(params["method"] == m) & (params["parameter"] == par)]
        sp = rows[rows["protocol"] == "single_parameter"]
        ci = rows[rows["protocol"] == "cross_induction"]
        if sp.empty and ci.empty:
            continue
        p = lut.get((None, None, m, None, None, par)) if simulated else None
        ours = f"{sp['mean'].iloc[0]:.3g}{_at_bound(sp)}" if not sp.empty else ""
        ci_text = (f"{ci['mean'].iloc[0]:.3g} ({ci['min'].iloc[0]:.3g}-{ci['max'].iloc[0]:.3g}){_at_bound(ci)}"
                   if not ci.empty else "")
        lines.append(f"| {m} | {par} | {ours}" + (f" ({p:g})" if p is not None else "") + f" | {ci_text} |")
    return "\n".join(lines) + "\n"


def report_section(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any] | None = None) -> ReportSection:
    """Return the graded part of the report: the section (:func:`_graded_markdown`) and its cells.

    The cells are :func:`_graded_comparisons` of ``results`` ({dataset: {"loglik", "pairwise", "parameters",
    "grades": path}}), none without results; and the readings of the simulated panels
    (:func:`manyjudges.graded.readings._graded_paper_readings`).
    """
    # imported here: graded.readings builds on this module's cells
    from manyjudges.graded.readings import NOTE, _graded_paper_readings

    readings = _graded_paper_readings(results, datasets, methods)
    if not results:
        return ReportSection("graded", "", pd.DataFrame(columns=CELL_COLUMNS), readings, NOTE)
    wilbur = paper_values("wilbur2011")
    return ReportSection("graded", _graded_markdown(results, datasets or {}, wilbur, methods),
                         _graded_comparisons(results, datasets or {}, wilbur), readings, NOTE)
