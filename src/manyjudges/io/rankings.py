"""The canonical ``rankings`` table of system output lists (top-k rankings).

A rankings table is a TSV file with the header ``list_set, list_id, item,
rank``: one row per position of each list, exactly as the list was given.
``rank`` is the 1-based position in the list. ``list_set`` groups the lists
that are compared with each other (e.g. one query's runs from several
teams); ``list_id`` names one list in its set (e.g. the team).

An item that appears twice in one list keeps both rows, each with its own
position: the parsers do not de-duplicate, so the table is the published data
as given. Code that needs a list without repeats takes an item's first
(best) position.

The raw formats (search-engine result files, CLEF eHealth 2015 runs) are
parsed by :mod:`manyjudges.io.sources.search_results` and
:mod:`manyjudges.io.sources.clef_runs` (see ``docs/data.md``). Tables are
written with :func:`manyjudges.io.tables.write_table` and read back,
validated, with :func:`read_rankings`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.errors import DataError
from manyjudges.io.tables import parse_rank, read_tsv_rows

__all__ = [
    "RANKINGS_COLUMNS",
    "rankings_to_lists",
    "read_rankings",
]

RANKINGS_COLUMNS = ["list_set", "list_id", "item", "rank"]

PathLike = str | os.PathLike[str]


def _rankings_frame(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    """Build a rankings DataFrame (str columns, int64 rank) from row tuples.

    Shared with the raw-format parsers of :mod:`manyjudges.io.sources`.
    """
    columns = list(zip(*rows)) if rows else [(), (), (), ()]
    return pd.DataFrame(
        {
            "list_set": pd.Series(columns[0], dtype=str),
            "list_id": pd.Series(columns[1], dtype=str),
            "item": pd.Series(columns[2], dtype=str),
            "rank": np.asarray(columns[3], dtype=np.int64),
        }
    )


def read_rankings(path: PathLike) -> pd.DataFrame:
    """Read and validate a rankings TSV.

    Parameters
    ----------
    path : path-like
        A TSV file with the header ``list_set, list_id, item, rank`` (as
        written by :func:`manyjudges.io.tables.write_table`). Blank lines are
        skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``list_set``, ``list_id``, ``item`` (str) and ``rank``
        (int64), rows in file order. Repeated items within a list are kept.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1) and the value, if
        the header is not exactly ``list_set, list_id, item, rank``, a row
        does not have 4 fields, a ``list_set``, ``list_id`` or ``item`` is
        empty, a rank is not a positive integer, two rows give the same
        position of one list (same ``list_set, list_id, rank``), or there
        are no data rows.
    """
    path = Path(path)
    rows: list[tuple[str, str, str, int]] = []
    seen: dict[tuple[str, str, int], tuple[int, str]] = {}
    fields_by_row, lines = read_tsv_rows(path, RANKINGS_COLUMNS)
    for fields, line in zip(fields_by_row, lines):
        list_set, list_id, item, rank_text = fields
        for name, text in zip(RANKINGS_COLUMNS[:3], (list_set, list_id, item)):
            if text.strip() == "":
                raise DataError.at(path, line, f"empty {name}", text)
        rank = parse_rank(path, line, rank_text)
        key = (list_set, list_id, rank)
        if key in seen:
            first_line, first_item = seen[key]
            raise DataError.at(
                path,
                line,
                f"position {rank} of list {list_id!r} in set {list_set!r} already "
                f"holds item {first_item!r} (line {first_line})",
                item,
            )
        seen[key] = (line, item)
        rows.append((list_set, list_id, item, rank))
    return _rankings_frame(rows)


def rankings_to_lists(df: pd.DataFrame) -> dict[str, dict[str, list[str]]]:
    """Turn a long rankings table into nested lists.

    Parameters
    ----------
    df : pandas.DataFrame
        A rankings table (columns ``list_set, list_id, item, rank``), e.g.
        from :func:`read_rankings` or a parser of
        :mod:`manyjudges.io.sources`.

    Returns
    -------
    dict
        ``{list_set: {list_id: [items in rank order]}}``; list sets and list
        ids in order of first appearance in ``df``. Repeated items are kept
        (each at its own position).

    Raises
    ------
    DataError
        If ``df`` lacks a column, or two rows give the same position of one
        list (a table that did not come through :func:`read_rankings`).
    """
    missing = [c for c in RANKINGS_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(f"rankings table lacks columns {missing}")
    positions: dict[str, dict[str, dict[int, str]]] = {}
    columns = (df[c].astype(str).to_numpy() for c in RANKINGS_COLUMNS[:3])
    ranks = df["rank"].to_numpy(dtype=np.int64)
    for list_set, list_id, item, rank in zip(*columns, ranks.tolist()):
        held = positions.setdefault(list_set, {}).setdefault(list_id, {})
        if rank in held:
            raise DataError(
                f"set {list_set!r}, list {list_id!r}: position {rank} holds two items "
                f"({held[rank]!r} and {item!r})"
            )
        held[rank] = item
    return {
        list_set: {list_id: [held[r] for r in sorted(held)] for list_id, held in lists.items()}
        for list_set, lists in positions.items()
    }
