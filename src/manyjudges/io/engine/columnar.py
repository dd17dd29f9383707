"""One columnar reader for every canonical table: pyarrow's CSV parser, the same column habits everywhere.

Every canonical table (orderings, rankings, grades, preferences, truth, labels) is read here:
:func:`read_columns` parses the file with pyarrow's multithreaded CSV reader
(``pyarrow.csv.read_csv``), the ``item`` column as Arrow strings and every other column (judges,
labels, ... : few distinct values) as a dictionary of them. A column is coded once, when first
asked (:meth:`ColumnarTable.codes`, :func:`~manyjudges.core.id_codes.code_ids`): each row's position
among the distinct values in natural order, int32, after which the strings can be let go
(:meth:`ColumnarTable.release`); a check of the values (is a label an integer? is a field empty?)
is a check of the few distinct values, not of every row.

Column habits, the same for every table and every door (the command, the pipeline, Python):

- ``worker`` is read as ``judge`` wherever a table has a person column,
  crowd-kit's ``task`` reads as ``item``, and Chatbot Arena's ``question_id`` (or ``topic``)
  as ``prompt`` (:data:`ALIASES`);
- columns may come in any order; a column the table does not use is ignored with a
  :class:`ExtraColumnsWarning` naming it;
- a TSV, or a CSV when the file name ends in ``.csv``; UTF-8 (a byte-order mark is skipped);
  blank lines are skipped; quoted fields follow the CSV rules.

Errors name the file, the 1-based line (the header is line 1) and the value. A row's line is found only when
an error needs it (:class:`~manyjudges.io.engine.row_lines.RowLines`): a file without blank lines has row r on
line r + 2. A file pyarrow cannot parse (a row with another number of fields, bytes that are not UTF-8, a
quoted newline) is read again, row by row, with Python's csv module, which names the exact line, or reads the
file when nothing is wrong with it.
"""
from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from manyjudges.core.id_codes import code_ids
from manyjudges.core.memory import give_back_freed_memory
from manyjudges.io.engine.batches import _read_batches
from manyjudges.io.engine.checks import Fault, _repeated_rows
from manyjudges.io.engine.errors import DataError, DataWarning, _not_utf8
from manyjudges.io.engine.row_lines import RowLines

__all__ = [
    "ALIASES", "STREAM_BYTES", "ColumnarTable", "ExtraColumnsWarning", "TableLayout", "rank_codes", "read_columns",
    "read_header",
]

#: other names a canonical column is read under (the same in every family)
ALIASES: Mapping[str, tuple[str, ...]] = {"judge": ("worker",), "item": ("task",),
                                          "prompt": ("topic", "question_id")}

#: the columns parsed as text (they hold many distinct values: items, prompts); every other column is
#: parsed as a dictionary of its few distinct values, which costs the parser nothing more
MANY_VALUES = frozenset({"item", "prompt"})
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())
#: files this large or larger are read batch by batch when their ids can be coded as they come: pyarrow's
#: streaming parse is slower than its whole-file one (10M labels, 195 MB: 2.0 s against 1.4 s), and the
#: id column's text is never held whole (100M labels, 2 GB: the reading's peak 2.9 GB against 4.2 GB)
STREAM_BYTES = 1 << 30
#: bytes of the file parsed at a time (a batch, when a file is read batch by batch)
BLOCK_BYTES = 1 << 24


class ExtraColumnsWarning(DataWarning):
    """A table has columns that its reader does not use; they are ignored."""


def _delimiter_of(path: str | os.PathLike[str]) -> str:
    """Return the field separator of a canonical table: a comma for ``.csv`` files, else a tab."""
    return "," if str(path).lower().endswith(".csv") else "\t"


