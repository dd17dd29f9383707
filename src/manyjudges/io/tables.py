"""The canonical ``orderings`` table: write it atomically, read and validate it.

An orderings table is a TSV file with the header ``set_id, judge, item, rank``:
one row per (set, judge, item), rank 1 = best, tied items share a rank
(competition ranking, "1224"). Every judge of a set ranks the same items.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.atomic import atomic_file
from manyjudges.io.columnar import delimiter_of
from manyjudges.io.errors import DataError, not_utf8

ORDERINGS_COLUMNS = ["set_id", "judge", "item", "rank"]

_POSITIVE_INT = re.compile(r"[0-9]+")


def write_tsv_to(df: pd.DataFrame, handle: Any, sep: str = "\t") -> None:
    """``df`` as TSV text (CSV with ``sep=","``; header, no index, full precision, "\\n" line ends) to an
    open text handle."""
    df.to_csv(handle, sep=sep, index=False, lineterminator="\n")


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` atomically (:func:`~manyjudges.atomic.atomic_file`): a TSV, or a CSV when the name ends
    in ``.csv``.

    Parameters
    ----------
    df : pandas.DataFrame
        The table; rows are written in the order given, without the index.
    path : path-like
        Destination; parent directories are created if needed.
    """
    with atomic_file(path) as handle:
        write_tsv_to(df, handle, delimiter_of(path))


def parse_rank(path: Path, line: int, text: str) -> int:
    """Parse a rank field; it must be a positive integer."""
    if not _POSITIVE_INT.fullmatch(text) or int(text) < 1:
        raise DataError.at(path, line, "rank must be a positive integer", text)
    return int(text)


def _reader_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every row of a TSV (CSV by extension), read as UTF-8."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:  # a byte-order mark (Excel's CSV) is skipped
            reader = csv.reader(handle, delimiter=delimiter_of(path))
            for fields in reader:
                yield reader.line_num, fields
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def read_header(path: str | os.PathLike[str]) -> list[str]:
    """The header fields of a canonical table (empty for an empty file)."""
    for _, fields in _reader_rows(Path(path)):
        return fields
    return []


def read_tsv_rows(path: Path, columns: list[str]) -> tuple[list[list[str]], list[int]]:
    """Data rows of a canonical TSV (CSV by the ``.csv`` extension) with exactly these
    ``columns``, and their 1-based line numbers.

    Blank lines are skipped; a wrong header, a row with another number of fields, no data
    rows or bytes that are not UTF-8 raise DataError naming the file, the line and the value.
    """
    rows: list[list[str]] = []
    lines: list[int] = []
    sep = delimiter_of(path)
    kind = "comma" if sep == "," else "tab"
    header = None
    for line_num, fields in _reader_rows(path):
        if header is None:
            header = fields
            if header != list(columns):
                raise DataError.at(path, 1, f"header must be {sep.join(columns)!r}", sep.join(header))
            continue
        if not fields or fields == [""]:
            continue  # blank line
        if len(fields) != len(columns):
            raise DataError.at(path, line_num, f"expected {len(columns)} {kind}-separated fields, got {len(fields)}",
                               sep.join(fields))
        rows.append(fields)
        lines.append(line_num)
    if header is None:
        raise DataError.at(path, 1, f"header must be {sep.join(columns)!r}", "(empty file)")
    if not rows:
        raise DataError.at(path, 1, "no data rows after the header", sep.join(header))
    return rows, lines


