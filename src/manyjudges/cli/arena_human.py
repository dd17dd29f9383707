"""``manyjudges arena leaderboard --human FILE``: a leaderboard of LLM verdicts calibrated on a few human verdicts.

The options are added to the leaderboard verb by :func:`_add_human_options`; :func:`_cmd_human_leaderboard`
runs :class:`~manyjudges.arena.human.leaderboard.HumanCalibratedLeaderboard` (prediction-powered inference,
PPI++) and writes its table, its one-row summary (``--human-summary``) and one line on stderr.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.cli.terminal import CommandError, Output, parse_params
from manyjudges.io.engine.errors import DataError

__all__ = ["human_line"]

#: the paragraph of the leaderboard's EXAMPLES on --human
_HUMAN_EXAMPLE = """\
        Human-calibrated (--human HUMAN, bradley_terry only): VERDICTS are the LLM judges' verdicts, HUMAN
        a few human verdicts read the same way (--from, --duplicates) on some of the same units (prompt,
        unordered model pair; every human unit needs LLM verdicts, else an error names the file, line and
        unit). The scores are prediction-powered (PPI++): Bradley-Terry targeting the humans' preferences,
        the LLM verdicts lowering the variance and their average bias removed; lambda (0: humans alone, 1:
        plain PPI) is power-tuned unless --human-lambda. ci_low, ci_high: sandwich intervals (default), rank
        and win intervals from --bootstrap normal draws; --human-intervals bootstrap resamples the human and
        the other units separately instead. --human-summary FILE writes n_human (units with a human verdict),
        human_verdicts, n_llm_units, lambda and worth (the human-labelled units the estimate is worth: n times the
        humans-alone variance over the calibrated one, traces); one line on stderr says it.

        example (an LLM judge g on 8 units, a human h on 4 of them; --quiet: no line on stderr):
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\np1\\tg\\tx\\ty\\tmodel_a\\np1\\tg\\ty\\tx\\tmodel_b\\np1\\tg\\ty\\tz\\tmodel_a\\np2\\tg\\tx\\tz\\tmodel_a\\np2\\tg\\tz\\ty\\tmodel_b\\np3\\tg\\tx\\ty\\ttie\\np3\\tg\\tz\\tx\\tmodel_a\\np4\\tg\\ty\\tz\\tmodel_b\\np4\\tg\\tx\\ty\\tmodel_a\\n' > llm.tsv
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\np1\\th\\tx\\ty\\tmodel_a\\np2\\th\\tx\\tz\\ttie\\np3\\th\\tx\\ty\\tmodel_b\\np4\\th\\ty\\tz\\tmodel_a\\n' > human.tsv
          manyjudges arena leaderboard llm.tsv --human human.tsv --human-summary calibration.tsv --bootstrap 200 --quiet -o board.tsv
        writes the leaderboard of x, y, z (its columns, then human_verdicts) to board.tsv and n_human 4,
        human_verdicts 4, n_llm_units 8, lambda and worth to calibration.tsv; without --quiet, stderr says
        what was read and "human calibration: 4 human verdicts on 4 units, 8 LLM units: worth W human-
        labelled units (lambda L)"."""  # noqa: E501 (shell lines, run as written by a test)


def _add_human_options(p: argparse.ArgumentParser) -> None:
    """Add ``--human``, ``--human-summary``, ``--human-intervals`` and ``--human-lambda`` to the leaderboard verb."""
    p.add_argument("--human", metavar="HUMAN", help="human verdicts, read as VERDICTS are: the leaderboard is "
                                                    "calibrated on them by prediction-powered inference (PPI++; "
                                                    "--method bradley_terry only)")
    p.add_argument("--human-summary", metavar="FILE", help="with --human: write n_human, human_verdicts, "
                                                           "n_llm_units, lambda and worth here")
    p.add_argument("--human-intervals", choices=["sandwich", "bootstrap"], default="sandwich",
                   help="with --human: sandwich intervals, rank and win intervals from --bootstrap normal draws "
                        "(default), or --bootstrap replicates resampling the human and the other units separately")
    p.add_argument("--human-lambda", type=float, metavar="LAMBDA", help="with --human: PPI++'s lambda in [0, 1] (0: "
                                                                        "humans alone; default: power-tuned)")


