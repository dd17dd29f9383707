"""The papers' numbers (``resources/paper_values.tsv``) and lookups of one table's values by key."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["paper_values", "paper_lookup", "key_value"]


def _parse_key(key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in str(key).split(";"):
        name, _, value = part.partition("=")
        try:
            out[name] = float(value)
        except ValueError:
            out[name] = value
    return out


def paper_values(paper: str | None = None) -> pd.DataFrame:
    """Return the papers' numbers, one row each, key coordinates expanded into columns.

    Read from ``resources/paper_values.tsv`` (columns paper, table, key, statistic,
    paper_value, source); ``paper`` selects one paper (e.g. 'kim2010').
    """
    with resources.files("manyjudges.resources").joinpath("paper_values.tsv").open() as handle:
        raw = pd.read_csv(handle, sep="\t", comment="#", dtype=str)
    if paper is not None:
        raw = raw[raw["paper"] == paper]
    keys = pd.DataFrame([_parse_key(k) for k in raw["key"]], index=raw.index)
    table = pd.concat([raw.drop(columns=["key"]), keys], axis=1)
    for col in ("parameter", "method", "list_set"):
        if col in table:
            table[col] = table[col].fillna("")
    return table


def key_value(value: Any) -> Any:
    """Parse a key coordinate back into a Python value: None for blank or NaN, int for a whole float."""
    if value is None or (isinstance(value, str) and value == ""):
        return None
    if isinstance(value, float):
        return None if np.isnan(value) else (int(value) if value == int(value) else value)
    return value


def paper_lookup(
    paper: pd.DataFrame,
    table: str,
    columns: Sequence[str],
    *,
    where: Mapping[str, str] | None = None,
    complete_only: bool = False,
    key: Callable[[Any], Any] = str,
) -> dict[tuple, float]:
    """``{key tuple: paper value}`` for the rows of one table of ``paper`` (a :func:`paper_values` frame).

    ``where`` keeps rows whose column equals the given text; the key holds ``key(row[c])`` for each of
    ``columns`` (None where the row lacks the column). ``complete_only`` keeps only the columns that
    exist and are set in every selected row.
    """
    rows = paper[paper["table"].astype(str) == str(table)]
    for col, value in (where or {}).items():
        rows = rows[rows[col].astype(str) == value]
    if complete_only:
        columns = [c for c in columns if c in rows.columns and rows[c].notna().all()]
    return {tuple(key(r.get(c)) for c in columns): float(r["paper_value"]) for _, r in rows.iterrows()}
