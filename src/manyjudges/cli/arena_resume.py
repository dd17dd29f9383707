"""``manyjudges arena leaderboard --save-state FILE`` and ``--resume FILE``: a leaderboard that takes more verdicts.

``--save-state FILE`` writes what the fit needs to take more verdicts
(:class:`~manyjudges.arena.leaderboard.state.LeaderboardState`); ``--resume FILE`` reads such a state and fits its
verdicts and VERDICTS together (:meth:`~manyjudges.arena.leaderboard.estimator.Leaderboard.partial_fit`): the same
table as one pass over all of them. ``manyjudges arena judges --judge-models`` (self-preference) is
:func:`_judge_models_option`.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from manyjudges.cli.terminal import CommandError

#: the EXAMPLES text of ``manyjudges arena leaderboard`` on the two options
_RESUME_EXAMPLE = """

        Incremental fits: --save-state FILE writes what the fit needs to take more verdicts (the method's
        counted cells, the names, the method and its parameters, the fitted scores; with --bootstrap N > 0
        also the verdicts as codes); --resume FILE reads it, codes and counts only VERDICTS (the new
        verdicts) and fits all of them: the same table as one pass over the old and new verdicts together
        (bootstrap intervals too: a state saved with a bootstrap keeps every verdict, so the same units are
        drawn; a state saved with --bootstrap 0 is small, resumes in a time that grows with the new verdicts
        only, and is refused with a bootstrap). With --save-state too it writes the new state (it may be
        the same FILE). The method, --params and --bothbad must be the state's. bradley_terry and
        davidson refit from the saved scores; elo from the counted cells; crowd_bt and judge_aware from one
        pass's own start (their objective has several minima). The file is a numpy .npz archive of numbers
        and one JSON text, read without pickle.

        example (the verdicts.tsv above, then more verdicts that bring a model w):
          manyjudges arena leaderboard verdicts.tsv --bootstrap 0 --save-state board.npz -o board.tsv
          printf 'prompt\\tmodel_a\\tmodel_b\\twinner\\np5\\tx\\tw\\tmodel_a\\np5\\tw\\tz\\tmodel_a\\n' > more.tsv
          manyjudges arena leaderboard more.tsv --bootstrap 0 --resume board.npz --save-state board.npz -o board.tsv
        writes to board.tsv the leaderboard of the verdicts of both files (x, y, z and w), the same as one pass over
        both, and their state to board.npz."""

#: the EXAMPLES text of ``manyjudges arena judges`` on self-preference
_SELF_PREFERENCE_EXAMPLE = """

        Self-preference: a judge that is also a contestant (a model of the same name, or named by
        --judge-models judge=model,...) gets self_preference: on the units (prompt, unordered model pair)
        where its model is one of the two and both it and other judges gave verdicts, its mean score of
        its own model's answer (a win 1, a tie 1/2, a loss 0; both orders pooled) minus the other judges'
        mean score of the same answer (judges that are contestants in that unit left out), averaged over
        the units; self_low, self_high, its paired Wald interval at --ci; self_units, the units. Other
        judges: empty; without any contestant, no such columns.

        example (the judge x is also the model x):
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\n' > self.tsv
          printf '1\\tx\\tx\\ty\\tmodel_a\\n1\\tx\\ty\\tx\\tmodel_b\\n1\\tj\\tx\\ty\\tmodel_b\\n' >> self.tsv
          printf '2\\tx\\tz\\tx\\ttie\\n2\\tj\\tx\\tz\\tmodel_a\\n' >> self.tsv
          manyjudges arena judges self.tsv -o judges.tsv
        writes self_preference 0.25 for x to judges.tsv (its answer scored 1 by x and 0 by j on prompt 1,
        1/2 by x and 1 by j on prompt 2) with self_units 2, and empty cells for j."""


def _add_resume_options(p: argparse.ArgumentParser) -> None:
    """Add ``--save-state FILE`` and ``--resume FILE`` to ``manyjudges arena leaderboard``."""
    p.add_argument("--save-state", metavar="FILE",
                   help="write what the fit needs to take more verdicts here (a .npz file; see below)")
    p.add_argument("--resume", metavar="FILE",
                   help="a state --save-state wrote: fit its verdicts and VERDICTS together, counting only VERDICTS")


def _add_self_preference_options(p: argparse.ArgumentParser) -> None:
    """Add ``--judge-models JUDGE=MODEL,...`` to ``manyjudges arena judges``."""
    p.add_argument("--judge-models", metavar="JUDGE=MODEL,...",
                   help="judges that are contestants under another name (a judge named as a model always is): "
                        "adds their self-preference (self_preference, self_low, self_high, self_units)")


def _judge_models_option(text: str | None) -> dict[str, str]:
    """Return ``--judge-models`` as a mapping judge -> model ({} without it); a malformed entry is a CommandError."""
    if not text:
        return {}
    out: dict[str, str] = {}
    for entry in text.split(","):
        judge, sep, model = entry.partition("=")
        if not sep or not judge.strip() or not model.strip():
            raise CommandError(f"--judge-models: {entry!r} is not JUDGE=MODEL")
        if judge.strip() in out:
            raise CommandError(f"--judge-models: judge {judge.strip()!r} is named twice")
        out[judge.strip()] = model.strip()
    return out


def _load_resume(args: argparse.Namespace, rating: Any) -> Any:
    """Return the state of ``--resume`` (None without it), checked against the method, --params and --bothbad.

    Called before VERDICTS are read; a missing or foreign file, or a state of another method, is a CommandError.
    """
    from manyjudges.arena.leaderboard.state import LeaderboardState

    save = getattr(args, "save_state", None)
    if save and (save == "-" or save in (args.output, args.plot, args.html, getattr(args, "judges", None))):
        raise CommandError("--save-state needs a file of its own")
    if not args.resume:
        return None
    if not Path(args.resume).is_file():
        raise CommandError(f"--resume {args.resume}: no such file")
    try:
        state = LeaderboardState.load(args.resume)
        state.check_same(rating, args.bothbad, f"--resume {args.resume}")
    except ValueError as err:
        raise CommandError(str(err)) from None
    if not state.units and (args.bootstrap or args.html):
        raise CommandError(f"--resume {args.resume} was saved with --bootstrap 0 and keeps no verdicts, which "
                           f"{'a bootstrap resamples' if args.bootstrap else '--html summarises'}: resume with "
                           "--bootstrap 0 and without --html, or save the first state with --bootstrap N > 0 "
                           "(it keeps the verdicts)")
    return state


def _fitted_verdicts(board: Any, verdicts: Any, state: Any) -> Any:
    """Return the coded verdicts the board was fitted on: ``verdicts``, or with ``--resume`` the state's and them."""
    return verdicts if state is None else board.state_.data


