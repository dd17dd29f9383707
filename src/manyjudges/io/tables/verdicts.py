"""The canonical ``verdicts`` table: pairwise verdicts of judges (people or LLMs) on two models' answers.

``verdicts`` = ``prompt, judge, model_a, model_b, winner``, all str, one row per verdict, in Chatbot
Arena's format (Chiang et al., "Chatbot Arena: An Open Platform for Evaluating LLMs by Human
Preference", ICML 2024): ``judge`` compared the answers of ``model_a`` and ``model_b`` to ``prompt``
and ``winner`` says which was better:

- ``model_a`` is the answer shown **first** to the judge (on the left, or as "Assistant 1"),
  ``model_b`` the one shown second, so that position bias can be measured;
- ``winner`` is one of :data:`WINNERS`: ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``
  (Arena's tie where both answers are bad); the four stay distinct in the table, and what a tie
  counts for is the leaderboard's choice.

Read by :func:`~manyjudges.io.engine.columnar.read_columns`: a TSV, or a CSV when the name ends in ``.csv``;
the columns in any order; ``worker`` is read as ``judge``, ``question_id`` or ``topic`` as ``prompt``;
other columns (Arena's ``turn``, ``tstamp``, ``conversation_a`` ...) are ignored with an
:class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`, but for the numbers that ``read_verdicts(path,
extras=True)`` keeps (:func:`extra_columns`): ``p_b``, the judge's probability that model_b's answer is the
better (AlpacaEval's soft preference, less 1), and answer features, a pair of columns ``NAME_a, NAME_b``
per feature (``length_a, length_b``: the lengths of the answers shown first and second). ``judge`` and
``prompt`` are optional: a file without one is read as one judge, or one prompt, named :data:`MISSING`
(``-``). Errors name the file, the line and the value, at the first faulty row in file order.

A crowd's ``preferences`` table (``topic, judge, left, right, outcome``;
:mod:`manyjudges.io.tables.preferences`) is a verdicts table under other names
(:func:`verdicts_from_preferences`): the left item was shown first. :func:`read_verdicts_or_preferences`
reads either, by its header. The published LLM-judge sets are parsed into verdicts by
:mod:`manyjudges.io.sources.verdict_sources`. See ``docs/data.md``.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from manyjudges.io.engine.checks import (
    Fault,
    _duplicate_judgments,
    _empty_fields,
    _first_fault,
    _raise_earliest,
    _same_on_both_sides,
)
from manyjudges.io.engine.columnar import (
    ColumnarTable,
    ExtraColumnsWarning,
    TableLayout,
    _delimiter_of,
    read_columns,
    read_header,
)
from manyjudges.io.engine.errors import DataError
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.preferences import _OUTCOMES, _PREFERENCE_COLUMNS, DUPLICATE_RULES, read_preferences

__all__ = [
    "MISSING", "VERDICT_COLUMNS", "WINNERS", "check_features", "checked_verdicts", "extra_columns", "feature_names",
    "read_verdicts", "read_verdicts_or_preferences", "verdicts_frame", "verdicts_from_preferences", "write_verdicts",
]

PathLike = str | os.PathLike[str]
#: a column of :func:`verdicts_frame`: one value per row, or one str for every row
Column: TypeAlias = str | Sequence[Any] | np.ndarray | pd.Series
#: the columns of a verdicts table, in the order they are written
VERDICT_COLUMNS = ["prompt", "judge", "model_a", "model_b", "winner"]
#: the values of ``winner``: the first shown model's answer won, the second's, a tie, a tie of two bad answers
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
#: the judge (or prompt) of every row of a file without a judge (or prompt) column
MISSING = "-"
_VERDICTS_LAYOUT = TableLayout("verdicts table", tuple(VERDICT_COLUMNS), optional=("prompt", "judge"))
#: the column of a verdict's soft preference: the judge's probability that model_b's answer is the better
_SOFT_PREFERENCE = "p_b"
#: a preferences outcome -> its winner (the left item was shown first: it is model_a)
_FROM_OUTCOME = {"left": "model_a", "right": "model_b", "tie": "tie"}


def _pair_faults(table: ColumnarTable, columns: list[str], first: str, second: str, outcome: str,
                outcomes: tuple[str, ...], uncoded: Collection[str] = ()) -> list[Fault | None]:
    """Return the faults of a table of pairwise verdicts, each at its first row.

    The faults: an empty or whitespace-only field of ``columns`` ("empty <column>"), an ``outcome`` not
    among ``outcomes``, and a model compared with itself (``first`` == ``second``), in that order among
    faults of one row. The columns of ``uncoded`` are checked row by row on their parsed text, not through
    codes (:func:`_empty_fields`); so are the outcome and the two models when all three are among them and
    were parsed as text.
    """
    faults: list[Fault | None] = [_empty_fields(table, columns, uncoded=uncoded)]
    reason = f"{outcome} must be {', '.join(outcomes[:-1])} or {outcomes[-1]}"
    text = _parsed_text(table, [outcome, first, second], uncoded)
    if text is not None:  # row by row, on the text as parsed
        known = pa.array([*outcomes, ""], type=pa.string())
        faults.append(_first_row(table, outcome, pc.invert(pc.is_in(text[0], value_set=known)), reason,
                                 len(columns)))
        same_rows = pc.and_(pc.equal(text[1], text[2]), pc.not_equal(text[1], ""))
        faults.append(_first_row(table, first, same_rows, _SAME_MODEL.format(first=first, second=second),
                                 len(columns) + 1))
        return faults
    values = table.codes(outcome)[1].to_numpy(zero_copy_only=False)
    faults.append(_first_fault(table, outcome, ~np.isin(values, outcomes) & (values != ""), reason,
                              order=len(columns)))
    same = _same_on_both_sides(table, first, second)
    if len(same):
        faults.append(Fault(int(same[0]), len(columns) + 1, _SAME_MODEL.format(first=first, second=second),
                            table.field(first, int(same[0]))))
    return faults


#: the reason of a verdict whose two sides are one model
_SAME_MODEL = "{first} and {second} are the same model (a model against itself)"


def _parsed_text(table: ColumnarTable, columns: list[str], uncoded: Collection[str]) -> list[pa.ChunkedArray] | None:
    """Return ``columns`` as parsed when every one of them is in ``uncoded`` and was parsed as text, else None."""
    parsed = [table.columns.get(c) for c in columns]
    if all(c in uncoded for c in columns) and all(p is not None and pa.types.is_string(p.type) for p in parsed):
        return parsed  # type: ignore[return-value]
    return None


def _first_row(table: ColumnarTable, column: str, flagged: pa.ChunkedArray, reason: str, order: int) -> Fault | None:
    """Return the fault at the first row ``flagged`` (a boolean column), naming its ``column`` field, or None."""
    hits = np.flatnonzero(np.asarray(flagged.to_numpy(zero_copy_only=False), dtype=bool))
    return Fault(int(hits[0]), order, reason, table.field(column, int(hits[0]))) if len(hits) else None


def verdicts_frame(prompt: Column, judge: Column, model_a: Column, model_b: Column, winner: Column) -> pd.DataFrame:
    """Build a verdicts table from its five columns (sequences, or one str for every row), every column str."""
    columns = dict(zip(VERDICT_COLUMNS, (prompt, judge, model_a, model_b, winner)))
    n = max((len(v) for v in columns.values() if not isinstance(v, str)), default=0)
    return pd.DataFrame({c: _text_series(v, n) for c, v in columns.items()})


def _text_series(values: Column | pd.Series, n: int) -> pd.Series:
    """Return one column of a verdicts table as a str Series: a Series as it is, one str repeated ``n`` times."""
    if isinstance(values, pd.Series):
        if values.dtype == pd.StringDtype(na_value=np.nan) and isinstance(values.index, pd.RangeIndex) \
                and values.index.start == 0 and values.index.step == 1:
            return values  # str already, indexed 0 .. n-1
        return values.astype(str).reset_index(drop=True)
    if isinstance(values, str):
        return _repeated_text(values, n).to_pandas() if n else pd.Series([], dtype=str)
    return pd.Series(np.asarray(values, dtype=object), dtype=str)


def _repeated_text(value: str, n: int) -> pa.Array:
    """Return ``value`` ``n`` times as an Arrow string array, its buffers made by numpy (offsets 0, w, 2w, ...)."""
    data = value.encode()
    if n * len(data) >= np.iinfo(np.int32).max:
        return pa.repeat(pa.scalar(value), n)
    offsets = np.arange(n + 1, dtype=np.int32) * np.int32(len(data))
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data * n))


def extra_columns(header: Sequence[str]) -> list[str]:
    """Return the numeric columns a verdicts header may carry beside :data:`VERDICT_COLUMNS`, in header order.

    They are :data:`_SOFT_PREFERENCE` (``p_b``) and both columns of every answer feature: a name NAME
    (not ``model``) such that the header has ``NAME_a`` and ``NAME_b``.
    """
    names = [name.strip() for name in header]
    features = set(feature_names(names))
    return [n for n in names if n == _SOFT_PREFERENCE or (n[-2:] in ("_a", "_b") and n[:-2] in features)]


def feature_names(columns: Sequence[str] | pd.DataFrame) -> list[str]:
    """Return the answer features of a verdicts table: each NAME (not ``model``) with columns ``NAME_a`` and ``NAME_b``.

    In the order of their ``NAME_a`` columns; ``columns`` is a header or a frame.
    """
    names = [str(c) for c in (columns.columns if isinstance(columns, pd.DataFrame) else columns)]
    return [n[:-2] for n in names if n.endswith("_a") and n != "model_a" and f"{n[:-2]}_b" in names]


def check_features(names: Sequence[str], have: Sequence[str]) -> None:
    """Raise a ValueError naming the first of ``names`` that is not among the features ``have``, listing those."""
    missing = [name for name in names if name not in have]
    if missing:
        raise ValueError(f"the verdicts have no feature {missing[0]!r} (no columns {missing[0]}_a and "
                         f"{missing[0]}_b); their features (NAME_a, NAME_b pairs): {', '.join(have) or 'none'}")


def _without_partial_features(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` without the columns of any answer feature that some row lacks (NaN): files joined.

    A feature is a pair ``NAME_a, NAME_b`` (:func:`feature_names`): one file with the lengths and one
    without give no lengths, rather than lengths for some verdicts.
    """
    partial = [c for name in feature_names(frame) for c in (f"{name}_a", f"{name}_b")
               if frame[[f"{name}_a", f"{name}_b"]].isna().any(axis=None)]
    return frame.drop(columns=partial) if partial else frame


