"""Parse the CLEF eHealth 2015 top-20 run files into the canonical rankings table.

Each file ``TOP20_<team>_EN.dat`` holds one team's runs: one line per query,
whitespace-separated doc ids (see ``docs/data.md``). The table is described
in :mod:`manyjudges.io.tables.rankings`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike, _read_lines
from manyjudges.io.tables.rankings import _rankings_frame

__all__ = ["REPORT_NOTE", "parse_clef_runs"]

#: The data caveat the consensus report prints under a dataset with ``source: clef_runs``.
REPORT_NOTE = (
    "CLEF eHealth 2015 top-20 runs as distributed with Lin, Li and Guo's code. `TOP20_FDUSGInfo_EN.dat` has "
    "171 ids whose first letter is replaced by `F`; they are kept as published, so they match no other team's "
    "ids."
)

#: The query ids of the CLEF eHealth 2015 top-20 files, one per line: queries
#: 1..67 without 62 (its text had a typo and some teams have no run for it).
_CLEF_QUERY_IDS: tuple[str, ...] = tuple(f"q{n:02d}" for n in range(1, 68) if n != 62)

_CLEF_NAME = re.compile(r"TOP20_(.+)_EN\.dat")


def _clef_team(path: Path) -> str:
    """Return the team of a ``TOP20_<team>_EN.dat`` file, or raise a DataError."""
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
    runs = {team: _read_runs(path) for team, path in _teams(files).items()}
    rows: list[tuple[str, str, str, int]] = []
    for index, query in enumerate(_CLEF_QUERY_IDS):
        for team, docs in runs.items():
            rows.extend((query, team, doc, rank) for rank, doc in enumerate(docs[index], start=1))
    return _rankings_frame(rows)


def _teams(files: list[Path]) -> dict[str, Path]:
    """Each team's file, in the order given; DataError on a bad name or a team in two files."""
    teams: dict[str, Path] = {}
    for path in files:
        team = _clef_team(path)
        if team in teams:
            raise DataError.at(
                path, None, f"team appears in two files (also in {teams[team]})", team
            )
        teams[team] = path
    return teams


def _read_runs(path: Path) -> list[list[str]]:
    """Read one team's runs, the doc ids of each query's line.

    A DataError on an empty line or a count of lines other than ``len(CLEF_QUERY_IDS)``.
    """
    n_queries = len(_CLEF_QUERY_IDS)
    docs: list[list[str]] = []
    for number, raw in enumerate(_read_lines(path), start=1):
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
    return docs