@dataclass(frozen=True)
class TableLayout:
    """The columns of one kind of canonical table, in the order they are written.

    ``name`` says what the table is in messages (``"labels table"``); the names a column is read
    under are its own and its :data:`ALIASES`. A column of ``optional`` may be absent from a file
    (the reader then fills it); every other column is required.
    """

    name: str
    columns: tuple[str, ...]
    optional: tuple[str, ...] = ()

    def accepted(self, column: str) -> tuple[str, ...]:
        """Return the names ``column`` is read under: its own, then its :data:`ALIASES`."""
        return (column, *ALIASES.get(column, ()))

    def habits(self) -> str:
        """Say what else the header may hold, in words: the other names read and the free order."""
        others = [f"{alias} for {column}" for column in self.columns for alias in ALIASES.get(column, ())]
        optional = f"; {', '.join(self.optional)} optional" if self.optional else ""
        return "in any order" + (f"; {', '.join(others)}" if others else "") + optional


def _rows_of(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every row, read by Python's csv module as UTF-8 (BOM skipped)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter=_delimiter_of(path))
            for fields in reader:
                yield reader.line_num, fields
    except UnicodeDecodeError:
        raise _not_utf8(path) from None


def read_header(path: str | os.PathLike[str]) -> list[str]:
    """Return the header fields of a canonical table (empty for an empty file)."""
    for _, fields in _rows_of(Path(path)):
        return fields
    return []


def _resolve_header(path: Path, header: list[str], layout: TableLayout) -> dict[str, int]:
    """Map each canonical column to its position in ``header``.

    A missing or doubled column is a DataError, unused columns are an :class:`ExtraColumnsWarning`.
    """
    sep = _delimiter_of(path)
    shown = sep.join(header) if header else "(empty file)"
    position: dict[str, int] = {}
    problems = []
    for column in layout.columns:
        found = [i for i, name in enumerate(header) if name.strip() in layout.accepted(column)]
        if len(found) > 1:
            problems.append(f"{', '.join(header[i] for i in found)} name the same column")
        if found:
            position[column] = found[0]
    missing = [c for c in layout.columns if c not in position and c not in layout.optional]
    extra = [name for i, name in enumerate(header) if i not in position.values()]
    if missing:
        problems.insert(0, f"missing column(s) {', '.join(missing)}")
        if extra:
            problems.append(f"unexpected column(s) {', '.join(dict.fromkeys(extra))}")
    if problems:
        raise DataError.at(path, 1, f"header must be {sep.join(layout.columns)!r} ({layout.habits()}): "
                           f"{'; '.join(problems)}", shown)
    if extra:
        warnings.warn(f"{path}: ignoring column(s) {', '.join(map(repr, extra))} (a {layout.name} has "
                      f"{', '.join(layout.columns)})", ExtraColumnsWarning, stacklevel=4)
    return position


@dataclass
class ColumnarTable:
    """The columns of a canonical table as read, and the rows' file lines.

    Each column is an Arrow column of strings (or a dictionary of them), keyed by canonical name, until it
    is coded and released (:meth:`codes`, :meth:`release`). An optional column the file lacks
    (:attr:`TableLayout.optional`) is not among them (:meth:`has`).

    A column is read in one of three ways: its codes and distinct values (:meth:`codes`: for checks and
    for coded data), each row's text (:meth:`strings`: for a frame), or one row's field (:meth:`field`: for
    a message).
    """

    path: Path
    layout: TableLayout
    columns: dict[str, pa.ChunkedArray]
    lines: RowLines
    _codes: dict[str, tuple[np.ndarray, pa.Array]] = field(default_factory=dict, repr=False)

    @property
    def n_rows(self) -> int:
        """The number of data rows."""
        return len(self.lines)

    def has(self, column: str) -> bool:
        """Whether the file holds ``column`` (always, unless it is an optional one)."""
        return column in self.columns or column in self._codes

    def codes(self, column: str) -> tuple[np.ndarray, pa.Array]:
        """Return (codes, distinct values) of ``column``, made once.

        The distinct values are Arrow strings in natural order
        (:func:`~manyjudges.core.natural_order.natural_order`), ``codes[r]`` row r's position among them (int32;
        int64 past 2**31 - 1 distinct values).
        """
        if column not in self._codes:
            self._codes[column] = code_ids(self.columns[column])
        return self._codes[column]

    def strings(self, column: str, rows: np.ndarray | None = None) -> pd.Series:
        """Return each row's field of ``column`` (rows in file order, or ``rows``) as a pandas str Series.

        Built by Arrow, from the column as parsed or from its codes: no Python str a row.
        """
        if column in self.columns:
            array = self.columns[column]
            array = array.take(pa.array(rows)) if rows is not None else array
            return array.cast(pa.string()).to_pandas()
        codes, distinct = self.codes(column)
        return distinct.take(pa.array(codes if rows is None else codes[rows])).to_pandas()

    def field(self, column: str, row: int) -> str:
        """Row ``row``'s field of ``column``."""
        if column not in self.columns:
            codes, distinct = self._codes[column]
            return str(distinct[int(codes[int(row)])].as_py())
        return str(self.columns[column][int(row)].as_py())

    def release(self, column: str) -> None:
        """Drop the parsed column once its codes are made.

        The codes and distinct values then serve :meth:`codes`, :meth:`strings` and :meth:`field` (one copy of
        a column in memory, not two). Arrow's memory pool and the C library give the freed memory back to the
        system.
        """
        self.codes(column)
        if self.columns.pop(column, None) is not None:
            give_back_freed_memory()

    def discard(self, column: str) -> None:
        """Drop everything held of ``column``: its parsed strings and codes (the caller keeps what it needs)."""
        for held in (self.columns, self._codes):
            held.pop(column, None)

    def line(self, row: int) -> int:
        """Return the file line of row ``row``."""
        return self.lines[int(row)]

    def row_text(self, row: int) -> str:
        """Return the row's fields in the layout's column order, joined by the file's separator."""
        return _delimiter_of(self.path).join(self.field(c, row) for c in self.layout.columns if self.has(c))

    def error(self, row: int, reason: str, value: object = None) -> DataError:
        """Return a DataError at row ``row``'s line."""
        return DataError.at(self.path, self.line(row), reason, value)

    def repeated(self, columns: Sequence[str], keep: str = "first") -> tuple[np.ndarray, np.ndarray]:
        """:func:`_repeated_rows` of the rows' codes of ``columns``."""
        return _repeated_rows([self.codes(c)[0] for c in columns], keep)


def _exact_rows(path: Path, header_width: int, positions: list[int]) -> tuple[list[list[str]], list[int]]:
    """Return the wanted fields of every data row and their lines, read by Python's csv module.

    A row with another number of fields than the header is a DataError naming its line.
    """
    sep = _delimiter_of(path)
    kind = "comma" if sep == "," else "tab"
    rows: list[list[str]] = []
    lines: list[int] = []
    first = True
    for line_num, fields in _rows_of(path):
        if first:
            first = False
            continue
        if not fields or fields == [""]:
            continue  # blank line
        if len(fields) != header_width:
            raise DataError.at(path, line_num, f"expected {header_width} {kind}-separated fields, got {len(fields)}",
                               sep.join(fields))
        rows.append([fields[i] for i in positions])
        lines.append(line_num)
    return rows, lines


def _csv_options(path: Path, header: list[str], position: dict[str, int], names: list[str],
                 dictionaries: Collection[str], use_threads: bool) -> dict:
    """Return pyarrow.csv's options for the columns ``names``: text, those of ``dictionaries`` dictionary-encoded."""
    return {
        "read_options": pacsv.ReadOptions(use_threads=use_threads, block_size=BLOCK_BYTES),
        "parse_options": pacsv.ParseOptions(delimiter=_delimiter_of(path)),
        "convert_options": pacsv.ConvertOptions(
            include_columns=[header[position[c]] for c in names],
            column_types={header[position[c]]: _DICTIONARY if c in dictionaries else pa.string() for c in names},
            strings_can_be_null=False, quoted_strings_can_be_null=False),
    }


def read_columns(path: str | os.PathLike[str], layout: TableLayout, use_threads: bool = True,
                 code: Collection[str] = (), text: Collection[str] = ()) -> ColumnarTable:
    """Read a canonical table's columns (see the module docstring for the habits it accepts).

    Parameters
    ----------
    path : path-like
        The table: a TSV, or a CSV when the name ends in ``.csv``, with a header line.
    layout : TableLayout
        Its columns; a missing column is an error (unless optional: then it is not read), another
        column a warning.
    use_threads : bool
        Let pyarrow parse blocks of the file on every core.
    code : collection of str
        Columns to code while a file of :data:`STREAM_BYTES` or more is read, batch by batch
        (:func:`~manyjudges.io.engine.batches._read_batches`), when their ids are one prefix and a number:
        their text is never held whole. Other ids, and smaller files, are read whole (faster).
    text : collection of str
        Columns parsed as text even if they hold few values (the others but ``item`` and ``prompt`` are
        dictionary-encoded): for a caller that wants their strings, not their codes.

    Returns
    -------
    ColumnarTable
        Every layout column as Arrow strings, in file order (the columns of ``code`` coded already).

    Raises
    ------
    DataError
        Naming the file, the line and the value: an empty file, a header without a layout
        column (or with two names of one), a row with another number of fields than the header,
        bytes that are not UTF-8, or no data rows.
    """
    path = Path(path)
    header = read_header(path)
    position = _resolve_header(path, header, layout)
    names = [c for c in layout.columns if c in position]
    sep = _delimiter_of(path)
    stream = bool(code) and path.stat().st_size >= STREAM_BYTES
    # dictionary-encoded, by the parser or batch by batch: the columns of few values
    few = [c for c in names if c not in MANY_VALUES and c not in text]
    coded: dict[str, tuple[np.ndarray, pa.Array]] = {}
    try:
        streamed = _read_batches(path, _csv_options(path, header, position, names, (), use_threads),
                                {c: header[position[c]] for c in names}, code,
                                encode=[c for c in few if c not in code]) if stream else None
        if streamed is not None:
            columns, coded, n_rows = streamed
        else:
            table = pacsv.read_csv(path, **_csv_options(path, header, position, names, few, use_threads))
            columns = {name: table.column(k) for k, name in enumerate(names)}
            del table
            n_rows = len(columns[names[0]])
        give_back_freed_memory()  # the parser's block buffers
        lines = RowLines(path, n_rows)
    except (pa.ArrowInvalid, pa.ArrowKeyError):
        rows, known = _exact_rows(path, len(header), [position[c] for c in names])
        values = list(zip(*rows)) if rows else [() for _ in names]
        columns = {name: pa.chunked_array([pa.array(list(column), type=pa.string())])
                   for name, column in zip(names, values)}
        coded = {}
        n_rows = len(rows)
        lines = RowLines(path, n_rows, known=np.asarray(known, dtype=np.int64))
    if n_rows == 0:
        raise DataError.at(path, 1, "no data rows after the header", sep.join(header))
    return ColumnarTable(path=path, layout=layout, columns=columns, lines=lines, _codes=coded)


#: ranks are int64: at most 18 digits (leading zeros aside)
_MAX_RANK_DIGITS = 18


def rank_codes(table: ColumnarTable, column: str = "rank", rows: np.ndarray | None = None,
               order: int = 10) -> tuple[np.ndarray, Fault | None]:
    """Return (each row's rank, the first row of ``rows`` whose rank is not a positive integer).

    The ranks are int64, 0 where a rank is not a positive integer; ``rows`` is all rows when None. The
    distinct values are parsed, not the rows.
    """
    indices, dictionary = table.codes(column)
    digits = np.asarray(pc.match_substring_regex(dictionary, r"^[0-9]+$").to_numpy(zero_copy_only=False), dtype=bool)
    digits &= np.asarray(pc.utf8_length(pc.utf8_ltrim(dictionary, characters="0")).to_numpy(zero_copy_only=False)
                         <= _MAX_RANK_DIGITS, dtype=bool)
    values = np.zeros(len(dictionary), dtype=np.int64)
    if digits.any():
        chosen = dictionary.filter(pa.array(digits))
        values[digits] = pc.cast(chosen, pa.int64()).to_numpy(zero_copy_only=False)
    bad = values < 1
    ranks = values[indices]
    fault = None
    if bad.any():
        hits = np.flatnonzero(bad[indices] if rows is None else bad[indices[rows]])
        if len(hits):
            row = int(hits[0]) if rows is None else int(rows[hits[0]])
            fault = Fault(row, order, f"{column} must be a positive integer", table.field(column, row))
    return ranks, fault