def _extra_numbers(table: ColumnarTable, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Parse the extra columns as float64.

    A ``p_b`` field that is not a probability in [0, 1] is a DataError naming its line. A pair ``NAME_a,
    NAME_b`` with a field that is not a finite number is no answer feature (Chatbot Arena's
    ``conversation_a, conversation_b`` are text): both are left out with an ExtraColumnsWarning, as the
    other columns a verdicts table does not use.
    """
    numbers, text_pairs = {}, []
    for column in columns:
        text = table.strings(column)
        values = pd.to_numeric(text.str.strip(), errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if column == _SOFT_PREFERENCE:
            bad |= (values < 0) | (values > 1)
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise table.error(row, f"{column} must be a probability in [0, 1]", text.iloc[row])
        elif bad.any():
            text_pairs.append(column[:-2])
        numbers[column] = values
    dropped = [c for c in columns if c != _SOFT_PREFERENCE and c[:-2] in text_pairs]
    if dropped:
        warnings.warn(f"{table.path}: ignoring column(s) {', '.join(map(repr, dropped))} (not numbers in every "
                      "row: not an answer feature)", ExtraColumnsWarning, stacklevel=3)
    return {c: v for c, v in numbers.items() if c not in dropped}


def read_verdicts(path: PathLike, duplicates: str = "keep", extras: bool = False) -> pd.DataFrame:
    """Read and validate a verdicts table (columns :data:`VERDICT_COLUMNS`, all str, rows in file order).

    Parameters
    ----------
    path : path-like
        A TSV, or a CSV when the name ends in ``.csv``, with a header naming ``model_a``,
        ``model_b``, ``winner`` and optionally ``judge`` (or ``worker``) and ``prompt`` (or
        ``question_id``, ``topic``); a missing judge or prompt column is :data:`MISSING` in every row.
    duplicates : {"keep", "error", "first", "last"}
        A row repeating an earlier row's (prompt, judge, model_a, model_b) is one more verdict,
        every row kept (``"keep"``, the default: a judge may see a pair twice), or an ``"error"``
        naming both lines, or only the ``"first"`` or the ``"last"`` of them counts.
    extras : bool
        Also keep the file's :func:`extra_columns` (``p_b`` and answer features ``NAME_a, NAME_b``, a pair
        whose every field is a finite number), as float64 columns after the five, in header order.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``; ``model_a`` is the answer shown first.

    Raises
    ------
    DataError
        Naming the file, line and value, at the first faulty row in file order: a header without
        ``model_a``, ``model_b`` or ``winner``, a wrong field count, an empty judge, model or prompt
        (or winner), a winner not among :data:`WINNERS`, a model against itself (``model_a ==
        model_b``), or a repeated row (with ``duplicates="error"``); with ``extras``, a ``p_b`` that is not
        a number in [0, 1] (a pair ``NAME_a, NAME_b`` that is not numbers is left out with a warning).
    """
    extra = extra_columns(read_header(path)) if extras else []
    layout = TableLayout(_VERDICTS_LAYOUT.name, (*_VERDICTS_LAYOUT.columns, *extra),
                         optional=(*_VERDICTS_LAYOUT.optional, *extra)) if extra else _VERDICTS_LAYOUT
    table, kept = checked_verdicts(path, duplicates, uncoded=VERDICT_COLUMNS, layout=layout)
    numbers = _extra_numbers(table, extra)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # Arrow's casts let go of Python's lock
        columns = list(pool.map(lambda c: table.strings(c) if table.has(c) else MISSING, VERDICT_COLUMNS))
    frame = verdicts_frame(*columns)
    for column, values in numbers.items():
        frame[column] = values
    if kept is not None:
        frame = frame.iloc[kept].reset_index(drop=True)
    return frame


def checked_verdicts(path: PathLike, duplicates: str = "keep", uncoded: Collection[str] = ("prompt",),
                     layout: TableLayout = _VERDICTS_LAYOUT) -> tuple[ColumnarTable, np.ndarray | None]:
    """Read a verdicts table's columns and check them, as :func:`read_verdicts` does, without a frame of str.

    Returns the table as parsed (:class:`~manyjudges.io.engine.columnar.ColumnarTable`) and the rows ``duplicates``
    keeps (None: every row). The columns of ``uncoded`` are parsed as text, checked row by row and not
    coded, unless repeats are looked for (``duplicates`` other than ``"keep"``). ``layout`` may add optional
    columns to :data:`_VERDICTS_LAYOUT` (:func:`read_verdicts`'s extras).
    """
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    uncoded = uncoded if duplicates == "keep" else ()
    table = read_columns(path, layout, text=uncoded)
    present = [c for c in VERDICT_COLUMNS if table.has(c)]
    faults = _pair_faults(table, present, "model_a", "model_b", "winner", WINNERS, uncoded=uncoded)
    repeat, kept = _duplicate_judgments(table, [c for c in VERDICT_COLUMNS[:4] if table.has(c)], duplicates)
    faults.append(repeat)
    _raise_earliest(table, faults)
    return table, kept


def write_verdicts(verdicts: pd.DataFrame, path: PathLike) -> None:
    """Write a verdicts table atomically, header ``prompt, judge, model_a, model_b, winner``.

    Then the table's :func:`extra_columns` (``p_b``, answer features ``NAME_a, NAME_b``), if it has any, in
    its order. A TSV, or CSV if the name ends in ``.csv``. A ValueError names a missing column or a winner
    not among :data:`WINNERS` (the table is checked before anything is written).
    """
    missing = [c for c in VERDICT_COLUMNS if c not in verdicts.columns]
    if missing:
        raise ValueError(f"a verdicts table needs the columns {', '.join(VERDICT_COLUMNS)}; missing {missing}")
    bad = sorted(set(verdicts["winner"].astype(str)) - set(WINNERS))
    if bad:
        raise ValueError(f"winner must be one of {', '.join(WINNERS)}; got {bad}")
    write_table(verdicts[VERDICT_COLUMNS + extra_columns(list(map(str, verdicts.columns)))], path)


def verdicts_from_preferences(preferences: pd.DataFrame) -> pd.DataFrame:
    """Return the verdicts table of a preferences table (``topic, judge, left, right, outcome``).

    ``topic`` -> ``prompt``, ``judge`` (or ``worker``) -> ``judge``, ``left`` -> ``model_a`` (the item
    shown first), ``right`` -> ``model_b``; outcome ``left`` -> winner ``model_a``, ``right`` ->
    ``model_b``, ``tie`` -> ``tie``. Rows in the same order. A ValueError names a missing column or an
    outcome other than left, right or tie.
    """
    frame = preferences.rename(columns={"worker": "judge"}) if "judge" not in preferences.columns else preferences
    missing = [c for c in _PREFERENCE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a preferences table needs the columns {', '.join(_PREFERENCE_COLUMNS)}; missing {missing}")
    outcome = frame["outcome"].astype(str)
    bad = sorted(set(outcome) - set(_OUTCOMES))
    if bad:
        raise ValueError(f"outcome must be left, right or tie; got {bad}")
    return verdicts_frame(frame["topic"].astype(str), frame["judge"].astype(str), frame["left"].astype(str),
                          frame["right"].astype(str), outcome.map(_FROM_OUTCOME))


def read_verdicts_or_preferences(path: PathLike) -> pd.DataFrame:
    """Read a verdicts table from a verdicts table or a preferences table, told apart by the header.

    A header with ``winner`` (or ``model_a`` or ``model_b``) is read by :func:`read_verdicts`; one with
    ``outcome`` (or ``left`` or ``right``) by :func:`~manyjudges.io.tables.preferences.read_preferences`, then
    :func:`verdicts_from_preferences`. Every row is kept (``duplicates="keep"``). A DataError names the
    file, line 1 and the header when it has the columns of neither (or names of both).
    """
    header = {name.strip() for name in read_header(path)}
    verdicts = bool(header & {"model_a", "model_b", "winner"})
    preferences = bool(header & {"left", "right", "outcome"})
    if verdicts and not preferences:
        return read_verdicts(path)
    if preferences and not verdicts:
        return verdicts_from_preferences(read_preferences(path))
    sep = _delimiter_of(path)
    raise DataError.at(path, 1, "header must be a verdicts table's (prompt, judge, model_a, model_b, winner) or a "
                       "preferences table's (topic, judge, left, right, outcome)",
                       sep.join(read_header(path)) or "(empty file)")
