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
written with :func:`manyjudges.io.engine.table_text.write_table` and read back,
validated, with :func:`read_rankings` (the columnar reader,
:func:`~manyjudges.io.engine.columnar.read_columns`, with its column habits: any column order,
``task`` for ``item``, other columns ignored with a warning).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.engine.checks import (
    _DUPLICATES_HINT,
    Fault,
    _empty_fields,
    _raise_earliest,
    _repeated_rows,
    check_duplicate_rule,
)
from manyjudges.io.engine.columnar import TableLayout, rank_codes, read_columns
from manyjudges.io.engine.errors import DataError

__all__ = ["rankings_to_lists", "read_rankings"]

_RANKINGS_COLUMNS = ["list_set", "list_id", "item", "rank"]
RANKINGS_LAYOUT = TableLayout("rankings table", tuple(_RANKINGS_COLUMNS))

PathLike = str | os.PathLike[str]


def _rankings_frame(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    """Build a rankings DataFrame (str columns, int64 rank) from ``(list_set, list_id, item, rank)`` row tuples.

    The raw-format parsers of :mod:`manyjudges.io.sources` build their rankings with it.
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


def read_rankings(path: PathLike, duplicates: str = "error") -> pd.DataFrame:
    """Read and validate a rankings table (``list_set, list_id, item, rank``).

    Parameters
    ----------
    path : path-like
        A TSV file (CSV if the name ends in ``.csv``) with the columns ``list_set, list_id,
        item, rank`` in any order (as written by :func:`manyjudges.io.engine.table_text.write_table`);
        ``task`` is read as ``item``, other columns are ignored with an
        :class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`. Blank lines are skipped.
    duplicates : {"error", "first", "last"}
        Two rows giving the same position of one list (same ``list_set, list_id, rank``) are an
        error naming both lines (the default), or only the first or the last of them is kept
        (``keep`` is refused: a position of a list holds one item).

    Returns
    -------
    pandas.DataFrame
        Columns ``list_set``, ``list_id``, ``item`` (str) and ``rank``
        (int64), rows in file order; ``attrs["lines"]`` holds each row's line in the file.
        Repeated items within a list are kept.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1) and the value, at the first faulty
        row in file order: a header without one of the columns, a row with another number of
        fields, an empty ``list_set``, ``list_id`` or ``item``, a rank that is not a positive
        integer, two rows giving the same position of one list (with ``duplicates="error"``),
        or no data rows.
    ValueError
        For a ``duplicates`` rule other than error, first or last.
    """
    check_duplicate_rule(duplicates, "(list_set, list_id, rank) position", "a rankings table")
    table = read_columns(path, RANKINGS_LAYOUT)
    empty = _empty_fields(table, _RANKINGS_COLUMNS[:3])
    ranks, bad_rank = rank_codes(table)
    kept = None
    repeat = None
    valid = ranks >= 1
    keys = [table.codes("list_set")[0], table.codes("list_id")[0], ranks]
    if valid.all():
        repeated, heads = _repeated_rows(keys, "last" if duplicates == "last" else "first")
    else:  # a rank that is not a positive integer is an error of its own, not a position
        subset = np.flatnonzero(valid)
        repeated, heads = _repeated_rows([k[subset] for k in keys], "last" if duplicates == "last" else "first")
        repeated, heads = subset[repeated], subset[heads]
    if len(repeated) and duplicates == "error":
        row, head = int(repeated[0]), int(heads[0])
        repeat = Fault(row, 20, f"position {int(ranks[row])} of list {table.field('list_id', row)!r} in set "
                       f"{table.field('list_set', row)!r} already holds item {table.field('item', head)!r} "
                       f"(line {table.line(head)}); {_DUPLICATES_HINT}", table.field("item", row))
    elif len(repeated):
        mask = np.ones(table.n_rows, dtype=bool)
        mask[repeated] = False
        kept = np.flatnonzero(mask)
    _raise_earliest(table, [empty, bad_rank, repeat])
    frame = pd.DataFrame({column: table.strings(column, kept) for column in _RANKINGS_COLUMNS[:3]})
    frame["rank"] = ranks if kept is None else ranks[kept]
    frame.attrs["lines"] = table.lines if kept is None else table.lines[kept]
    return frame


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
        ids in natural order (:func:`natural_sort`), so the same rankings in any
        row order give the same lists in the same order. Repeated items are kept
        (each at its own position).

    Raises
    ------
    DataError
        If ``df`` lacks a column, or two rows give the same position of one
        list (a table that did not come through :func:`read_rankings`).
    """
    missing = [c for c in _RANKINGS_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(f"rankings table lacks columns {missing}")
    positions: dict[str, dict[str, dict[int, str]]] = {}
    columns = (df[c].astype(str).to_numpy() for c in _RANKINGS_COLUMNS[:3])
    ranks = df["rank"].to_numpy(dtype=np.int64)
    for list_set, list_id, item, rank in zip(*columns, ranks.tolist()):
        held = positions.setdefault(list_set, {}).setdefault(list_id, {})
        if rank in held:
            raise DataError(
                f"set {list_set!r}, list {list_id!r}: position {rank} holds two items "
                f"({held[rank]!r} and {item!r})"
            )
        held[rank] = item
    return {list_set: {list_id: [positions[list_set][list_id][r] for r in sorted(positions[list_set][list_id])]
                       for list_id in natural_sort(positions[list_set])}
            for list_set in natural_sort(positions)}
