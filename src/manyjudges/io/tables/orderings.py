"""The canonical ``orderings`` table: write it atomically, read and validate it.

An orderings table is a TSV file (CSV when the name ends in ``.csv``) with the columns
``set_id, judge, item, rank``: one row per (set, judge, item), rank 1 = best, tied items share
a rank (competition ranking, "1224"). Every judge of a set ranks the same items.

It is read by the columnar reader (:func:`~manyjudges.io.engine.columnar.read_columns`), with its
column habits (any column order, ``worker`` for ``judge``, ``task`` for ``item``, other columns
ignored with a warning); the checks run on the distinct values and on the columns' integer
codes, not row by row.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.engine.checks import _DUPLICATES_HINT, Fault, _empty_fields, _raise_earliest, check_duplicate_rule
from manyjudges.io.engine.columnar import ColumnarTable, TableLayout, rank_codes, read_columns
from manyjudges.io.engine.errors import DataError

__all__ = ["orderings_to_rank_matrices", "read_orderings"]

_ORDERINGS_COLUMNS = ["set_id", "judge", "item", "rank"]
ORDERINGS_LAYOUT = TableLayout("orderings table", tuple(_ORDERINGS_COLUMNS))


def _set_fault(table: ColumnarTable, rows: np.ndarray, min_judges: int) -> Fault | None:
    """Return the first set (in order of first appearance) whose shape is wrong, checked on the kept ``rows``.

    Wrong is: fewer than ``min_judges`` judges, fewer than 2 items (its first judge's), a judge that
    ranks an item its first judge does not rank, or a judge that misses an item its first judge ranks.
    """
    set_code, set_ids = table.codes("set_id")
    judge_code, judges = table.codes("judge")
    item_code, items = table.codes("item")
    s = set_code[rows].astype(np.int64)
    pair = s * len(judges) + judge_code[rows]
    si = s * len(items) + item_code[rows]
    pairs, pair_first, pair_of = np.unique(pair, return_index=True, return_inverse=True)
    pair_of = pair_of.reshape(-1)
    pair_set = pairs // len(judges)
    sets, set_first = np.unique(s, return_index=True)
    where = np.full(len(set_ids), -1, dtype=np.int64)
    where[sets] = np.arange(len(sets))
    n_judges = np.bincount(where[pair_set], minlength=len(sets))
    # each set's first judge: the pair with the smallest first row
    by_first = np.argsort(pair_first, kind="stable")
    _, head = np.unique(where[pair_set[by_first]], return_index=True)
    reference = np.empty(len(sets), dtype=np.int64)
    reference[where[pair_set[by_first[head]]]] = by_first[head]
    is_reference = pair_of == reference[where[s]]
    reference_keys = np.unique(si[is_reference])
    n_items = np.bincount(where[s[is_reference]], minlength=len(sets))
    extra = ~np.isin(si, reference_keys)
    pair_rows = np.bincount(pair_of, minlength=len(pairs))
    extra_first = np.full(len(pairs), len(rows), dtype=np.int64)
    extra_positions = np.flatnonzero(extra)
    if len(extra_positions):
        faulty, first = np.unique(pair_of[extra_positions], return_index=True)
        extra_first[faulty] = extra_positions[first]
    missing = pair_rows < n_items[where[pair_set]]
    pair_bad = (extra_first < len(rows)) | missing
    set_bad = (n_judges < min_judges) | (n_items < 2)
    set_bad[np.unique(where[pair_set[pair_bad]])] = True
    if not set_bad.any():
        return None
    k = int(np.flatnonzero(set_bad)[np.argmin(set_first[set_bad])])
    first_row = int(rows[set_first[k]])
    set_id = str(set_ids[sets[k]].as_py())
    if n_judges[k] < min_judges:
        return Fault(first_row, 0, f"a set needs at least {min_judges} judges, got {int(n_judges[k])}", set_id)
    if n_items[k] < 2:
        return Fault(first_row, 0, f"a set needs at least 2 items, got {int(n_items[k])}", set_id)
    reference_judge = str(judges[pairs[reference[k]] % len(judges)].as_py())
    candidates = np.flatnonzero(pair_bad & (where[pair_set] == k))
    p = int(candidates[np.argmin(pair_first[candidates])])
    judge = str(judges[pairs[p] % len(judges)].as_py())
    if extra_first[p] < len(rows):
        row = int(rows[extra_first[p]])
        return Fault(row, 0, f"judge {judge!r} ranks an item that judge {reference_judge!r} does not rank in set "
                     f"{set_id!r}", table.field("item", row))
    ranked = set(item_code[rows][pair_of == p].tolist())
    expected = item_code[rows][is_reference & (where[s] == k)]
    missing_items = natural_sort(str(items[int(i)].as_py()) for i in expected if int(i) not in ranked)
    return Fault(int(rows[pair_first[p]]), 0, f"judge {judge!r} does not rank items {missing_items} that judge "
                 f"{reference_judge!r} ranks in set {set_id!r}", judge)


def read_orderings(path: str | os.PathLike[str], min_judges: int = 2, duplicates: str = "error") -> pd.DataFrame:
    """Read and validate an orderings table (``set_id, judge, item, rank``).

    Parameters
    ----------
    path : path-like
        A TSV file (CSV if the name ends in ``.csv``) with the columns ``set_id, judge, item,
        rank`` in any order; ``worker`` is read as ``judge`` and ``task`` as ``item``, other
        columns are ignored with an :class:`~manyjudges.io.engine.columnar.ExtraColumnsWarning`.
    min_judges : int
        Orderings a set must have (2 for a panel of judges; 1 for candidate orderings).
    duplicates : {"error", "first", "last"}
        A repeated (set_id, judge, item) is an error naming both lines (the default), or only
        its first or its last row is kept (``keep`` is refused: a judge gives an item one rank).

    Returns
    -------
    pandas.DataFrame
        Columns ``set_id``, ``judge``, ``item`` (str) and ``rank`` (int64),
        rows in file order; ``attrs["lines"]`` holds each row's line in the file.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1) and the value, at the first faulty
        row in file order: a header without one of the columns, a row with another number of
        fields, no data rows, an empty ``set_id``, ``judge`` or ``item``, a rank that is not a
        positive integer, an item that appears twice for one judge of a set (with
        ``duplicates="error"``); then, set by set, judges of a set that rank different items,
        or a set with fewer than ``min_judges`` judges or 2 items.
    ValueError
        For a ``duplicates`` rule other than error, first or last.
    """
    check_duplicate_rule(duplicates, "(set_id, judge, item)", "an orderings table")
    table = read_columns(path, ORDERINGS_LAYOUT)
    empty = _empty_fields(table, _ORDERINGS_COLUMNS[:3])
    repeated, heads = table.repeated(_ORDERINGS_COLUMNS[:3], "last" if duplicates == "last" else "first")
    kept = None
    repeat = None
    if len(repeated) and duplicates == "error":
        row, head = int(repeated[0]), int(heads[0])
        repeat = Fault(row, 20, f"item appears twice for judge {table.field('judge', row)!r} in set "
                       f"{table.field('set_id', row)!r} (first on line {table.line(head)}); {_DUPLICATES_HINT}",
                       table.field("item", row))
    elif len(repeated):
        mask = np.ones(table.n_rows, dtype=bool)
        mask[repeated] = False
        kept = np.flatnonzero(mask)
    ranks, bad_rank = rank_codes(table, rows=kept)
    _raise_earliest(table, [empty, bad_rank, repeat])
    rows = np.arange(table.n_rows) if kept is None else kept
    _raise_earliest(table, [_set_fault(table, rows, min_judges)])
    frame = pd.DataFrame({column: table.strings(column, kept) for column in _ORDERINGS_COLUMNS[:3]})
    frame["rank"] = ranks if kept is None else ranks[kept]
    frame.attrs["lines"] = table.lines if kept is None else table.lines[kept]  # row label i: lines[i]
    return frame


def orderings_to_rank_matrices(
    df: pd.DataFrame,
) -> dict[str, tuple[list[str], list[str], np.ndarray]]:
    """Turn a long orderings table into one judges x items rank matrix per set.

    Parameters
    ----------
    df : pandas.DataFrame
        An orderings table (columns ``set_id, judge, item, rank``), e.g. from
        :func:`read_orderings`. Rank 1 = best; tied items share the lowest
        rank (competition ranking, "1224"); ranks are passed through as given.

    Returns
    -------
    dict
        ``set_id -> (judges, items, ranks)`` with set ids sorted; ``judges`` and
        ``items`` sorted naturally (numerically if all are digit strings, else
        lexicographically), so the same orderings in any row order give the same
        matrices; ``ranks`` a float64 array of shape ``(len(judges), len(items))``.

    Raises
    ------
    DataError
        If a (set, judge, item) appears twice or a judge misses an item of
        its set (a table that did not come through :func:`read_orderings`).
    """
    missing_columns = [c for c in _ORDERINGS_COLUMNS if c not in df.columns]
    if missing_columns:
        raise DataError(f"orderings table lacks columns {missing_columns}")
    result: dict[str, tuple[list[str], list[str], np.ndarray]] = {}
    set_ids = df["set_id"].astype(str).to_numpy()
    for key, block in df.groupby(set_ids, sort=True):  # one pass (rows keep their order within a set)
        set_id = str(key)
        judge_col = block["judge"].astype(str).to_numpy()
        item_col = block["item"].astype(str).to_numpy()
        judges = natural_sort(set(judge_col))
        items = natural_sort(set(item_col))
        judge_index = {judge: i for i, judge in enumerate(judges)}
        item_index = {item: j for j, item in enumerate(items)}
        rows = np.fromiter((judge_index[j] for j in judge_col), dtype=np.intp, count=len(block))
        cols = np.fromiter((item_index[i] for i in item_col), dtype=np.intp, count=len(block))
        if len(set(zip(rows.tolist(), cols.tolist()))) != len(block):
            raise DataError(f"set {set_id!r}: an item appears twice for one judge")
        ranks = np.full((len(judges), len(items)), np.nan, dtype=np.float64)
        ranks[rows, cols] = block["rank"].to_numpy(dtype=np.float64)
        if np.isnan(ranks).any():
            bad_judge = judges[int(np.argwhere(np.isnan(ranks))[0][0])]
            raise DataError(
                f"set {set_id!r}: judge {bad_judge!r} does not rank every item of the set"
            )
        result[set_id] = (judges, items, ranks)
    return result
