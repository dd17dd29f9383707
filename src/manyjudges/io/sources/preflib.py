"""Parse PrefLib ``.soc`` / ``.toc`` files into the canonical orderings table.

PrefLib files (https://preflib.org/format) start with header lines
``# KEY: value``; ``# NUMBER ALTERNATIVES: k`` is required. Each data line is
``count: a,b,{c,d},e``: ``count`` voters cast this order of the alternatives
``1..k``, best first, ``{c,d}`` being a group of tied alternatives. ``.soc``
(strict complete orders) has no ties; ``.toc`` (complete orders with ties)
may. Both are complete: every order ranks all ``k`` alternatives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from manyjudges.io.engine.errors import DataError, _read_utf8
from manyjudges.io.tables.orderings import _ORDERINGS_COLUMNS

#: The data caveat the orderings report prints under a dataset with ``source: preflib``.
REPORT_NOTE = (
    "PrefLib panels (real judges ordering every item of a set) have more judges or items than the paper's "
    "sentence sets and agree differently: only the ranking of methods and the trends compare with the "
    "paper's values, not the values."
)

SUPPORTED_TYPES = ("soc", "toc")

_HEADER = re.compile(r"#\s*([^:]+?)\s*:\s*(.*?)\s*")
_POSITIVE_INT = re.compile(r"[0-9]+")


def _expected_type(path: Path, data_type: str | None) -> str | None:
    """Return the data type the caller or the file extension asks for, if any."""
    if data_type is not None:
        if data_type not in SUPPORTED_TYPES:
            raise ValueError(f"data_type must be one of {SUPPORTED_TYPES}, got {data_type!r}")
        return data_type
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in SUPPORTED_TYPES else None


def _parse_positive_int(path: Path, line: int, text: str, what: str) -> int:
    """Parse ``text`` as a positive integer or raise DataError."""
    text = text.strip()
    if not _POSITIVE_INT.fullmatch(text) or int(text) < 1:
        raise DataError.at(path, line, f"{what} must be a positive integer", text)
    return int(text)


def _split_groups(path: Path, line: int, order: str, data_type: str) -> list[list[str]]:
    """Split ``a,b,{c,d},e`` into rank groups ``[[a], [b], [c, d], [e]]``.

    Items are returned as stripped strings, not yet checked.
    """
    depth = 0
    for char in order:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth not in (0, 1):
            raise DataError.at(path, line, "unbalanced braces", order)
    if depth != 0:
        raise DataError.at(path, line, "unbalanced braces", order)

    parts: list[str] = []
    current: list[str] = []
    for char in order:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))

    groups: list[list[str]] = []
    for part in parts:
        part = part.strip()
        if "{" in part or "}" in part:
            if data_type == "soc":
                raise DataError.at(path, line, "tie group in a .soc (strict order) file", part)
            if not (part.startswith("{") and part.endswith("}")):
                raise DataError.at(path, line, "unbalanced braces", part)
            members = [member.strip() for member in part[1:-1].split(",")]
            if members == [""]:
                raise DataError.at(path, line, "empty tie group", part)
            groups.append(members)
        else:
            groups.append([part])
    return groups


def _parse_order(
    path: Path, line: int, order: str, n_alternatives: int, data_type: str
) -> list[tuple[str, int]]:
    """Parse one order into ``(item, competition rank)`` pairs, best first."""
    order = order.strip()
    seen: set[int] = set()
    ranked: list[tuple[str, int]] = []
    position = 1
    for group in _split_groups(path, line, order, data_type):
        for member in group:
            if not member.isdigit() or not 1 <= int(member) <= n_alternatives:
                raise DataError.at(
                    path, line, f"item must be an integer in 1..{n_alternatives}", member
                )
            alternative = int(member)
            if alternative in seen:
                raise DataError.at(path, line, "item appears twice in one order", member)
            seen.add(alternative)
            ranked.append((str(alternative), position))
        position += len(group)
    if len(seen) != n_alternatives:
        missing = sorted(set(range(1, n_alternatives + 1)) - seen)
        raise DataError.at(
            path,
            line,
            f"order does not rank all {n_alternatives} alternatives "
            f"(missing {missing}; {data_type} orders are complete)",
            order,
        )
    return ranked


def parse_preflib(
    path: str | os.PathLike[str],
    set_id: str | None = None,
    *,
    data_type: str | None = None,
) -> pd.DataFrame:
    """Parse a PrefLib ``.soc`` or ``.toc`` file into an orderings table.

    Parameters
    ----------
    path : path-like
        The PrefLib file.
    set_id : str, optional
        The set id of every row; defaults to the file stem
        (e.g. ``"00006-00000001"``).
    data_type : {"soc", "toc"}, optional
        Expected data type; defaults to the file extension. A
        ``# DATA TYPE`` header, if present, must agree with it.

    Returns
    -------
    pandas.DataFrame
        Columns ``set_id, judge, item, rank`` (str, str, str, int64). Each
        voter is one judge, ``v1``, ``v2``, ... zero-padded to the width of
        the voter total (``v001`` .. ``v795``) in file order; a line with
        count ``c`` gives ``c`` judges. ``item`` is the alternative number;
        ``rank`` is the competition rank (tied items share the lowest rank).
        Rows follow the file: judge by judge, best item first.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value: a missing or bad
        ``NUMBER ALTERNATIVES`` header, a ``DATA TYPE`` that is not the
        expected one, a data line without ``:``, a count that is not a
        positive integer, an item outside ``1..k`` or twice in one order, an
        incomplete order, unbalanced braces, a tie in a ``.soc`` file, or no
        data lines at all.
    """
    path = Path(path)
    expected = _expected_type(path, data_type)
    set_id = path.stem if set_id is None else set_id
    n_alternatives: int | None = None
    orders: list[tuple[int, list[tuple[str, int]]]] = []
    lines = _read_utf8(path).splitlines()
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            n_alternatives, expected = _read_header(path, number, stripped, n_alternatives, expected)
        else:
            orders.append(_read_data_line(path, number, stripped, n_alternatives, expected))
    if n_alternatives is None:
        raise DataError.at(
            path, max(len(lines), 1), "missing '# NUMBER ALTERNATIVES: k' header", "(none)"
        )
    if not orders:
        raise DataError.at(path, max(len(lines), 1), "no data lines", "(end of file)")
    return _expand_voters(set_id, orders)


def _read_header(
    path: Path, number: int, stripped: str, n_alternatives: int | None, expected: str | None
) -> tuple[int | None, str | None]:
    """Return (the number of alternatives, the data type) after the ``#`` line ``stripped``.

    The line is a ``NUMBER ALTERNATIVES`` header (at most once) or a ``DATA TYPE`` one (agreeing with
    ``expected``); any other comment changes neither.
    """
    header = _HEADER.fullmatch(stripped)
    if header is None:
        return n_alternatives, expected  # a free comment
    key, value = header.group(1).upper(), header.group(2)
    if key == "NUMBER ALTERNATIVES":
        if n_alternatives is not None:
            raise DataError.at(path, number, "NUMBER ALTERNATIVES given twice", stripped)
        return _parse_positive_int(path, number, value, "NUMBER ALTERNATIVES"), expected
    if key == "DATA TYPE":
        found = value.lower()
        if found not in SUPPORTED_TYPES:
            raise DataError.at(
                path, number, f"DATA TYPE must be one of {list(SUPPORTED_TYPES)}", value
            )
        if expected is not None and found != expected:
            raise DataError.at(
                path, number, f"DATA TYPE does not match expected {expected!r}", value
            )
        return n_alternatives, found
    return n_alternatives, expected


def _read_data_line(
    path: Path, number: int, stripped: str, n_alternatives: int | None, expected: str | None
) -> tuple[int, list[tuple[str, int]]]:
    """Return (count, its order's ``(item, rank)`` pairs) of the data line ``count: order``.

    It needs the number of alternatives and the data type known.
    """
    if n_alternatives is None:
        raise DataError.at(
            path,
            number,
            "missing '# NUMBER ALTERNATIVES: k' header before the first data line",
            stripped,
        )
    if expected is None:
        raise DataError.at(
            path,
            number,
            "cannot tell soc from toc: no '.soc'/'.toc' extension and no '# DATA TYPE' header",
            stripped,
        )
    count_text, colon, order = stripped.partition(":")
    if not colon:
        raise DataError.at(path, number, "data line must be 'count: order'", stripped)
    count = _parse_positive_int(path, number, count_text, "count")
    return count, _parse_order(path, number, order, n_alternatives, expected)


def _expand_voters(set_id: str, orders: list[tuple[int, list[tuple[str, int]]]]) -> pd.DataFrame:
    """One judge per voter: expand ``(count, order)`` pairs into long rows."""
    n_voters = sum(count for count, _ in orders)
    width = len(str(n_voters))
    judges: list[str] = []
    items: list[str] = []
    ranks: list[int] = []
    voter = 0
    for count, ranked in orders:
        order_items = [item for item, _ in ranked]
        order_ranks = [rank for _, rank in ranked]
        for _ in range(count):
            voter += 1
            judges.extend([f"v{voter:0{width}d}"] * len(ranked))
            items.extend(order_items)
            ranks.extend(order_ranks)
    return pd.DataFrame(
        {
            "set_id": pd.Series([set_id] * len(judges), dtype=str),
            "judge": pd.Series(judges, dtype=str),
            "item": pd.Series(items, dtype=str),
            "rank": pd.Series(ranks, dtype="int64"),
        },
        columns=_ORDERINGS_COLUMNS,
    )


def parse_preflib_files(paths: Iterable[str | os.PathLike[str]]) -> pd.DataFrame:
    """Parse several PrefLib files into one orderings table, one set per file.

    Parameters
    ----------
    paths : iterable of path-like
        PrefLib ``.soc`` / ``.toc`` files; set ids are the file stems.

    Returns
    -------
    pandas.DataFrame
        The tables of :func:`parse_preflib` concatenated in the order given.

    Raises
    ------
    DataError
        If any file is bad, or two files share a stem (hence a set id).
    """
    frames: list[pd.DataFrame] = []
    seen: dict[str, Path] = {}
    for path in map(Path, paths):
        if path.stem in seen:
            raise DataError.at(
                path, None, f"set id clashes with file {seen[path.stem]}", path.stem
            )
        seen[path.stem] = path
        frames.append(parse_preflib(path))
    if not frames:
        raise ValueError("parse_preflib_files needs at least one file")
    return pd.concat(frames, ignore_index=True)
