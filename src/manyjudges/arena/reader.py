"""A verdicts file read straight into codes for the leaderboard: no column of str a row on the way.

:func:`read_arena_verdicts` reads and checks a verdicts table (:func:`~manyjudges.io.tables.verdicts.checked_verdicts`:
the same errors, naming the file, the line and the value, as :func:`~manyjudges.io.tables.verdicts.read_verdicts`)
and codes it from the parsed columns' distinct values with the one coder of a verdicts table
(:func:`~manyjudges.arena.verdict_codes.code_columns`): the models of both sides in natural order, the
winners, and the prompts and judges in natural order. The result is the :class:`ArenaVerdicts` that
:func:`~manyjudges.arena.verdict_codes.code_verdicts` makes of the table ``read_verdicts`` returns.
"""
from __future__ import annotations

import os

from manyjudges.arena.verdict_codes import VERDICT_COLUMNS, ArenaVerdicts, _check_bothbad, code_columns
from manyjudges.io.tables.verdicts import checked_verdicts

__all__ = ["read_arena_verdicts"]


def read_arena_verdicts(path: str | os.PathLike[str], bothbad: str = "tie", duplicates: str = "keep"
                        ) -> ArenaVerdicts:
    """Read, check and code a verdicts table for the leaderboard.

    Parameters
    ----------
    path : path-like
        A verdicts table (:func:`~manyjudges.io.tables.verdicts.read_verdicts`).
    bothbad : {"tie", "drop"}
        ``tie (bothbad)`` is a tie, or the verdict is left out.
    duplicates : {"keep", "error", "first", "last"}
        What a repeated (prompt, judge, model_a, model_b) row means
        (:func:`~manyjudges.io.tables.verdicts.read_verdicts`): one more verdict (default), an error naming both
        lines, or only the first or the last counts.

    Returns
    -------
    ArenaVerdicts
        Equal to ``code_verdicts(read_verdicts(path, duplicates), bothbad)``.

    Raises
    ------
    DataError
        As :func:`~manyjudges.io.tables.verdicts.read_verdicts`.
    """
    _check_bothbad(bothbad)
    table, kept = checked_verdicts(path, duplicates, uncoded=())
    # a row a duplicates rule leaves out repeats a kept row's prompt, judge and models: their values all stay used
    coded = {}
    for column in (c for c in VERDICT_COLUMNS if table.has(c)):
        codes, distinct = table.codes(column)
        coded[column] = (codes if kept is None else codes[kept], distinct.to_numpy(zero_copy_only=False))
    return code_columns(coded, table.n_rows if kept is None else len(kept), bothbad, natural=True)
