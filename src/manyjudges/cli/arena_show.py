"""What the arena's verbs show besides their table: the line of what was read, ``--plot`` and ``--html``.

:func:`_add_show_options` adds ``--plot``, ``--html`` and ``--quiet``; :func:`_check_show_options` refuses their
mistakes before any reading; :func:`_show_summary` prints what was read; :func:`_write_shown` writes the figure and
the page, each whole or not at all; the figure and page of ``leaderboard`` and of ``judges`` are made here.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.cli.terminal import CommandError


def _add_show_options(p: argparse.ArgumentParser, plot: str, page: str) -> None:
    """Add ``--plot``, ``--html`` and ``--quiet`` (what a verb shows besides its table)."""
    p.add_argument("--plot", metavar="FILE.png|FILE.svg", help=f"draw {plot} to FILE (PNG or SVG; needs "
                                                                "matplotlib: pip install 'manyjudges[figures]')")
    p.add_argument("--html", metavar="FILE", help=f"write one self-contained web page (no external link) with {page} "
                                                  "(without matplotlib, the page has no figures)")
    p.add_argument("--quiet", action="store_true", help="do not print what was read (one line on stderr: "
                                                        "verdicts, models, judges, prompts, ties, whether the "
                                                        "comparison graph is connected)")


def _check_show_options(args: argparse.Namespace) -> None:
    """Refuse a ``--plot`` that is not PNG or SVG or cannot be drawn, and files named twice, before any reading."""
    from manyjudges.arena.page import figures_missing

    if args.plot is not None:
        if Path(args.plot).suffix.lower() not in (".png", ".svg"):
            raise CommandError(f"--plot {args.plot}: the figure is a .png or a .svg file")
        missing = figures_missing()
        if missing:
            raise CommandError(f"--plot: {missing}")
    named = [f for f in (args.output, args.plot, args.html, getattr(args, "pairs", None),
                         getattr(args, "summary", None)) if f and f != "-"]
    if "-" in (args.plot, args.html) or len(set(named)) < len(named):
        raise CommandError("--plot and --html need a file each, not one of the tables' (nor stdout)")


def _show_summary(args: argparse.Namespace, data: Any) -> None:
    """Print what was read (:func:`~manyjudges.arena.summary.verdicts_summary`) on stderr, unless ``--quiet``."""
    from manyjudges.arena.summary import verdicts_summary

    if not args.quiet:
        print(f"manyjudges: {verdicts_summary(data, _source_name(args.verdicts))}", file=sys.stderr)


def _source_name(names: list[str]) -> str:
    """Return how the summary names VERDICTS: ``standard input`` for ``-``, else the paths as given."""
    return ", ".join("standard input" if name == "-" else name for name in names)


def _write_shown(args: argparse.Namespace, plot: Callable[[], Any], page: Callable[[list[str]], str]) -> None:
    """Write ``--plot`` (``plot()`` a figure) and ``--html`` (``page(notes)``), each whole or not at all."""
    from manyjudges.arena.page import figures_missing
    from manyjudges.core.atomic import atomic_file

    figure = b""
    if args.plot is not None:  # both made before either is written
        from manyjudges.reporting.figures import figure_bytes

        figure = figure_bytes(plot(), Path(args.plot).suffix.lower().lstrip("."))
    missing = figures_missing() if args.html is not None else None
    text = page([f"No figures: {missing}."] if missing else []) if args.html is not None else ""
    if args.plot is not None:
        with atomic_file(args.plot, "wb") as handle:
            handle.write(figure)
    if args.html is not None:
        if missing:
            print(f"manyjudges: {args.html} has no figures: {missing}", file=sys.stderr)
        with atomic_file(args.html) as handle:
            handle.write(text)


def _judges_read(args: argparse.Namespace, verdicts: pd.DataFrame) -> list[str]:
    """Print what ``arena judges`` read (:func:`_show_summary`) and return the line, for the page."""
    from manyjudges.arena.summary import verdicts_summary
    from manyjudges.arena.verdict_codes import code_verdicts

    data = code_verdicts(verdicts)
    _show_summary(args, data)
    return [verdicts_summary(data, _source_name(args.verdicts))]


def _position_bias_figure(judges: pd.DataFrame) -> Any:
    """Return the ``--plot`` figure of ``arena judges``: each judge's first-win rate with its interval."""
    from manyjudges.arena.judge_plots import plot_position_bias

    return plot_position_bias(judges[judges["first_win_rate"].notna()])


def _judges_page(measures: Any, notes: list[str]) -> str:
    """Return the ``--html`` page of ``arena judges``: ``notes``, the judges table, their figures."""
    from manyjudges.arena.page import figures_missing, html_page, judges_figures

    figures = [] if figures_missing() else judges_figures(measures.judges, measures.pairs)
    return html_page("Judges: position bias and agreement", measures.judges, figures, notes)


def _scores_figure(table: pd.DataFrame, method: str) -> Any:
    """Return the ``--plot`` figure of ``arena leaderboard``: the scores with their intervals, best at the top."""
    from manyjudges.arena.plots import plot_leaderboard

    return plot_leaderboard(table, title=f"Leaderboard ({method})", method=method)


def _leaderboard_page(table: pd.DataFrame, verdicts: Any, args: argparse.Namespace, notes: list[str]) -> str:
    """Return the ``--html`` page of ``arena leaderboard``: what was read, the table, the figures."""
    from manyjudges.arena.judges.measures import judge_measures
    from manyjudges.arena.leaderboard.judge_aware import verdicts_of_codes
    from manyjudges.arena.page import figures_missing, html_page, leaderboard_figures
    from manyjudges.arena.summary import verdicts_summary

    against = f"model {args.baseline}" if args.baseline else "the pool's average model"
    scale = "Elo points" if args.method == "elo" else "natural-log strengths"
    read = [verdicts_summary(verdicts, _source_name(args.verdicts)),
            f"method {args.method}; scores in {scale}, centred to mean 0; {args.bootstrap} bootstrap replicates "
            f"resampling {args.resample}, {args.ci:.0%} percentile intervals; win_rate: the expected win rate "
            f"against {against}."]
    figures = []
    if not figures_missing():
        measures = judge_measures(verdicts_of_codes(verdicts), level=args.ci) if verdicts.has_judge else None
        figures = leaderboard_figures(table, args.method, *((measures.judges, measures.pairs) if measures else ()))
    return html_page(f"Leaderboard ({args.method})", table, figures, [*read, *notes])

