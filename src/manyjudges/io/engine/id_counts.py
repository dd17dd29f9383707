"""A short list of ids, each with an optional count.

The items that may get more labels (``item``, ``available``) or the judges who can label now (``judge``,
``available``).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from manyjudges.io.engine.columnar import _delimiter_of
from manyjudges.io.engine.errors import DataError

__all__ = ["read_id_counts"]


def read_id_counts(path: str | os.PathLike[str], id_column: str, count_column: str = "available") -> pd.DataFrame:
    """Read ``id_column`` (text) and, when the file has it, ``count_column`` (an integer >= 0).

    A missing id column, an empty id, an id given twice or a count that is not a non-negative integer is
    a DataError naming the file, the line and the value.
    """
    try:
        table = pd.read_csv(path, sep=_delimiter_of(path), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise DataError.at(path, None, f"empty file: it needs a header with the column {id_column!r}") from None
    if id_column not in table.columns:
        raise DataError.at(path, 1, f"no column {id_column!r} in the header", list(table.columns))
    ids = table[id_column].str.strip()
    line = np.arange(len(table)) + 2  # the header is line 1
    empty = np.flatnonzero(ids.to_numpy() == "")
    if len(empty):
        raise DataError.at(path, int(line[empty[0]]), f"empty {id_column}")
    repeated = np.flatnonzero(ids.duplicated().to_numpy())
    if len(repeated):
        raise DataError.at(path, int(line[repeated[0]]), f"{id_column} given twice", ids.iloc[repeated[0]])
    out = pd.DataFrame({id_column: ids.to_numpy()})
    if count_column in table.columns:
        text = table[count_column].str.strip()
        good = text.str.fullmatch(r"[0-9]+").to_numpy()
        if not good.all():
            bad = int(np.flatnonzero(~good)[0])
            raise DataError.at(path, int(line[bad]), f"{count_column} must be an integer >= 0", text.iloc[bad])
        out[count_column] = text.astype(np.int64).to_numpy()
    return out
