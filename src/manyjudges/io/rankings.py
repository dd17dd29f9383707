"""Parse system output lists (top-k rankings) into the canonical rankings table.

A rankings table is a TSV file with the header ``list_set, list_id, item,
rank``: one row per position of each list, exactly as the list was given.
``rank`` is the 1-based position in the list. ``list_set`` groups the lists
that are compared with each other (e.g. one query's runs from several
teams); ``list_id`` names one list in its set (e.g. the team).

An item that appears twice in one list keeps both rows, each with its own
position: the parsers do not de-duplicate, so the table is the published data
as given. Code that needs a list without repeats takes an item's first
(best) position.

Two raw formats are supported:

- :func:`parse_search_results`: a search-engine result file (``google.txt``,
  ``bing.txt`` of Lin, Li and Guo's "Consensus of rankings" data): blocks of
  a ``#<query>`` line followed by one URL a line.
- :func:`parse_clef_runs`: the CLEF eHealth 2015 top-20 run files
  ``TOP20_<team>_EN.dat``: one line per query, whitespace-separated doc ids.

Tables are written with :func:`manyjudges.io.tables.write_table` and read
back, validated, with :func:`read_rankings`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.errors import DataError
from manyjudges.io.tables import parse_rank, read_tsv_rows

__all__ = [
    "CLEF_QUERY_IDS",
    "RANKINGS_COLUMNS",
    "parse_clef_runs",
    "parse_search_results",
    "rankings_to_lists",
    "read_rankings",
]

RANKINGS_COLUMNS = ["list_set", "list_id", "item", "rank"]

#: The query ids of the CLEF eHealth 2015 top-20 files, one per line: queries
#: 1..67 without 62 (its text had a typo and some teams have no run for it).
CLEF_QUERY_IDS: tuple[str, ...] = tuple(f"q{n:02d}" for n in range(1, 68) if n != 62)

_CLEF_NAME = re.compile(r"TOP20_(.+)_EN\.dat")

PathLike = str | os.PathLike[str]


def _frame(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    """Build a rankings DataFrame (str columns, int64 rank) from row tuples."""
    columns = list(zip(*rows)) if rows else [(), (), (), ()]
    return pd.DataFrame(
        {
            "list_set": pd.Series(columns[0], dtype=str),
            "list_id": pd.Series(columns[1], dtype=str),
            "item": pd.Series(columns[2], dtype=str),
            "rank": np.asarray(columns[3], dtype=np.int64),
        }
    )


def _read_lines(path: Path) -> list[str]:
    """The lines of a text file, without line terminators (LF or CRLF)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read().splitlines()


def parse_search_results(path: PathLike, engine: str | None = None) -> pd.DataFrame:
    """Parse a search-engine result file into a rankings table.

    The file holds blocks, each a ``#<query>`` line followed by the result
    URLs of that query, one a line, best first (25 per query in the published
    data; one Bing list has 26). Blank lines are ignored; surrounding
    whitespace on a line is stripped.

    Parameters
    ----------
    path : path-like
        The file, e.g. ``google.txt``.
    engine : str, optional
        The ``list_set`` of every row; defaults to the file stem
        (``"google"`` for ``google.txt``).

    Returns
    -------
    pandas.DataFrame
        Columns ``list_set`` (= engine), ``list_id`` (= the query text after
        ``#``, e.g. ``"007_films"``), ``item`` (the URL, verbatim) and
        ``rank`` (int64, 1-based position in the query's block), rows in file
        order. A URL repeated within one block keeps every occurrence, each
        with its own rank.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value, if a URL comes
        before any ``#query`` line, a ``#`` line has an empty query, a query
        name appears twice in the file, a query has no URLs, or the file has
        no non-blank line.
    """
    path = Path(path)
    if engine is None:
        engine = path.stem
    if not engine:
        raise ValueError("engine must be a non-empty string")
    rows: list[tuple[str, str, str, int]] = []
    query_line: dict[str, int] = {}
    query: str | None = None
    count = 0

    def _close() -> None:
        if query is not None and count == 0:
            raise DataError.at(path, query_line[query], "query has no URLs", query)

    for number, raw in enumerate(_read_lines(path), start=1):
        text = raw.strip()
        if not text:
            continue
        if text.startswith("#"):
            _close()
            name = text[1:].strip()
            if not name:
                raise DataError.at(path, number, "'#' line with an empty query", raw)
            if name in query_line:
                raise DataError.at(
                    path,
                    number,
                    f"query appears twice in the file (first on line {query_line[name]})",
                    name,
                )
            query_line[name] = number
            query, count = name, 0
            continue
        if query is None:
            raise DataError.at(path, number, "URL before any '#query' line", text)
        count += 1
        rows.append((engine, query, text, count))
    if query is None:
        raise DataError.at(path, 1, "empty file: no '#query' line", "(empty file)")
    _close()
    return _frame(rows)


