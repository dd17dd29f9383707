"""A verdicts file read straight into codes for the leaderboard: no column of str a row on the way.

:func:`read_arena_verdicts` reads and checks a verdicts table (:func:`~manyjudges.io.verdicts.checked_verdicts`:
the same errors, naming the file, the line and the value, as :func:`~manyjudges.io.verdicts.read_verdicts`)
and codes it from the parsed columns' distinct values: the models of both sides in natural order, the
winners, and the prompts and judges in natural order. The result is the :class:`ArenaVerdicts` that
:func:`~manyjudges.arena.verdict_codes.code_verdicts` makes of the table ``read_verdicts`` returns.
"""
from __future__ import annotations

import os

import numpy as np

from manyjudges.arena.verdict_codes import BOTHBAD_RULES, WINNERS, ArenaVerdicts, arena_verdicts
from manyjudges.core.natural_order import natural_sort
from manyjudges.io.columnar import ColumnarTable
from manyjudges.io.verdicts import MISSING, checked_verdicts

__all__ = ["read_arena_verdicts"]


def read_arena_verdicts(path: str | os.PathLike[str], bothbad: str = "tie") -> ArenaVerdicts:
    """Read, check and code a verdicts table for the leaderboard, every row kept.

    Parameters
    ----------
    path : path-like
        A verdicts table (:func:`~manyjudges.io.verdicts.read_verdicts`).
    bothbad : {"tie", "drop"}
        ``tie (bothbad)`` is a tie, or the verdict is left out.

    Returns
    -------
    ArenaVerdicts
        Equal to ``code_verdicts(read_verdicts(path), bothbad)``.

    Raises
    ------
    DataError
        As :func:`~manyjudges.io.verdicts.read_verdicts`.
    """
    if bothbad not in BOTHBAD_RULES:
        raise ValueError(f"bothbad must be one of {', '.join(BOTHBAD_RULES)}, got {bothbad!r}")
    table, _ = checked_verdicts(path, "keep", uncoded=())
    sides = [table.values(c) for c in ("model_a", "model_b")]
    models = np.asarray(natural_sort(set(sides[0]) | set(sides[1])), dtype=object)
    a, b = (_recoded(table, c, ids, models) for c, ids in zip(("model_a", "model_b"), sides))
    winner = np.asarray([WINNERS.index(w) for w in table.values("winner")], dtype=np.int64)[table.indices("winner")]
    prompts, judges = _optional(table, "prompt"), _optional(table, "judge")
    return arena_verdicts(models, a, b, winner, prompts[:2], judges[:2], bothbad, prompts[2], judges[2])


def _recoded(table: ColumnarTable, column: str, ids: np.ndarray, names: np.ndarray) -> np.ndarray:
    """Each row's ``column`` value as its position in ``names`` (int64), from its distinct values ``ids``."""
    position = {name: k for k, name in enumerate(names)}
    return np.asarray([position[v] for v in ids], dtype=np.int64)[table.indices(column)]


def _optional(table: ColumnarTable, column: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """(ids, each row's code, whether the column carries values) of ``prompt`` or ``judge``.

    A column the file lacks, or one that is :data:`~manyjudges.io.verdicts.MISSING` in every row, is one id,
    ``-``, for every row.
    """
    if not table.has(column):
        return np.asarray([MISSING], dtype=object), np.zeros(table.n_rows, dtype=np.int64), False
    ids = table.values(column)
    return ids, table.indices(column), not (len(ids) == 1 and ids[0] == MISSING)
