"""The arena section of REPRODUCTION.md.

Per dataset, each method's leaderboard (rank, score and its bootstrap interval) side by side; where the
dataset asks for them, the style-controlled ranks beside the raw ones with the style coefficients, the win
rates against a baseline, and the human-calibrated ranks beside the raw ones; the judges' position bias and
agreement with the reference, and the panel's summary (Krippendorff's alpha, the effective number of
independent judges).

No paper's table is regenerated here: the section compares no cells (the fidelity scoreboard has no row
of it) and has no readings.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.reporting.formatting import as_int, data_kind, fmt
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["report_section"]

#: the result tables the section reads of each dataset
REPORT_TABLES = ("leaderboard", "judges", "judge_summary")


def _interval(low: Any, high: Any, digits: int) -> str:
    return "" if pd.isna(low) or pd.isna(high) else f" [{fmt(float(low), digits)}, {fmt(float(high), digits)}]"


def _rank_range(low: Any, high: Any) -> str:
    return "" if pd.isna(low) or pd.isna(high) else f" ({int(low)}-{int(high)})"


def leaderboard_markdown(table: pd.DataFrame, methods: Mapping[str, Any]) -> str:
    """Return the models in the first method's order, one column per method.

    Each cell reads ``rank (rank interval): score [score interval]`` (Elo points with 0 decimals,
    log-strengths with 3).
    """
    names = list(pd.unique(table["method"]))
    first = table[table["method"] == names[0]].sort_values(["rank", "model"])
    order = list(first["model"].astype(str))
    by_method = {m: rows.set_index(rows["model"].astype(str))
                 for m, rows in ((m, table[table["method"] == m]) for m in names)}
    lines = ["| model | " + " | ".join(f"{m}" for m in names) + " |", "|---" * (len(names) + 1) + "|"]
    for model in order:
        cells = []
        for m in names:
            row = by_method[m].loc[model] if model in by_method[m].index else None
            if row is None:
                cells.append("")
                continue
            digits = 0 if ((methods.get(m) or {}).get("method") or m) == "elo" else 3
            cells.append(f"{int(row['rank'])}{_rank_range(row['rank_low'], row['rank_high'])}: "
                         f"{fmt(float(row['score']), digits)}{_interval(row['ci_low'], row['ci_high'], digits)}")
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def judges_markdown(judges: pd.DataFrame) -> str:
    """Return one row per judge: verdicts, first-win rate [Wilson interval], flip rate, tie rate.

    With a reference, also accuracy and kappa against it.
    """
    reference = "accuracy" in judges.columns
    head = "| judge | verdicts | first-win rate | flip rate | tie rate |" + (" accuracy | kappa |" if reference else "")
    lines = [head, "|---" * (7 if reference else 5) + "|"]
    for row in judges.itertuples(index=False):
        text = (f"| {row.judge} | {as_int(row.verdicts):,} | {fmt(row.first_win_rate)}"
                f"{_interval(row.first_win_low, row.first_win_high, 3)} | {fmt(row.flip_rate)} | {fmt(row.tie_rate)} |")
        if reference:
            text += f" {fmt(row.accuracy)} | {fmt(row.kappa)} |"
        lines.append(text)
    return "\n".join(lines)


def _read(path: str | Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


def _raw_ranks(board: pd.DataFrame) -> tuple[str, pd.Series]:
    """Return (method, rank by model) of the raw leaderboard a side table is set against.

    The method is bradley_terry when the dataset ran it, else the first method.
    """
    names = list(pd.unique(board["method"]))
    method = "bradley_terry" if "bradley_terry" in names else names[0]
    rows = board[board["method"] == method]
    return method, pd.Series(rows["rank"].to_numpy(), index=rows["model"].astype(str))


def _ranked_cell(row: Any) -> str:
    return (f"{int(row['rank'])}{_rank_range(row['rank_low'], row['rank_high'])}: {fmt(float(row['score']), 3)}"
            f"{_interval(row['ci_low'], row['ci_high'], 3)}")


def _beside_raw_markdown(board: pd.DataFrame, other: pd.DataFrame, heading: str, extra: str | None = None) -> str:
    """Return the models in ``other``'s order: the raw rank (:func:`_raw_ranks`) beside ``other``'s cell.

    ``other`` is a leaderboard table (controlled or human-calibrated); ``extra`` one more of its columns.
    """
    method, raw = _raw_ranks(board)
    lines = [f"| model | raw rank ({method}) | {heading} |" + (f" {extra} |" if extra else ""),
             "|---" * (4 if extra else 3) + "|"]
    for _, row in other.iterrows():
        model = str(row["model"])
        shown = str(int(raw[model])) if model in raw.index else ""
        lines.append(f"| {model} | {shown} | {_ranked_cell(row)} |" + (f" {as_int(row[extra]):,} |" if extra else ""))
    return "\n".join(lines)


def _winrate_markdown(table: pd.DataFrame, baseline: Any) -> str:
    """Return each model's win rate against the baseline [interval], the discrete win rate and n."""
    controlled = "raw_win_rate" in table.columns
    head = ("| model | length-controlled win rate | raw win rate |" if controlled else "| model | win rate |")
    lines = [f"Win rates against `{baseline}` (fractions; {'length-controlled, ' if controlled else ''}"
             "interval at the section's level):\n", head + " discrete | n |", "|---" * (5 if controlled else 4) + "|"]
    for row in table.itertuples(index=False):
        cell = f"{fmt(row.win_rate, 3)}{_interval(row.ci_low, row.ci_high, 3)}"
        raw = f" {fmt(row.raw_win_rate, 3)} |" if controlled else ""
        lines.append(f"| {row.model} | {cell} |{raw} {fmt(row.discrete_win_rate, 3)} | {as_int(row.n):,} |")
    return "\n".join(lines)