def _clef_team(path: Path) -> str:
    """The team of a ``TOP20_<team>_EN.dat`` file, or DataError."""
    match = _CLEF_NAME.fullmatch(path.name)
    if match is None:
        raise DataError.at(
            path, None, "CLEF run file name must be 'TOP20_<team>_EN.dat'", path.name
        )
    return match.group(1)


def parse_clef_runs(paths: PathLike | Iterable[PathLike]) -> pd.DataFrame:
    """Parse CLEF eHealth 2015 top-20 run files into a rankings table.

    Each file ``TOP20_<team>_EN.dat`` holds one team's runs: one line per
    query, the doc ids of that query's run separated by whitespace, best
    first (20 in the published data; fewer are kept as they are). The 66
    lines are queries 1..67 in order, without query 62 (see the data set's
    ``ReadMe.txt``); line ``i`` is query ``CLEF_QUERY_IDS[i - 1]``.

    Parameters
    ----------
    paths : path-like or iterable of path-like
        The run files, one per team.

    Returns
    -------
    pandas.DataFrame
        Columns ``list_set`` (the query, ``"q01"`` .. ``"q67"``),
        ``list_id`` (the team, from the file name), ``item`` (the doc id,
        verbatim) and ``rank`` (int64, 1-based position on the line). Rows
        are ordered by query, then team in the order of ``paths``, then rank.
        A doc id repeated on one line keeps every occurrence.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (where there is one) and the
        value, if a file name does not match ``TOP20_<team>_EN.dat``, two
        files have the same team, a line is empty, or a file does not have
        66 lines (the message gives the count).
    ValueError
        If ``paths`` is empty.

    Notes
    -----
    The published ``TOP20_FDUSGInfo_EN.dat`` has corrupted doc ids: in 171
    places the first letter of an id is replaced by ``F`` (e.g.
    ``Ftret4575_12_000267`` for ``stret4575_12_000267``,
    ``Fhslo3844_...`` for ``nhslo3844_...``). They are kept verbatim, as
    published, so they match no other team's ids; a consumer that wants to
    repair them must do so explicitly and say so.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [Path(p) for p in paths]
    if not files:
        raise ValueError("no CLEF run files given")

    teams: dict[str, Path] = {}
    for path in files:
        team = _clef_team(path)
        if team in teams:
            raise DataError.at(
                path, None, f"team appears in two files (also in {teams[team]})", team
            )
        teams[team] = path

    n_queries = len(CLEF_QUERY_IDS)
    runs: dict[str, list[list[str]]] = {}
    for team, path in teams.items():
        lines = _read_lines(path)
        docs: list[list[str]] = []
        for number, raw in enumerate(lines, start=1):
            ids = raw.split()
            if not ids:
                raise DataError.at(path, number, "empty line (every query needs a run)", raw)
            docs.append(ids)
        if len(docs) != n_queries:
            raise DataError.at(
                path,
                None,
                f"expected {n_queries} lines (queries 1..67 without 62), got",
                len(docs),
            )
        runs[team] = docs

    rows: list[tuple[str, str, str, int]] = []
    for index, query in enumerate(CLEF_QUERY_IDS):
        for team, docs in runs.items():
            rows.extend((query, team, doc, rank) for rank, doc in enumerate(docs[index], start=1))
    return _frame(rows)


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
    return _frame(rows)


def rankings_to_lists(df: pd.DataFrame) -> dict[str, dict[str, list[str]]]:
    """Turn a long rankings table into nested lists.

    Parameters
    ----------
    df : pandas.DataFrame
        A rankings table (columns ``list_set, list_id, item, rank``), e.g.
        from :func:`read_rankings` or a parser of this module.

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
