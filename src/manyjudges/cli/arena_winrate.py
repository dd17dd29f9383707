"""``manyjudges arena winrate``: each model's win rate against a baseline model, AlpacaEval's, length-controlled on ask.

The library is :mod:`manyjudges.arena.winrate.baseline`; this module adds the verb's options, reads the
verdicts with their extra columns (``p_b``, answer features ``NAME_a, NAME_b``), says what was read and
returns the table.
"""
from __future__ import annotations

import argparse
import sys

import pandas as pd

from manyjudges.cli.terminal import CommandError, Output
from manyjudges.io.engine.errors import DataError


def _add_winrate_options(p: argparse.ArgumentParser) -> None:
    """Add ``--baseline``, ``--bootstrap``, ``--ci``, ``--seed``, ``--control``, ``-o`` and ``--quiet``."""
    p.add_argument("--baseline", metavar="MODEL", required=True,
                   help="the model every win rate is taken against (it has no row)")
    p.add_argument("--bootstrap", type=int, default=0, metavar="N",
                   help="bootstrap replicates resampling whole prompts: percentile intervals (default 0: "
                        "win_rate -+ z se, clipped to [0, 1])")
    p.add_argument("--ci", type=float, default=0.95, metavar="LEVEL", help="coverage of the intervals (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap draws (default 0)")
    p.add_argument("--control", metavar="FEATURE",
                   help="the length-controlled win rate (AlpacaEval 2.0): FEATURE names the columns FEATURE_a, "
                        "FEATURE_b of the answers' length (one feature, e.g. length)")
    p.add_argument("--human", metavar="HUMAN_VERDICTS",
                   help="human verdicts on some of the same units (prompt, model): the win rates are calibrated to "
                        "the humans' preference by prediction-powered inference (PPI++), read like VERDICTS; "
                        "the table is then model, win_rate, ci_low, ci_high, lambda, n_human, n_llm_units, worth, "
                        "human_win_rate, llm_win_rate")
    p.add_argument("--human-summary", metavar="FILE",
                   help="with --human: write model, lambda, n_human, n_llm_units, worth (the human-labelled units "
                        "the LLM verdicts are worth) here")
    p.add_argument("--human-lambda", type=float, metavar="LAMBDA",
                   help="with --human: PPI++'s lambda in [0, 1] (default: power-tuned per model)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the table here (default: stdout)")
    p.add_argument("--quiet", action="store_true", help="do not print what was read (one line on stderr)")


def _winrate_read(frame: pd.DataFrame, source: str) -> str:
    """Return the line of what was read: verdicts, models, judges, prompts, and whether p_b or the winners count."""
    models = len(set(frame["model_a"].astype(str)) | set(frame["model_b"].astype(str)))
    counts = [(len(frame), "verdict"), (models, "model"),
              *((frame[c].nunique(), c) for c in ("judge", "prompt") if c in frame)]
    words = [f"{n:,} {word}{'' if n == 1 else 's'}" for n, word in counts]
    soft = "soft preferences p_b" if "p_b" in frame else "winners (a tie 1/2)"
    return f"read {words[0]} from {source}: {', '.join(words[1:])}; win rates from the {soft}"


def _cmd_arena_winrate(args: argparse.Namespace) -> Output:
    """Run ``manyjudges arena winrate``: the win rates against ``--baseline``, best first."""
    from manyjudges.arena.winrate.baseline import baseline_win_rates
    from manyjudges.cli.arena import _read_verdicts_table
    from manyjudges.cli.arena_show import _source_name

    if args.bootstrap < 0:
        raise CommandError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if not 0.0 < args.ci < 1.0:
        raise CommandError(f"--ci must be between 0 and 1, got {args.ci}")
    _check_human(args)
    control = [n.strip() for n in args.control.split(",") if n.strip()] if args.control is not None else []
    if args.control is not None and len(control) != 1:
        raise CommandError(f"--control: the win rate is controlled for one feature, the answers' length (e.g. "
                           f"--control length); got {args.control!r}")
    frame = _read_verdicts_table(args, args.verdicts, extras=True)
    if not args.quiet:
        print(f"manyjudges: {_winrate_read(frame, _source_name(args.verdicts))}", file=sys.stderr)
    if args.human is not None:
        return _human_win_rates(args, frame)
    try:
        table = baseline_win_rates(frame, args.baseline, n_bootstrap=args.bootstrap, ci=args.ci, seed=args.seed,
                                   control=control)
    except ValueError as err:
        where = ", ".join("<stdin>" if name == "-" else name for name in args.verdicts)
        raise DataError.at(where, None, str(err)) from None
    return Output(table)


#: the columns of ``--human-summary``
_HUMAN_SUMMARY_COLUMNS = ["model", "lambda", "n_human", "n_llm_units", "worth"]


def _check_human(args: argparse.Namespace) -> None:
    """Refuse, before reading, the ``--human`` options without it and what the calibrated win rates cannot do."""
    if args.human is None:
        given = [o for o, v in (("--human-summary", args.human_summary), ("--human-lambda", args.human_lambda))
                 if v is not None]
        if given:
            raise CommandError(f"{' and '.join(given)} {'need' if len(given) > 1 else 'needs'} --human HUMAN_VERDICTS")
        return
    if args.control is not None or args.bootstrap:
        raise CommandError("--human gives the calibrated win rates with their PPI intervals: it takes neither "
                           "--control nor --bootstrap")
    if args.human_lambda is not None and not 0.0 <= args.human_lambda <= 1.0:
        raise CommandError(f"--human-lambda must be in [0, 1], got {args.human_lambda}")


def _human_win_rates(args: argparse.Namespace, llm: pd.DataFrame) -> Output:
    """Return the human-calibrated win rates of ``--human``.

    They are :func:`~manyjudges.arena.human.win_rates.verdicts_win_rates` of VERDICTS and HUMAN_VERDICTS.
    """
    from manyjudges.arena.human.win_rates import verdicts_win_rates
    from manyjudges.arena.winrate.baseline import model_preferences
    from manyjudges.cli.arena import _read_verdicts_table

    human = _read_verdicts_table(args, [args.human], extras=True)
    for name, frame in ((args.human, human), (", ".join(args.verdicts), llm)):
        try:
            model_preferences(frame, args.baseline)
        except ValueError as err:
            raise DataError.at(name, None, str(err)) from None
    try:
        table = verdicts_win_rates(llm, human, args.baseline, args.ci, args.human_lambda)
    except ValueError as err:  # a human unit without LLM verdicts
        raise DataError.at(args.human, None, str(err)) from None
    worth = table["worth"].sum()
    notes = () if args.quiet else (f"human calibration: {int(table['n_human'].sum()):,} human units of "
                                   f"{len(table)} models against {args.baseline}: worth {worth:,.0f} human "
                                   "units in all (the worth column: per model)",)
    files = ((args.human_summary, table[_HUMAN_SUMMARY_COLUMNS]),) if args.human_summary else ()
    return Output(table, files, notes)
