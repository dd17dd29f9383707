"""A verdicts table as integer codes: judges, units (prompt, unordered model pair) and three classes.

A **verdicts** table has the string columns ``prompt, judge, model_a, model_b, winner``: one row per
verdict of a judge on two answers to a prompt, ``model_a`` the answer shown FIRST to the judge and
``winner`` one of ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)`` (Chatbot Arena's words; both
ties are one class here).

Each verdict is coded twice:

- **as shown**: 0 = the answer shown first wins, 1 = the answer shown second wins, 2 = tie;
- **canonically**: the unit is (prompt, model_1, model_2) with ``model_1 < model_2`` in string order,
  and 0 = model_1 wins, 1 = model_2 wins, 2 = tie. A verdict is ``swapped`` when ``model_a > model_b``
  (model_2 was shown first); then its canonical class is its shown class with 0 and 1 exchanged.

Ids are coded in sorted order, so the codes, and every number computed from them, do not depend
on the order of the rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CLASSES", "TIES", "VERDICT_COLUMNS", "WINNERS", "CodedVerdicts", "check_verdicts", "code_verdicts",
           "verdict_fault"]

VERDICT_COLUMNS = ("prompt", "judge", "model_a", "model_b", "winner")
#: the winner values and their class as shown (0 first shown wins, 1 second shown wins, 2 tie)
WINNERS = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
TIES = ("tie", "tie (bothbad)")
#: the three classes of a verdict, canonical orientation
CLASSES = ("model_1", "model_2", "tie")


def _text(frame: pd.DataFrame, column: str) -> np.ndarray:
    """The column as an object array of str (a missing value becomes the empty string)."""
    column_values = frame[column]
    return column_values.astype(object).where(column_values.notna(), "").astype(str).to_numpy(dtype=object)


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def verdict_fault(frame: pd.DataFrame) -> tuple[int, str, object] | None:
    """The first faulty row of a verdicts table, as (0-based row position, reason, value), or None.

    Faults, in this order within a row: an empty or missing field (in column order), a ``winner``
    that is not one of :data:`WINNERS`, ``model_a == model_b``. A missing column is a ValueError.
    """
    missing = [c for c in VERDICT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a verdicts table needs the columns {', '.join(VERDICT_COLUMNS)}; missing "
                         f"{', '.join(missing)}")
    text = {c: _text(frame, c) for c in VERDICT_COLUMNS}
    blank = {c: pd.Series(v, dtype=object).str.strip().eq("").to_numpy(dtype=bool) for c, v in text.items()}
    faults: list[tuple[int, int, str, object]] = []
    for order, column in enumerate(VERDICT_COLUMNS):
        row = _first(blank[column])
        if row is not None:
            faults.append((row, order, f"empty {column}", text[column][row]))
    row = _first(~pd.Series(text["winner"]).isin(list(WINNERS)).to_numpy(dtype=bool) & ~blank["winner"])
    if row is not None:
        faults.append((row, 10, f"winner must be one of {', '.join(WINNERS)}", text["winner"][row]))
    row = _first((text["model_a"] == text["model_b"]) & ~blank["model_a"])
    if row is not None:
        faults.append((row, 11, "model_a and model_b are the same model", text["model_a"][row]))
    if not faults:
        return None
    row, _, reason, value = min(faults, key=lambda f: (f[0], f[1]))
    return row, reason, value


def check_verdicts(frame: pd.DataFrame, name: str = "verdicts") -> None:
    """ValueError naming ``name``, the row (its index label) and the value of the first faulty row
    (:func:`verdict_fault`), or of a table without rows."""
    if len(frame) == 0:
        raise ValueError(f"{name}: no verdicts")
    fault = verdict_fault(frame)
    if fault is not None:
        row, reason, value = fault
        raise ValueError(f"{name}, row {frame.index[row]!r}: {reason}: {value!r}")


@dataclass(frozen=True)
class CodedVerdicts:
    """The verdicts of several tables (the judges' and a reference) on one shared coding of the units.

    Attributes
    ----------
    units : pandas.DataFrame
        ``prompt, model_1, model_2`` of each unit, sorted; ``model_1 < model_2``.
    tables : list of dict
        Per table, arrays over its rows: ``judge`` (code into ``judges``), ``unit`` (row of ``units``),
        ``shown`` (0/1/2 as shown), ``swapped`` (model_2 shown first) and ``canonical`` (0/1/2), and
        ``judges``, the table's judge ids, sorted (a pandas Index).
    """

    units: pd.DataFrame
    tables: list[dict]

    @property
    def n_units(self) -> int:
        return len(self.units)


def code_verdicts(*frames: pd.DataFrame) -> CodedVerdicts:
    """Code verdicts tables (checked beforehand with :func:`check_verdicts`) on one unit coding.

    Parameters
    ----------
    *frames : pandas.DataFrame
        Verdicts tables; their units are coded together, so the same (prompt, unordered pair)
        has the same code in each.

    Returns
    -------
    CodedVerdicts
    """
    keys = []
    for frame in frames:
        a, b = _text(frame, "model_a"), _text(frame, "model_b")
        swapped = a > b
        keys.append((_text(frame, "prompt"), np.where(swapped, b, a), np.where(swapped, a, b), swapped))
    sizes = [len(k[0]) for k in keys]
    columns, ids = [], []
    for position in range(3):
        codes, uniques = pd.factorize(np.concatenate([k[position] for k in keys]), sort=True)
        columns.append(codes.astype(np.int64))
        ids.append(np.asarray(uniques, dtype=object))
    stacked = np.stack(columns, axis=1)
    distinct, unit = np.unique(stacked, axis=0, return_inverse=True)
    unit = np.asarray(unit).reshape(-1)
    units = pd.DataFrame({name: ids[k][distinct[:, k]] for k, name in enumerate(("prompt", "model_1", "model_2"))})
    tables = []
    start = 0
    for frame, (_, _, _, swapped), size in zip(frames, keys, sizes):
        judge, judges = pd.factorize(_text(frame, "judge"), sort=True)
        shown = pd.Series(_text(frame, "winner")).map(WINNERS).to_numpy(dtype=np.int64)
        canonical = np.where(swapped & (shown < 2), 1 - shown, shown)
        tables.append({"judge": judge.astype(np.int64), "judges": pd.Index(judges, name="judge"),
                       "unit": unit[start:start + size], "shown": shown, "swapped": np.asarray(swapped, dtype=bool),
                       "canonical": canonical})
        start += size
    return CodedVerdicts(units=units, tables=tables)
