"""Parse search-engine result files into the canonical rankings table.

The files are ``google.txt`` and ``bing.txt`` of the data of Lin, Li and
Guo's "Consensus of rankings" study: blocks of a ``#<query>`` line followed
by one URL a line (see ``docs/data.md``). The table is described in
:mod:`manyjudges.io.tables.rankings`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike, _read_lines
from manyjudges.io.tables.rankings import _rankings_frame

__all__ = ["REPORT_NOTE", "parse_search_results"]

#: The note the consensus report prints under a dataset with ``source: search_results``.
REPORT_NOTE = (
    "Lin, Li and Guo's own Google and Bing lists: the data of the paper itself."
)


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
    return _rankings_frame(rows)