def _save_state(args: argparse.Namespace, board: Any) -> None:
    """Write ``--save-state`` (nothing without it); a rating whose parameters JSON cannot write is a CommandError."""
    if not getattr(args, "save_state", None):
        return
    if board.state_ is None:
        raise CommandError("--save-state: the method's parameters cannot be written as JSON")
    board.state_.save(args.save_state)


def _with_self_preference(judges: Any, verdicts: Any, judge_models: dict[str, str], ci: float) -> Any:
    """Return the judges table with :data:`~manyjudges.arena.judges.self_preference.SELF_PREFERENCE_COLUMNS` joined on.

    The columns are added when some judge is a contestant (``judge_models``, or a model of its name); else
    the table is returned as it is. A ``--judge-models`` entry naming no judge or no model is a CommandError.
    """
    from manyjudges.arena.judges.self_preference import SELF_PREFERENCE_COLUMNS, self_preference

    try:
        found = self_preference(verdicts, judge_models, ci)
    except ValueError as err:
        raise CommandError(f"--judge-models: {err}" if judge_models else str(err)) from None
    if found["self_units"].isna().all():
        return judges
    found = found.set_index("judge").reindex([str(j) for j in judges["judge"]])
    return judges.assign(**{c: found[c].array for c in SELF_PREFERENCE_COLUMNS})