def _human_requested(args: argparse.Namespace) -> bool:
    """Whether ``--human`` was given; a ``--human-*`` option without it is a CommandError."""
    if getattr(args, "human", None) is not None:
        return True
    if getattr(args, "human_summary", None) or getattr(args, "human_lambda", None) is not None or getattr(
            args, "human_intervals", "sandwich") != "sandwich":
        raise CommandError("--human-summary, --human-intervals and --human-lambda need --human HUMAN")
    return False


def _check(args: argparse.Namespace) -> dict[str, Any]:
    """Refuse what ``--human`` cannot do, before any reading; return the ridge parameters (``reg`` only)."""
    if args.method != "bradley_terry":
        raise CommandError(f"--human calibrates the bradley_terry leaderboard only, not --method {args.method}")
    params = parse_params(args.params)
    if set(params) - {"reg"}:
        raise CommandError(f"--human takes only reg in --params (a tie is half a win), got {', '.join(params)}")
    reg = params.get("reg", 0.01)
    if isinstance(reg, bool) or not isinstance(reg, (int, float)) or not reg >= 0:
        raise CommandError(f"--params reg must be a number >= 0, got {reg!r}")
    for flag, value in (("--judges", args.judges), ("--html", args.html), ("--control", getattr(args, "control", None)),
                        ("--coefficients", getattr(args, "coefficients", None))):
        if value:
            raise CommandError(f"{flag} is not available with --human")
    if args.resample != "verdicts":
        raise CommandError("--resample is not used with --human (--human-intervals bootstrap resamples units)")
    if args.bootstrap < 0:
        raise CommandError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if not 0 < args.ci < 1:
        raise CommandError(f"--ci must be between 0 and 1, got {args.ci}")
    if args.human_lambda is not None and not 0 <= args.human_lambda <= 1:
        raise CommandError(f"--human-lambda must be between 0 and 1, got {args.human_lambda}")
    if args.human == "-" or args.human_summary == "-" or (args.human_summary and args.human_summary in (
            args.output, args.plot)):
        raise CommandError("--human and --human-summary need a file of their own")
    return params


def human_line(summary: pd.DataFrame) -> str:
    """Return the stderr line of a calibration's summary row."""
    row = summary.iloc[0]
    return (f"human calibration: {int(row['human_verdicts'])} human verdicts on {int(row['n_human'])} units, "
            f"{int(row['n_llm_units'])} LLM units: worth {row['worth']:.0f} human-labelled units "
            f"(lambda {row['lambda']:.2f})")


def _human_line_number(args: argparse.Namespace, llm: pd.DataFrame, human: pd.DataFrame) -> int | None:
    """Return the file line of the first human verdict whose unit has no LLM verdict (a canonical file), or None."""
    from manyjudges.arena.human.leaderboard import units_without_llm

    canonical = args.source == "arena" and Path(args.human).is_file() and Path(args.human).suffix != ".json"
    rows = units_without_llm(llm, human)
    return int(rows[0]) + 2 if len(rows) and canonical else None


def _cmd_human_leaderboard(args: argparse.Namespace) -> Output:
    """Run ``manyjudges arena leaderboard VERDICTS --human HUMAN``: the calibrated table and its summary."""
    from manyjudges.arena.human.leaderboard import HumanCalibratedLeaderboard
    from manyjudges.arena.verdict_codes import code_verdicts
    from manyjudges.cli.arena import _read_verdicts_table
    from manyjudges.cli.arena_show import _check_show_options, _scores_figure, _show_summary, _write_shown

    params = _check(args)
    _check_show_options(args)
    board = HumanCalibratedLeaderboard(args.human_intervals, args.bootstrap, args.ci, args.seed, args.human_lambda,
                                       params.get("reg", 0.01), args.bothbad, args.baseline)
    llm = _read_verdicts_table(args, args.verdicts)
    human = _read_verdicts_table(args, [args.human])
    _show_summary(args, code_verdicts(llm, args.bothbad))
    try:
        board.fit(llm, human)
    except ValueError as err:
        line = _human_line_number(args, llm, human)
        where = args.human if line is not None or "human" in str(err) else ", ".join(args.verdicts)
        raise DataError.at(where, line, str(err)) from None
    _write_shown(args, lambda: _scores_figure(board.table_, "bradley_terry"), lambda notes: "")
    notes = () if args.quiet else (human_line(board.summary_),)
    files = ((args.human_summary, board.summary_),) if args.human_summary else ()
    return Output(board.table_, files, notes)