def _check_rows(path: Path, rows: list[list[str]], lines: list[int], min_judges: int = 2) -> list[int]:
    """Check fields, duplicates and per-set shape; return the parsed ranks.

    Line-level faults are reported in file order, then set-level faults.
    """
    ranks: list[int] = []
    # set_id -> judge -> item -> line
    sets: dict[str, dict[str, dict[str, int]]] = {}
    first_line: dict[tuple[str, ...], int] = {}
    for (set_id, judge, item, rank), line in zip(rows, lines):
        for name, text in zip(ORDERINGS_COLUMNS[:3], (set_id, judge, item)):
            if text.strip() == "":
                raise DataError.at(path, line, f"empty {name}", text)
        ranks.append(parse_rank(path, line, rank))
        judges = sets.setdefault(set_id, {})
        items = judges.setdefault(judge, {})
        if item in items:
            raise DataError.at(
                path,
                line,
                f"item appears twice for judge {judge!r} in set {set_id!r} "
                f"(first on line {items[item]})",
                item,
            )
        items[item] = line
        first_line.setdefault((set_id,), line)
        first_line.setdefault((set_id, judge), line)

    for set_id, judges in sets.items():
        set_line = first_line[(set_id,)]
        if len(judges) < min_judges:
            raise DataError.at(
                path, set_line, f"a set needs at least {min_judges} judges, got {len(judges)}", set_id
            )
        reference_judge, reference_items = next(iter(judges.items()))
        if len(reference_items) < 2:
            raise DataError.at(
                path,
                set_line,
                f"a set needs at least 2 items, got {len(reference_items)}",
                set_id,
            )
        expected = set(reference_items)
        for judge, items in judges.items():
            extra = [item for item in items if item not in expected]
            if extra:
                raise DataError.at(
                    path,
                    items[extra[0]],
                    f"judge {judge!r} ranks an item that judge {reference_judge!r} "
                    f"does not rank in set {set_id!r}",
                    extra[0],
                )
            missing = sorted(expected - set(items), key=_natural_key(expected))
            if missing:
                raise DataError.at(
                    path,
                    first_line[(set_id, judge)],
                    f"judge {judge!r} does not rank items {missing} that judge "
                    f"{reference_judge!r} ranks in set {set_id!r}",
                    judge,
                )
    return ranks


def read_orderings(path: str | os.PathLike[str], min_judges: int = 2) -> pd.DataFrame:
    """Read and validate an orderings TSV (CSV by the ``.csv`` extension).

    Parameters
    ----------
    path : path-like
        A TSV file with the header ``set_id, judge, item, rank``.
    min_judges : int
        Orderings a set must have (2 for a panel of judges; 1 for candidate orderings).

    Returns
    -------
    pandas.DataFrame
        Columns ``set_id``, ``judge``, ``item`` (str) and ``rank`` (int64),
        rows in file order; ``attrs["lines"]`` holds each row's line in the file.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1) and the value, if
        the header is wrong, a rank is not a positive integer, an item appears
        twice for one judge of a set, the judges of a set rank different items,
        or a set has fewer than 2 judges or 2 items.
    """
    path = Path(path)
    rows, lines = read_tsv_rows(path, ORDERINGS_COLUMNS)
    ranks = _check_rows(path, rows, lines, min_judges)
    columns = list(zip(*rows))
    table = pd.DataFrame(
        {
            "set_id": pd.Series(columns[0], dtype=str),
            "judge": pd.Series(columns[1], dtype=str),
            "item": pd.Series(columns[2], dtype=str),
            "rank": np.asarray(ranks, dtype=np.int64),
        }
    )
    table.attrs["lines"] = lines  # the file line of each row (row label i: lines[i])
    return table


def _natural_key(items: Iterable[str]) -> Callable[[str], Any]:
    """Sort key: numeric if every item is a digit string, else lexicographic."""
    if all(item.isdigit() for item in list(items)):
        return lambda item: (int(item), item)
    return lambda item: item


def natural_sort(items: Iterable[str]) -> list[str]:
    """Sort item ids numerically if all are digit strings, else lexicographically.

    Parameters
    ----------
    items : iterable of str
        Item identifiers.

    Returns
    -------
    list of str
        The sorted identifiers, e.g. ``["2", "10"]`` rather than ``["10", "2"]``.
    """
    items = list(items)
    return sorted(items, key=_natural_key(items))


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
        ``set_id -> (judges, items, ranks)`` with set ids sorted; ``judges`` in
        order of first appearance; ``items`` sorted naturally (numerically if
        all are digit strings, else lexicographically); ``ranks`` a float64
        array of shape ``(len(judges), len(items))``.

    Raises
    ------
    DataError
        If a (set, judge, item) appears twice or a judge misses an item of
        its set (a table that did not come through :func:`read_orderings`).
    """
    missing_columns = [c for c in ORDERINGS_COLUMNS if c not in df.columns]
    if missing_columns:
        raise DataError(f"orderings table lacks columns {missing_columns}")
    result: dict[str, tuple[list[str], list[str], np.ndarray]] = {}
    set_ids = df["set_id"].astype(str).to_numpy()
    for set_id, block in df.groupby(set_ids, sort=True):  # one pass (rows keep their order within a set)
        set_id = str(set_id)
        judge_col = block["judge"].astype(str).to_numpy()
        item_col = block["item"].astype(str).to_numpy()
        judges = list(dict.fromkeys(judge_col))
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
