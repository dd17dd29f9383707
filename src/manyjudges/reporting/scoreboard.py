"""The fidelity scoreboard at the top of results/REPRODUCTION.md.

One line per paper table that a run regenerated on data with paper values, saying how close ours are.

Each family's report module gives its compared cells as one long table (:data:`CELL_COLUMNS`); for each
(paper, table, dataset) the scoreboard counts the cells where both values exist, takes the mean of
|ours - paper| over them (and of ours - paper, its sign), and Kendall's tau-b (``scipy.stats.kendalltau``)
between the paper's values and ours:
over the methods' means across those cells when the table compares at least :data:`_MIN_TAU_ITEMS` methods,
else over the cells themselves (e.g. a FreSPA sweep, Kim, Zhai, Han ECIR 2010, Tables 2-4).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from manyjudges.reporting.formatting import as_float, fmt, signed

__all__ = ["CELL_COLUMNS", "scoreboard", "scoreboard_markdown"]

#: columns of a family's compared-cells table (``key``: the cell's other coordinates as text)
CELL_COLUMNS = ["paper", "table", "dataset", "data", "method", "key", "ours", "paper_value"]
#: fewer items than this: no rank correlation ("n/a")
_MIN_TAU_ITEMS = 3
_PAPER_LABELS = {
    "kim2010": "Kim, Zhai, Han (ECIR 2010)",
    "lin2017": "Lin, Li, Guo (arXiv 1704.08464)",
    "wilbur2011": "Wilbur and Kim (BMC Bioinformatics 2011)",
    "niu2015": "Niu et al. (WSDM 2015)",
    "li2019": "Li, Rubinstein, Cohn (ICML 2019, released notebooks)",
    "ustalov2024": "Ustalov, Pavlichenko, Tseitlin (JOSS 2024, crowd-kit)",
}
#: tables of paper_values.tsv whose id is not a table number
TABLE_LABELS = {
    ("lin2017", "search"): "Google vs Bing kappa (authors' code)",
    ("niu2015", "cv"): "CV under added spammers (Figures 3-4)",
    ("niu2015", "kl"): "quality KL (Figure 2)",
    ("li2019", "accuracy"): "truth-inference accuracy",
    ("ustalov2024", "accuracy"): "truth-inference accuracy",
}
BOARD_COLUMNS = ["paper", "table", "dataset", "data", "cells", "mean_abs_diff", "mean_diff", "tau", "tau_items",
                 "tau_over"]


def _table_label(paper: str, table: str) -> str:
    """'Table 2' for a numbered table, else its label in :data:`TABLE_LABELS` (or the id itself)."""
    table = str(table)
    return f"Table {table}" if table.isdigit() else TABLE_LABELS.get((paper, table), table)


def _tau(both: pd.DataFrame) -> tuple[float, int, str]:
    """(tau-b, items, 'methods' or 'cells') of one table's compared cells ``both``."""
    if both["method"].nunique() >= _MIN_TAU_ITEMS:
        means = both.groupby("method", sort=False)[["paper_value", "ours"]].mean()
        x, y, over = means["paper_value"].to_numpy(), means["ours"].to_numpy(), "methods"
    else:
        x, y, over = both["paper_value"].to_numpy(), both["ours"].to_numpy(), "cells"
    if len(x) < _MIN_TAU_ITEMS:
        return np.nan, len(x), over
    from scipy.stats import kendalltau  # here: only the report needs scipy.stats

    return float(kendalltau(x, y).statistic), len(x), over


def scoreboard(cells: pd.DataFrame) -> pd.DataFrame:
    """Return one row per (paper, table, dataset) of ``cells`` (:data:`CELL_COLUMNS`), in their order of appearance.

    Each row: data kind, ``cells`` with both values, ``mean_abs_diff`` = mean |ours - paper| and
    ``mean_diff`` = mean(ours - paper) over them, and ``tau`` (Kendall tau-b of paper vs ours over
    ``tau_items`` methods or cells, ``tau_over``; NaN for fewer than :data:`_MIN_TAU_ITEMS` items or no
    variation).
    """
    rows = []
    for (paper, table, dataset), group in cells.groupby(["paper", "table", "dataset"], sort=False):
        both = group.dropna(subset=["ours", "paper_value"])
        diff = both["ours"] - both["paper_value"]
        mean_abs, mean = (diff.abs().mean(), diff.mean()) if len(both) else (np.nan, np.nan)
        tau, items, over = _tau(both)
        rows.append((paper, str(table), dataset, group["data"].iloc[0], len(both), mean_abs, mean, tau, items, over))
    return pd.DataFrame(rows, columns=BOARD_COLUMNS)


def scoreboard_markdown(board: pd.DataFrame) -> str:
    """Return the scoreboard section.

    A table of the rows with compared cells, then the tables regenerated on data without paper
    values, in one sentence.
    """
    parts = [
        "## Fidelity scoreboard\n",
        "One line per paper table regenerated on data with paper values: *cells* counts the cells where ours and "
        "the paper's value both exist (derived rows such as Max-Min, Ave and Total left out; of Wilbur and Kim's "
        "Tables 4-5, the 'A better' counts); *mean abs diff* is the "
        "mean of |ours - paper| over those cells and *mean diff* the mean of ours - paper (its sign); "
        "*tau* is Kendall's tau-b between the paper's values and ours, "
        f"taken over the methods' means across those cells when the table compares {_MIN_TAU_ITEMS} or more "
        f"methods, else over the cells (n/a for fewer than {_MIN_TAU_ITEMS} items or values without variation); "
        "*data* says whether the run used the paper's own data, a real stand-in or a simulated one.\n",
    ]
    shown = board[board["cells"] > 0]
    if shown.empty:
        parts.append("No table of this run has paper values to compare.\n")
    else:
        lines = ["| paper, table | dataset | data | cells | mean abs diff | mean diff (ours - paper) "
                 "| tau (paper vs ours) |", "|---|---|---|---|---|---|---|"]
        for r in shown.itertuples(index=False):
            label = f"{_PAPER_LABELS.get(str(r.paper), str(r.paper))}, {_table_label(str(r.paper), str(r.table))}"
            tau = "n/a" if np.isnan(as_float(r.tau)) else f"{fmt(r.tau, 2)} ({r.tau_items} {r.tau_over})"
            lines.append(f"| {label} | `{r.dataset}` | {r.data} | {r.cells} | {fmt(r.mean_abs_diff)} "
                         f"| {signed(r.mean_diff)} | {tau} |")
        parts.append("\n".join(lines) + "\n")
    missing = board[board["cells"] == 0]
    if not missing.empty:
        items = [f"{_PAPER_LABELS.get(str(r.paper), str(r.paper))} {_table_label(str(r.paper), str(r.table))} "
                 f"on `{r.dataset}` ({r.data})"
                 for r in missing.itertuples(index=False)]
        parts.append("Regenerated with no paper values to compare: " + "; ".join(items) + ".\n")
    return "\n".join(parts)
