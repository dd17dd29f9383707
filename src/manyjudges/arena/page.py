"""One self-contained web page of an arena table: the table, its figures, what was read.

The page is a single HTML file with no external link: its style is inline and its figures are PNG
images embedded as base64 ``data:`` addresses, so it can be mailed or attached as it is. The table's
numbers are rounded as on a terminal (:func:`~manyjudges.reporting.rounded.rounded_cells`), each
cell's full-precision value in its ``title`` (shown on hovering). Written with the standard library;
the figures need matplotlib (the ``figures`` extra): without it, :func:`figures_missing` says so and
the page is written without them.
"""
from __future__ import annotations

import base64
import html
from collections.abc import Sequence

import numpy as np
import pandas as pd

from manyjudges.reporting.rounded import rounded_cells

__all__ = ["Figure", "figures_missing", "html_page", "judges_figures", "leaderboard_figures"]

#: what a user without matplotlib is told to install
_FIGURES_EXTRA = "pip install 'manyjudges[figures]'"

#: a figure of the page: its caption and its PNG bytes
Figure = tuple[str, bytes]

STYLE = """body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;
padding:0 1em;color:#222}h1{font-size:1.4em}p.read{color:#555}table{border-collapse:collapse;font-size:.9em}
th,td{padding:.2em .6em;border-bottom:1px solid #ddd}th{text-align:left;background:#f4f4f4;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:2em 0}img{max-width:100%}
figcaption{color:#555;font-size:.9em}"""


def figures_missing() -> str | None:
    """Return why the figures cannot be drawn (matplotlib missing, naming :data:`_FIGURES_EXTRA`), or None."""
    try:
        import manyjudges.reporting.figures  # noqa: F401
    except ModuleNotFoundError as err:
        if err.name != "matplotlib":
            raise
        return f"the figures need matplotlib, which the library alone does not install: {_FIGURES_EXTRA}"
    return None


def _table_html(table: pd.DataFrame) -> str:
    """Return the table as an HTML ``<table>``: rounded cells, full values in ``title``, numbers right-aligned."""
    cells = rounded_cells(table)
    numeric = {c: pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])
               for c in table.columns}
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = []
    for i in range(len(table)):
        tds = []
        for c in table.columns:
            value = table[c].iloc[i]
            full = "" if pd.isna(value) else html.escape(repr(float(value)) if isinstance(value, float) else str(value))
            tds.append(f"<td{' class=n' if numeric[c] else ''} title=\"{full}\">{html.escape(cells[c][i])}</td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"


def html_page(title: str, table: pd.DataFrame, figures: Sequence[Figure] = (), notes: Sequence[str] = ()) -> str:
    """Return the page: ``title``, the ``notes`` (what was read, what is missing), the table, the figures.

    Parameters
    ----------
    title : str
    table : pandas.DataFrame
        Shown rounded (module docstring).
    figures : sequence of (caption, PNG bytes)
        Embedded as base64 ``data:image/png`` images, in this order, after the table.
    notes : sequence of str
        One paragraph each, under the title.

    Returns
    -------
    str
        A complete HTML5 document with no external link.
    """
    parts = ["<!DOCTYPE html>", '<html lang="en">', '<head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title>", f"<style>{STYLE}</style></head>", "<body>",
             f"<h1>{html.escape(title)}</h1>"]
    parts += [f'<p class="read">{html.escape(note)}</p>' for note in notes]
    parts.append(_table_html(table))
    for caption, png in figures:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">'
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def leaderboard_figures(table: pd.DataFrame, method: str, judges: pd.DataFrame | None = None,
                        pairs: pd.DataFrame | None = None) -> list[Figure]:
    """Return the leaderboard's figure (:func:`~manyjudges.arena.plots.plot_leaderboard`) and the judges' figures.

    The judges' figures (:func:`judges_figures`) come when ``judges`` and ``pairs`` are given (a verdicts
    table with a judge column). Needs matplotlib.
    """
    from manyjudges.arena.plots import plot_leaderboard
    from manyjudges.reporting.figures import figure_bytes

    unit = "Elo points" if method == "elo" else "natural-log strengths"
    figures = [(f"Scores ({unit}, centred to mean 0) with their bootstrap intervals, best at the top",
                figure_bytes(plot_leaderboard(table, title=f"Leaderboard ({method})", method=method), "png"))]
    if judges is not None and pairs is not None:
        figures += judges_figures(judges, pairs)
    return figures


def judges_figures(judges: pd.DataFrame, pairs: pd.DataFrame) -> list[Figure]:
    """Return the judges' position bias and their agreement heatmap, as PNG figures. Needs matplotlib."""
    from manyjudges.arena.judge_plots import plot_position_bias
    from manyjudges.arena.plots import plot_agreement
    from manyjudges.reporting.figures import figure_bytes

    rated = judges[np.isfinite(judges["first_win_rate"].to_numpy(dtype=float))]
    figures = []
    if len(rated):
        figures.append(("Position bias: the share of each judge's decisive verdicts won by the answer shown "
                        "first, with its Wilson interval (0.5: no bias)",
                        figure_bytes(plot_position_bias(rated), "png")))
    figures.append(("Agreement between the judges on the units both judged",
                    figure_bytes(plot_agreement(pairs, judges), "png")))
    return figures
