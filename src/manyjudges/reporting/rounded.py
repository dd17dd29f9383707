"""A table's cells as text rounded to what each number can tell (a terminal table, a web page).

A value with an interval is rounded, with its interval, to the decimal place of the leading digit of the
interval's width, plus one (:func:`~manyjudges.reporting.formatting._interval_decimals`); without an
interval (or a width of 0), and in every other float column, to three significant digits of the column's
largest |value| (:func:`~manyjudges.reporting.formatting._column_decimals`). Integers (ranks, counts) are
integers with thousands separators; a missing value is blank.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from manyjudges.reporting.formatting import _column_decimals, _interval_decimals, fixed

__all__ = ["rounded_cells"]

#: a value column and its interval's columns, rounded together
_INTERVAL_COLUMNS = {"score": ("ci_low", "ci_high"), "win_rate": ("win_low", "win_high"),
                    "first_win_rate": ("first_win_low", "first_win_high")}
#: a value column and its interval's columns, rounded together when none of them is in a group above
#: (``arena winrate``'s win_rate with ci_low, ci_high)
_FALLBACK_INTERVALS = {"win_rate": ("ci_low", "ci_high")}


def _float_decimals(table: pd.DataFrame) -> dict[str, np.ndarray]:
    """Return the decimals of each float column's cells, one per row (module docstring)."""
    floats = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]
    digits = {c: np.full(len(table), _column_decimals(table[c].to_numpy(dtype=float))) for c in floats}
    claimed: set[str] = set()
    for value, (low, high) in [*_INTERVAL_COLUMNS.items(), *_FALLBACK_INTERVALS.items()]:
        group = [value, low, high]
        if not set(group) <= set(floats) or claimed & set(group):
            continue
        claimed |= set(group)
        width = table[high].to_numpy(dtype=float) - table[low].to_numpy(dtype=float)
        fallback = _column_decimals(table[group].to_numpy(dtype=float))
        row = _interval_decimals(width)
        for column in group:
            digits[column] = np.where(row >= 0, row, fallback)
    return digits


def _other_cells(values: pd.Series) -> list[str]:
    """Integers with thousands separators, anything else as ``str``; missing values blank."""
    if pd.api.types.is_integer_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return ["" if pd.isna(x) else f"{int(x):,}" for x in values]
    return ["" if x is None or (isinstance(x, float) and np.isnan(x)) else str(x) for x in values]


def rounded_cells(table: pd.DataFrame) -> dict[str, list[str]]:
    """Return each column's cells as text, rounded as the module docstring says, by column name."""
    digits = _float_decimals(table)
    return {c: ([fixed(x, int(d)) for x, d in zip(table[c].to_numpy(dtype=float), digits[c])] if c in digits
                else _other_cells(table[c])) for c in table.columns}
