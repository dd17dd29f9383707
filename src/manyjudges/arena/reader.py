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


def read_arena_verdicts(path: str | os.PathLike[str], bothbad: str = "tie", duplicates: str = "keep"
                        ) -> ArenaVerdicts:
    """Read, check and code a verdicts table for the leaderboard.

    Parameters
    ----------
    path : path-like
        A verdicts table (:func:`~manyjudges.io.verdicts.read_verdicts`).
    bothbad : {"tie", "drop"}
        ``tie (bothbad)`` is a tie, or the verdict is left out.
    duplicates : {"keep", "error", "first", "last"}
        A row repeating an earlier row's (prompt, judge, model_a, model_b): one more verdict (``"keep"``, the
        default: a judge may be asked twice), an ``"error"`` naming both lines, or only the ``"first"`` or
        the ``"last"`` counts (:func:`~manyjudges.io.verdicts.read_verdicts`).

    Returns
    -------
    ArenaVerdicts
        Equal to ``code_verdicts(read_verdicts(path, duplicates), bothbad)``.

    Raises
    ------
    DataError
        As :func:`~manyjudges.io.verdicts.read_verdicts`.
    """
    if bothbad not in BOTHBAD_RULES:
        raise ValueError(f"bothbad must be one of {', '.join(BOTHBAD_RULES)}, got {bothbad!r}")
    table, kept = checked_verdicts(path, duplicates, uncoded=())
    sides = [_kept_codes(table, c, kept) for c in ("model_a", "model_b")]
    models = np.asarray(natural_sort(set(sides[0][0]) | set(sides[1][0])), dtype=object)
    a, b = (_recoded(ids, codes, models) for ids, codes in sides)
    winner = np.asarray([WINNERS.index(w) for w in table.values("winner")], dtype=np.int64)[table.indices("winner")]
    prompts, judges = _optional(table, "prompt", kept), _optional(table, "judge", kept)
    winner = winner if kept is None else winner[kept]
    return arena_verdicts(models, a, b, winner, prompts[:2], judges[:2], bothbad, prompts[2], judges[2])


def _kept_codes(table: ColumnarTable, column: str, kept: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values, each kept row's code into them) of ``column``; ``kept`` None: every row.

    A row a duplicates rule leaves out repeats a kept row's prompt, judge, model_a and model_b, so every
    distinct value of those columns is still used.
    """
    codes = table.indices(column)
    return table.values(column), codes if kept is None else codes[kept]


def _recoded(ids: np.ndarray, codes: np.ndarray, names: np.ndarray) -> np.ndarray:
    """Each row's value as its position in ``names`` (int64), from its distinct values ``ids`` and ``codes``."""
    position = {name: k for k, name in enumerate(names)}
    return np.asarray([position[v] for v in ids], dtype=np.int64)[codes]


def _optional(table: ColumnarTable, column: str, kept: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """(ids, each kept row's code, whether the column carries values) of ``prompt`` or ``judge``.

    A column the file lacks, or one that is :data:`~manyjudges.io.verdicts.MISSING` in every row, is one id,
    ``-``, for every row.
    """
    if not table.has(column):
        n_rows = table.n_rows if kept is None else len(kept)
        return np.asarray([MISSING], dtype=object), np.zeros(n_rows, dtype=np.int64), False
    ids, codes = _kept_codes(table, column, kept)
    return ids, codes, not (len(ids) == 1 and ids[0] == MISSING)
