"""The arena verbs' style options: ``leaderboard --control/--coefficients`` and ``judges --length``.

``manyjudges arena leaderboard --control length,bold`` rates the models with the answers' features held
fixed (:mod:`manyjudges.arena.leaderboard.style`; ``--method bradley_terry`` only) and ``--coefficients FILE`` writes
each feature's coefficient with its bootstrap interval; ``manyjudges arena judges`` adds each judge's
length preference (:mod:`manyjudges.arena.length_preference`) when the verdicts have a length feature.
"""
from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from manyjudges.cli.arena_show import _show_summary
from manyjudges.cli.terminal import CommandError
from manyjudges.io.engine.errors import DataError

__all__ = ["with_length_preference"]


def _add_control_options(p: argparse.ArgumentParser) -> None:
    """Add ``--control FEATURE[,FEATURE]`` and ``--coefficients FILE`` to ``arena leaderboard``."""
    p.add_argument("--control", metavar="FEATURE[,FEATURE]",
                   help="bradley_terry only: rate the models with these answer features held fixed (style "
                        "control; each FEATURE is the columns FEATURE_a, FEATURE_b of the verdicts, e.g. length)")
    p.add_argument("--coefficients", metavar="FILE",
                   help="with --control: write feature, coefficient, ci_low, ci_high here (each feature's "
                        "log-odds per standard deviation of its normalised difference, bootstrap interval)")


def _check_control_options(args: argparse.Namespace, rating: Any) -> tuple[str, ...] | None:
    """Return the ``--control`` features (None without); refuse bad combinations before the data is read."""
    from manyjudges.arena.leaderboard.estimator import CONTROL_METHODS

    coefficients = getattr(args, "coefficients", None)
    if args.control is None:
        if coefficients:
            raise CommandError("--coefficients needs --control (the coefficients of the controlled features)")
        return None
    names = tuple(n.strip() for n in args.control.split(",") if n.strip())
    if not names:
        raise CommandError("--control needs at least one feature name, e.g. --control length")
    if rating.name not in CONTROL_METHODS:
        raise CommandError(f"--control: the method {args.method} takes no controls (the methods that take "
                           f"controls: {', '.join(CONTROL_METHODS)})")
    if coefficients == "-" or (coefficients and coefficients in (args.output, args.plot, args.html,
                                                                 getattr(args, "judges", None))):
        raise CommandError("--coefficients needs a file of its own (the leaderboard goes to -o or stdout)")
    return names


def _fit_controlled(board: Any, frame: pd.DataFrame, args: argparse.Namespace, progress: Any, where: str) -> Any:
    """Say what was read, check ``--baseline`` and fit ``board`` (with ``control``) on ``frame``.

    Returns the verdicts coded.

    A ValueError (a feature the verdicts lack, a constant one, a bad value) is a DataError naming ``where``.
    """
    from manyjudges.arena.leaderboard.estimator import baseline_code
    from manyjudges.arena.verdict_codes import code_verdicts

    try:
        verdicts = code_verdicts(frame, args.bothbad)
        _show_summary(args, verdicts)
        baseline_code(verdicts, args.baseline)
        board.fit(frame, progress=progress)
    except ValueError as err:
        raise DataError.at(where, None, str(err)) from None
    return verdicts


def _add_length_option(p: argparse.ArgumentParser) -> None:
    """Add ``--length FEATURE`` to ``arena judges``."""
    p.add_argument("--length", metavar="FEATURE",
                   help="the answer feature that is the answers' length (columns FEATURE_a, FEATURE_b): adds "
                        "each judge's length_preference, length_low, length_high (default: length, when the "
                        "verdicts have length_a and length_b; else no such columns)")


def with_length_preference(measures: Any, verdicts: pd.DataFrame, args: argparse.Namespace, where: str) -> Any:
    """Return ``measures`` with the judges' length columns joined.

    The columns are :func:`~manyjudges.arena.length_preference.length_preference`'s. Unchanged when
    ``--length`` is not given and the verdicts have no ``length`` feature; a ``--length`` feature they
    lack is a DataError listing theirs.
    """
    from manyjudges.arena.experiment import with_length_preference as joined
    from manyjudges.io.tables.verdicts import feature_names

    feature = args.length if args.length is not None else ("length" if "length" in feature_names(verdicts) else None)
    if feature is None:
        return measures
    try:
        return joined(measures, verdicts, feature, args.ci)
    except ValueError as err:
        raise DataError.at(where, None, f"--length: {err}" if args.length is not None else str(err)) from None
