"""A verdicts table as integer codes: the one coder of the leaderboard, the judge measures and the judge-aware verdicts.

A **verdicts** table has one row per verdict of a judge on two answers to a prompt, the string
columns ``model_a, model_b, winner`` and, optionally, ``prompt`` and ``judge``
(:data:`~manyjudges.io.tables.verdicts.VERDICT_COLUMNS`); ``model_a`` is the answer shown FIRST and
``winner`` one of ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)`` (Chatbot Arena's words).
A column the file lacked is read as :data:`~manyjudges.io.tables.verdicts.MISSING` (``-``) in every row,
which counts as no such column.

Models, prompts and judges are coded in natural order (:func:`~manyjudges.core.natural_order.natural_sort`:
numerically when every id is a digit string, else by code point), so the codes, and every number
computed from them, do not depend on the order of the rows. Two views of the same coding:

- :func:`code_verdicts`, one row per verdict (:class:`ArenaVerdicts`, rows in a canonical order),
  which the leaderboard sums into cells (:mod:`manyjudges.arena.leaderboard.cells`);
- :func:`code_units`, several tables (a panel's and a reference's) on one shared coding of their
  **units** (prompt, unordered model pair), each verdict classed **as shown** (0 = the answer shown
  first wins, 1 = the one shown second, 2 = tie) and **canonically** (0 = ``model_1`` wins,
  1 = ``model_2`` wins, 2 = tie, ``model_1`` before ``model_2`` in natural order); a verdict is
  ``swapped`` when ``model_2`` was shown first.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import pandas as pd

from manyjudges.core.length import LengthOf
from manyjudges.core.natural_order import natural_sort
from manyjudges.core.packed_keys import fits, pack, unpack
from manyjudges.core.sorting import sort_in_place
from manyjudges.io.tables.verdicts import MISSING
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS as TABLE_COLUMNS
from manyjudges.io.tables.verdicts import WINNERS as TABLE_WINNERS

__all__ = [
    "VERDICT_COLUMNS", "WINNERS", "ArenaVerdicts", "Coded", "CodedUnits", "arena_verdicts", "code_columns",
    "code_units", "code_verdicts", "judge_ids", "optional_codes", "winner_codes",
]

VERDICT_COLUMNS = tuple(TABLE_COLUMNS)
#: the columns every verdicts table has (``prompt`` and ``judge`` are optional)
_REQUIRED_COLUMNS = ("model_a", "model_b", "winner")
#: the values of ``winner``, in the order of their codes 0..3
WINNERS = tuple(TABLE_WINNERS)
#: each winner code's class as shown: 0 the answer shown first wins, 1 the one shown second, 2 tie
SHOWN_CLASS = np.array([0, 1, 2, 2], dtype=np.int64)
#: what a ``tie (bothbad)`` verdict is: a tie like any other, or dropped
_BOTHBAD_RULES = ("tie", "drop")


#: one column as codes: (each row's index into the distinct values, the distinct values as text)
Coded: TypeAlias = tuple[np.ndarray, Sequence[str] | np.ndarray]


def _factorized(values: pd.Series | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(codes, distinct values as text, first-seen order) of a column; a missing value reads as "".

    A str column is hashed as it is stored (Arrow's dictionary encoding under pandas 3: no Python str a row);
    other columns as Python objects, so that values that read the same (1 and "1") can be joined later.
    """
    series = pd.Series(values)
    if isinstance(series.dtype, pd.StringDtype):
        codes, distinct = pd.factorize(series.fillna(""), sort=False)
        return codes.astype(np.int64), [str(u) for u in distinct]
    codes, uniques = pd.factorize(series.to_numpy(dtype=object, na_value=""), sort=False)
    return codes.astype(np.int64), [str(u) for u in uniques]


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _present_columns(frame: pd.DataFrame) -> list[str]:
    """Return the verdict columns of ``frame`` that carry values.

    These are the required ones (a ValueError if one is missing) and ``prompt`` / ``judge`` unless
    absent or :data:`MISSING` in every row.
    """
    missing = [c for c in _REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a verdicts table needs the columns {', '.join(_REQUIRED_COLUMNS)} (prompt and judge "
                         f"optional); missing {', '.join(missing)}")
    return [c for c in VERDICT_COLUMNS
            if c in _REQUIRED_COLUMNS or (c in frame.columns and not bool((frame[c] == MISSING).all()))]


def _verdict_fault(frame: pd.DataFrame) -> tuple[int, str, object] | None:
    """Return the first faulty row of a verdicts table, as (0-based row position, reason, value), or None.

    Faults, in this order within a row: an empty or missing field (in column order), a ``winner``
    that is not one of :data:`WINNERS`, ``model_a == model_b``. A missing required column is a
    ValueError. The checks run on each column's distinct values, not on every row (:func:`_coded_fault`).
    """
    return _coded_fault(_coded_columns(frame))


def _coded_columns(frame: pd.DataFrame) -> dict[str, Coded]:
    """Return the verdict columns of ``frame`` that carry values (:func:`_present_columns`), each as :data:`Coded`."""
    return {c: _factorized(frame[c]) for c in _present_columns(frame)}


def _coded_fault(coded: dict[str, Coded]) -> tuple[int, str, object] | None:
    """Return the first faulty row of coded verdict columns, as (row, reason, value), or None (:func:`_verdict_fault`).

    ``coded`` holds ``model_a``, ``model_b``, ``winner`` and the optional columns that carry values, in
    :data:`VERDICT_COLUMNS` order.
    """
    blank = {c: np.asarray([not u.strip() for u in uniques], dtype=bool)[codes]
             for c, (codes, uniques) in coded.items()}
    faults: list[tuple[int, int, str, object]] = []
    for order, column in enumerate(coded):
        row = _first(blank[column])
        if row is not None:
            codes, uniques = coded[column]
            faults.append((row, order, f"empty {column}", uniques[codes[row]]))
    codes, uniques = coded["winner"]
    row = _first(~np.isin(np.asarray(uniques, dtype=object), WINNERS)[codes] & ~blank["winner"])
    if row is not None:
        faults.append((row, 10, f"winner must be one of {', '.join(WINNERS)}", uniques[codes[row]]))
    (a, a_ids), (b, b_ids) = coded["model_a"], coded["model_b"]
    # each model_b value's code among model_a's, -1: none
    b_as_a = pd.Index(np.asarray(a_ids, dtype=object), dtype=object).get_indexer(
        pd.Index(np.asarray(b_ids, dtype=object), dtype=object))
    row = _first((a == b_as_a[b]) & ~blank["model_a"])
    if row is not None:
        faults.append((row, 11, "model_a and model_b are the same model", a_ids[a[row]]))
    if not faults:
        return None
    row, _, reason, value = min(faults, key=lambda f: (f[0], f[1]))
    return row, reason, value


def _check_verdicts(frame: pd.DataFrame, name: str = "verdicts") -> dict[str, Coded]:
    """Raise a ValueError on the first faulty row (:func:`_verdict_fault`) or on a table without rows.

    The error names ``name``, the row (its index label) and the value. Returns the checked columns as coded
    (:func:`_coded_columns`), for :func:`code_columns`.
    """
    if len(frame) == 0:
        raise ValueError(f"{name}: no verdicts")
    coded = _coded_columns(frame)
    fault = _coded_fault(coded)
    if fault is not None:
        row, reason, value = fault
        raise ValueError(f"{name}, row {frame.index[row]!r}: {reason}: {value!r}")
    return coded


def _natural_codes(*columns: pd.Series) -> tuple[np.ndarray, list[np.ndarray]]:
    """Return the distinct texts of several columns together in natural order, and each column's codes.

    Each column is coded into those texts; values that differ but read the same, such as 1 and "1",
    share a code.
    """
    return _joint_codes(*(_factorized(c) for c in columns))


def _joint_codes(*coded: Coded) -> tuple[np.ndarray, list[np.ndarray]]:
    """Return the distinct texts of several coded columns together in natural order, and each column's codes.

    Each column (:data:`Coded`) is recoded into those texts (int64), through its distinct values only.
    """
    names = np.asarray(natural_sort(set().union(*(set(u) for _, u in coded))), dtype=object)
    lookup = {name: i for i, name in enumerate(names)}
    return names, [np.array([lookup[x] for x in u], dtype=np.int64)[c] for c, u in coded]


def _optional_codes(frame: pd.DataFrame, column: str, present: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, codes) of an optional column; an absent one is one id, :data:`MISSING`, for every row."""
    return optional_codes(_factorized(frame[column]) if column in present else None, len(frame))[:2]


def optional_codes(coded: Coded | None, n_rows: int, natural: bool = False) -> tuple[np.ndarray, np.ndarray, bool]:
    """(ids in natural order, each row's code, whether the column carries values) of ``prompt`` or ``judge``.

    A column that is absent (None) or :data:`MISSING` in every row is one id, ``-``, for every row. ``natural``:
    the distinct values are in natural order already (a parsed file's), used as they are.
    """
    if coded is None or (len(coded[1]) == 1 and coded[1][0] == MISSING):
        return np.asarray([MISSING], dtype=object), np.zeros(n_rows, dtype=np.int64), False
    if natural:
        return np.asarray(coded[1], dtype=object), coded[0], True
    ids, (codes,) = _joint_codes(coded)
    return ids, codes, True


def judge_ids(frame: pd.DataFrame) -> np.ndarray:
    """Return the judges of a verdicts table in natural order (the order of every judge table).

    Without a judge column there is one judge, :data:`MISSING`.
    """
    return _optional_codes(frame, "judge", _present_columns(frame))[0]


def _winner_codes(frame: pd.DataFrame) -> np.ndarray:
    """Each row's winner as its index in :data:`WINNERS` (checked beforehand)."""
    return winner_codes(_factorized(frame["winner"]))


def winner_codes(coded: Coded) -> np.ndarray:
    """Each row's winner as its index in :data:`WINNERS`, from the coded column (checked beforehand)."""
    codes, uniques = coded
    return np.asarray([WINNERS.index(w) for w in uniques], dtype=np.int64)[codes]


@dataclass(frozen=True)
class ArenaVerdicts:
    """Verdicts as codes, one row per verdict in canonical order (by model_a, model_b, winner, prompt, judge codes).

    Attributes
    ----------
    models, prompts, judges : numpy.ndarray of str
        In natural order (a missing prompt or judge column: one prompt or judge named
        :data:`~manyjudges.io.tables.verdicts.MISSING`, ``-``).
    model_a, model_b, prompt, judge : numpy.ndarray of int, shape (p,)
        The codes of each verdict.
    winner : numpy.ndarray of int8, shape (p,)
        0 model_a, 1 model_b, 2 tie (``tie (bothbad)`` is 2 too, or dropped).
    has_prompt, has_judge : bool
        Whether the table had the column (not only the reader's fill-in '-').
    """

    models: np.ndarray
    prompts: np.ndarray
    judges: np.ndarray
    model_a: np.ndarray
    model_b: np.ndarray
    winner: np.ndarray
    prompt: np.ndarray
    judge: np.ndarray
    has_prompt: bool
    has_judge: bool

    #: Number of models.
    n_models = LengthOf("models")
    #: Number of verdicts (rows).
    n_verdicts = LengthOf("winner")


def code_verdicts(verdicts: pd.DataFrame, bothbad: str = "tie") -> ArenaVerdicts:
    """Return the verdicts table as :class:`ArenaVerdicts`, checked first (:func:`_check_verdicts`).

    ``bothbad``: ``"tie"`` (default) reads ``tie (bothbad)`` as a tie, ``"drop"`` leaves those
    verdicts out.
    """
    _check_bothbad(bothbad)
    return code_columns(_check_verdicts(verdicts), len(verdicts), bothbad)


def _check_bothbad(bothbad: str) -> None:
    """Raise a ValueError unless ``bothbad`` is one of :data:`_BOTHBAD_RULES`."""
    if bothbad not in _BOTHBAD_RULES:
        raise ValueError(f"bothbad must be one of {', '.join(_BOTHBAD_RULES)}, got {bothbad!r}")


def code_columns(coded: Mapping[str, Coded], n_rows: int, bothbad: str, natural: bool = False) -> ArenaVerdicts:
    """Return :class:`ArenaVerdicts` of checked, coded verdict columns: the one coder of a frame and of a file.

    ``coded`` maps ``model_a``, ``model_b``, ``winner`` and the optional ``prompt`` and ``judge`` (absent:
    none) to :data:`Coded`; ``n_rows`` is the number of verdicts. The models of both sides are coded together in
    natural order (:func:`_joint_codes`), the winners by :data:`WINNERS`, the prompts and judges in natural order
    (:func:`optional_codes`; ``natural``: their distinct values are in natural order already, as a parsed file's
    are). :func:`code_verdicts` codes a frame with it, :func:`~manyjudges.arena.reader.read_arena_verdicts` a file.
    """
    models, (a, b) = _joint_codes(coded["model_a"], coded["model_b"])
    prompts, judges = (optional_codes(coded.get(c), n_rows, natural) for c in ("prompt", "judge"))
    return arena_verdicts(models, a, b, winner_codes(coded["winner"]), prompts[:2], judges[:2], bothbad,
                          has_prompt=prompts[2], has_judge=judges[2])


def arena_verdicts(models: np.ndarray, a: np.ndarray, b: np.ndarray, winner: np.ndarray,
                   prompts: tuple[np.ndarray, np.ndarray], judges: tuple[np.ndarray, np.ndarray], bothbad: str,
                   has_prompt: bool, has_judge: bool) -> ArenaVerdicts:
    """Return :class:`ArenaVerdicts` of coded verdicts, rows in canonical order.

    ``a``, ``b`` index ``models``, ``winner`` :data:`WINNERS` (0..3), and ``prompts`` and ``judges`` are
    (ids, each row's code). ``bothbad`` says what ``tie (bothbad)`` is (:data:`_BOTHBAD_RULES`). The canonical
    order is by (model_a, model_b, winner, prompt, judge) code: one int64 key a verdict holding the five
    codes (:func:`~manyjudges.core.packed_keys.pack`), sorted and read back (equal keys are equal rows), or
    ``np.lexsort`` when the key would not fit.
    """
    (prompt_ids, prompt), (judge_ids, judge) = prompts, judges
    keep = None if bothbad == "tie" else winner != 3
    if keep is not None:
        a, b, winner, prompt, judge = a[keep], b[keep], winner[keep], prompt[keep], judge[keep]
    code = np.minimum(winner, 2).astype(np.int8)
    columns = [a, b, code, prompt, judge]
    sizes = [len(models), len(models), 3, len(prompt_ids), len(judge_ids)]
    if fits(sizes):
        key = pack(columns, sizes)
        sort_in_place(key)
        columns = unpack(key, sizes)
    else:
        order = np.lexsort(columns[::-1])
        columns = [column[order] for column in columns]
    a, b, prompt, judge = (np.asarray(c, dtype=np.int64) for c in (columns[0], columns[1], columns[3], columns[4]))
    code = columns[2].astype(np.int8)
    return ArenaVerdicts(models=models, prompts=prompt_ids, judges=judge_ids, model_a=a, model_b=b, winner=code,
                         prompt=prompt, judge=judge, has_prompt=has_prompt, has_judge=has_judge)


@dataclass(frozen=True)
class CodedUnits:
    """The verdicts of several tables (a panel's and a reference's) on one shared coding of the units.

    Attributes
    ----------
    units : pandas.DataFrame
        ``prompt, model_1, model_2`` of each unit, in natural order of the codes; ``model_1`` before
        ``model_2`` in natural order.
    models : numpy.ndarray
        The models of all the tables, in natural order.
    tables : list of dict
        Per table, arrays over its rows (in the table's order): ``judge`` (code into ``judges``),
        ``unit`` (row of ``units``), ``shown`` (0/1/2 as shown), ``swapped`` (model_2 shown first)
        and ``canonical`` (0/1/2), and ``judges``, the table's judge ids in natural order (a pandas
        Index; one judge, ``-``, for a table without a judge column).
    """

    units: pd.DataFrame
    models: np.ndarray
    tables: list[dict]

    @property
    def n_units(self) -> int:
        """Number of units (rows of ``units``)."""
        return len(self.units)


def code_units(*frames: pd.DataFrame) -> CodedUnits:
    """Code verdicts tables (checked beforehand with :func:`_check_verdicts`) on one unit coding.

    Parameters
    ----------
    *frames : pandas.DataFrame
        Verdicts tables; their units are coded together, so the same (prompt, unordered pair)
        has the same code in each.

    Returns
    -------
    CodedUnits
    """
    present = [_present_columns(f) for f in frames]
    if any("prompt" in p for p in present):
        prompt_ids, prompts = _natural_codes(*(f["prompt"] if "prompt" in p else pd.Series([MISSING] * len(f))
                                               for f, p in zip(frames, present)))
    else:
        prompt_ids, prompts = np.asarray([MISSING], dtype=object), [np.zeros(len(f), dtype=np.int64) for f in frames]
    model_ids, models = _natural_codes(*(f[c] for f in frames for c in ("model_a", "model_b")))
    n_models = max(len(model_ids), 1)
    if len(prompt_ids) * n_models * n_models >= np.iinfo(np.int64).max:
        raise ValueError("too many prompts and models to code the units in 64 bits")
    keys, swapped = [], []
    for k in range(len(frames)):
        a, b = models[2 * k], models[2 * k + 1]
        swapped.append(a > b)
        keys.append((prompts[k] * n_models + np.minimum(a, b)) * n_models + np.maximum(a, b))
    distinct, unit = np.unique(np.concatenate(keys), return_inverse=True)
    unit = np.asarray(unit).reshape(-1)
    units = pd.DataFrame({"prompt": prompt_ids[distinct // (n_models * n_models)],
                          "model_1": model_ids[(distinct // n_models) % n_models],
                          "model_2": model_ids[distinct % n_models]})
    tables = []
    start = 0
    for frame, columns, key, turned in zip(frames, present, keys, swapped):
        judge_ids, judge = _optional_codes(frame, "judge", columns)
        shown = SHOWN_CLASS[_winner_codes(frame)]
        canonical = np.where(turned & (shown < 2), 1 - shown, shown)
        tables.append({"judge": judge, "judges": pd.Index(judge_ids, name="judge", dtype=object),
                       "unit": unit[start:start + len(key)], "shown": shown, "swapped": turned,
                       "canonical": canonical})
        start += len(key)
    return CodedUnits(units=units, models=model_ids, tables=tables)
