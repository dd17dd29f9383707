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

from manyjudges.io.verdicts import VERDICT_COLUMNS as TABLE_COLUMNS
from manyjudges.io.verdicts import WINNERS as TABLE_WINNERS

__all__ = ["VERDICT_COLUMNS", "WINNERS", "CodedVerdicts", "check_verdicts", "code_verdicts",
           "verdict_fault"]

VERDICT_COLUMNS = tuple(TABLE_COLUMNS)
#: the winner values and their class as shown (0 first shown wins, 1 second shown wins, 2 tie)
WINNERS = dict(zip(TABLE_WINNERS, (0, 1, 2, 2)))


def _factorized(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct values as an object array of str) of a column; a missing value reads as ""."""
    codes, uniques = pd.factorize(pd.Series(values).to_numpy(dtype=object, na_value=""), sort=False)
    return codes.astype(np.int64), np.asarray([str(u) for u in uniques], dtype=object)


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def verdict_fault(frame: pd.DataFrame) -> tuple[int, str, object] | None:
    """The first faulty row of a verdicts table, as (0-based row position, reason, value), or None.

    Faults, in this order within a row: an empty or missing field (in column order), a ``winner``
    that is not one of :data:`WINNERS`, ``model_a == model_b``. A missing column is a ValueError.
    The checks run on each column's distinct values, not on every row.
    """
    missing = [c for c in VERDICT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a verdicts table needs the columns {', '.join(VERDICT_COLUMNS)}; missing "
                         f"{', '.join(missing)}")
    coded = {c: _factorized(frame[c]) for c in VERDICT_COLUMNS}
    blank = {c: np.asarray([not u.strip() for u in uniques], dtype=bool)[codes]
             for c, (codes, uniques) in coded.items()}
    faults: list[tuple[int, int, str, object]] = []
    for order, column in enumerate(VERDICT_COLUMNS):
        row = _first(blank[column])
        if row is not None:
            codes, uniques = coded[column]
            faults.append((row, order, f"empty {column}", uniques[codes[row]]))
    codes, uniques = coded["winner"]
    row = _first(~np.isin(uniques, list(WINNERS))[codes] & ~blank["winner"])
    if row is not None:
        faults.append((row, 10, f"winner must be one of {', '.join(WINNERS)}", uniques[codes[row]]))
    (a, a_ids), (b, b_ids) = coded["model_a"], coded["model_b"]
    b_as_a = pd.Index(a_ids).get_indexer(b_ids)  # each model_b value's code among the model_a values, -1: none
    row = _first((a == b_as_a[b]) & ~blank["model_a"])
    if row is not None:
        faults.append((row, 11, "model_a and model_b are the same model", a_ids[a[row]]))
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


def _sorted_codes(*columns: pd.Series) -> tuple[list[np.ndarray], np.ndarray]:
    """The values of several columns coded together, ids in sorted (code point) order: (codes per column,
    ids). Codes compare as the strings do."""
    codes, uniques = zip(*(_factorized(c) for c in columns))
    ids = np.asarray(sorted(set().union(*map(set, uniques))), dtype=object)
    index = pd.Index(ids)
    return [index.get_indexer(u)[c] for c, u in zip(codes, uniques)], ids


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
    prompts, prompt_ids = _sorted_codes(*(f["prompt"] for f in frames))
    models, model_ids = _sorted_codes(*(f[c] for f in frames for c in ("model_a", "model_b")))
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
    for frame, key, turned in zip(frames, keys, swapped):
        judges, judge_ids = _sorted_codes(frame["judge"])
        winner, winner_ids = _factorized(frame["winner"])
        shown = np.asarray([WINNERS[w] for w in winner_ids], dtype=np.int64)[winner]
        canonical = np.where(turned & (shown < 2), 1 - shown, shown)
        tables.append({"judge": judges[0], "judges": pd.Index(judge_ids, name="judge", dtype=object),
                       "unit": unit[start:start + len(key)], "shown": shown, "swapped": turned,
                       "canonical": canonical})
        start += len(key)
    return CodedVerdicts(units=units, tables=tables)