def _coefficients_line(coefficients: pd.DataFrame) -> str:
    parts = [f"`{r.feature}` {fmt(r.coefficient, 3)}{_interval(r.ci_low, r.ci_high, 3)}"
             for r in coefficients.itertuples(index=False)]
    return ("Style coefficients (log-odds per standard deviation of the normalised difference, first minus "
            f"second answer): {', '.join(parts)}.")


def _human_line(summary: pd.DataFrame) -> str:
    s = summary.iloc[0]
    return (f"Human-calibrated (prediction-powered inference, power-tuned lambda {fmt(float(s['lambda']), 3)}): "
            f"{as_int(s['human_verdicts']):,} human verdicts on {as_int(s['n_human']):,} units calibrate the "
            f"panel's verdicts on {as_int(s['n_llm_units']):,} units, worth {fmt(float(s['worth']), 0)} "
            "human-labelled units.")


def _asked_markdown(files: Mapping[str, str | Path], board: pd.DataFrame, spec: Mapping[str, Any]) -> list[str]:
    """Return the parts of the tables a dataset's ``control``, ``baseline`` and ``human`` asked for."""
    parts = []
    if "leaderboard_controlled" in files:
        parts.append(_beside_raw_markdown(board, _read(files["leaderboard_controlled"]),
                                         "style-controlled rank (interval): score [interval]") + "\n")
        parts.append(_coefficients_line(_read(files["style_coefficients"])) + "\n")
    if "winrate" in files:
        parts.append(_winrate_markdown(_read(files["winrate"]), spec.get("baseline")) + "\n")
    if "leaderboard_human" in files:
        parts.append(_human_line(_read(files["human_summary"])) + "\n")
        parts.append(_beside_raw_markdown(board, _read(files["leaderboard_human"]),
                                         "calibrated rank (interval): score [interval]", "human_verdicts") + "\n")
    return parts


def _summary_line(summary: pd.DataFrame, reference: Any) -> str:
    s = summary.iloc[0]
    against = (f"against the reference (the votes of the judges matching {reference})" if reference
               else "against the majority of the other judges")
    return (f"{int(s['n_judges'])} judges on {int(s['n_units']):,} units (prompt, model pair); Krippendorff's alpha "
            f"(nominal, 3 classes) {fmt(float(s['alpha']), 4)}; errors {against}: mean pairwise error correlation "
            f"{fmt(float(s['mean_error_correlation']), 3)}, effective independent judges "
            f"{fmt(float(s['effective_judges']), 2)}.")


def _arena_markdown(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any], bootstrap: int, resample: str, ci: float) -> str:
    """Return the section: the settings, then per dataset its leaderboards, judges and summary."""
    intervals = (f"{ci:.0%} percentile intervals of {bootstrap:,} bootstrap replicates resampling {resample}"
                 if bootstrap else "no bootstrap (no intervals)")
    parts = ["## Arena leaderboards and LLM judges\n",
             "Each method pools the panel's verdicts into one score per model, centred to mean 0 (log-strengths; "
             f"Elo points for `elo`), with {intervals}; a cell reads `rank (rank interval): score [interval]`. "
             "The judges' first-win rate is the share of their decisive verdicts won by the answer shown first "
             "(0.5: no position bias), with its Wilson interval (`docs/methods.md`, the arena leaderboard and the "
             "LLM judges).\n"]
    for name, files in results.items():
        spec = datasets.get(name, {})
        parts.append(f"### Dataset `{name}` ({data_kind(spec.get('source'))})\n")
        if spec.get("description"):
            parts.append(f"{spec['description']}\n")
        board = _read(files["leaderboard"])
        parts.append(leaderboard_markdown(board, methods) + "\n")
        parts.extend(_asked_markdown(files, board, spec))
        judges = pd.read_csv(files["judges"], sep="\t", keep_default_na=False, na_values=[""])
        summary = pd.read_csv(files["judge_summary"], sep="\t")
        parts.append(_summary_line(summary, spec.get("reference")) + "\n")
        parts.append(judges_markdown(judges) + "\n")
    return "\n".join(parts)


def report_section(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any] | None, bootstrap: int = 0, resample: str = "verdicts",
                   ci: float = 0.95) -> ReportSection:
    """Return the arena part of the report (:func:`_arena_markdown`) of ``results``.

    ``results`` is {dataset: {table: path}} of :data:`REPORT_TABLES`; none without results. No compared
    cells, no readings.
    """
    if not results:
        return ReportSection("arena", "", pd.DataFrame(columns=CELL_COLUMNS))
    return ReportSection("arena", _arena_markdown(results, datasets or {}, methods or {}, bootstrap, resample, ci),
                         pd.DataFrame(columns=CELL_COLUMNS))
