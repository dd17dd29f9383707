"""One columnar reader for every canonical table: pyarrow's CSV parser, the same column habits everywhere.

Every canonical table (orderings, rankings, grades, preferences, truth, labels) is read here:
:func:`read_columns` parses the file with pyarrow's multithreaded CSV reader
(``pyarrow.csv.read_csv``), each column as a dictionary of distinct strings and int32 indices,
so a column of ten million ids costs 4 bytes a row plus its distinct values, and a check of
the values (is a label an integer? is a field empty?) is a check of the few distinct values,
not of every row.

Column habits, the same for every table and every door (the command, the pipeline, Python):

- ``worker`` and ``judge`` name the same column wherever a table has a person column, and
  crowd-kit's ``task`` reads as ``item`` (:data:`ALIASES`);
- columns may come in any order; a column the table does not use is ignored with a
  :class:`ExtraColumnsWarning` naming it;
- a TSV, or a CSV when the file name ends in ``.csv``; UTF-8 (a byte-order mark is skipped);
  blank lines are skipped; quoted fields follow the CSV rules.

Errors name the file, the 1-based line (the header is line 1) and the value. A row's line
is found only when an error needs it (:class:`RowLines`): a file without blank lines has row r
on line r + 2. A file pyarrow cannot parse (a row with another number of fields, bytes that
are not UTF-8, a quoted newline) is read again, row by row, with Python's csv module, which
names the exact line, or reads the file when nothing is wrong with it.
"""
from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from manyjudges.coded_labels import natural_order
from manyjudges.io.errors import DataError, DataWarning, not_utf8

__all__ = [
    "ALIASES",
    "DUPLICATES_HINT",
    "ColumnarTable",
    "ExtraColumnsWarning",
    "Fault",
    "RowLines",
    "TableLayout",
    "delimiter_of",
    "empty_fields",
    "first_fault",
    "natural_order",
    "read_columns",
    "raise_earliest",
    "read_header",
    "repeated_rows",
]

#: other names a canonical column is read under (the same in every family)
ALIASES: Mapping[str, tuple[str, ...]] = {"worker": ("judge",), "judge": ("worker",), "item": ("task",)}

#: bytes read at a time when a row's line is looked up
_SCAN_BLOCK = 1 << 24


class ExtraColumnsWarning(DataWarning):
    """A table has columns that its reader does not use; they are ignored."""


def delimiter_of(path: str | os.PathLike[str]) -> str:
    """The field separator of a canonical table: a comma for ``.csv`` files, else a tab."""
    return "," if str(path).lower().endswith(".csv") else "\t"


@dataclass(frozen=True)
class TableLayout:
    """The columns of one kind of canonical table, in the order they are written.

    ``name`` says what the table is in messages (``"labels table"``); the names a column is read
    under are its own and its :data:`ALIASES`.
    """

    name: str
    columns: tuple[str, ...]

    def accepted(self, column: str) -> tuple[str, ...]:
        return (column, *ALIASES.get(column, ()))

    def habits(self) -> str:
        """What else the header may hold, in words: the other names read and the free order."""
        others = [f"{alias} for {column}" for column in self.columns for alias in ALIASES.get(column, ())]
        return "in any order" + (f"; {', '.join(others)}" if others else "")


def _rows_of(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every row, read by Python's csv module as UTF-8 (BOM skipped)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter=delimiter_of(path))
            for fields in reader:
                yield reader.line_num, fields
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def read_header(path: str | os.PathLike[str]) -> list[str]:
    """The header fields of a canonical table (empty for an empty file)."""
    for _, fields in _rows_of(Path(path)):
        return fields
    return []


def _resolve_header(path: Path, header: list[str], layout: TableLayout) -> dict[str, int]:
    """canonical column -> its position in ``header``; a missing or doubled column is a DataError,
    unused columns are an :class:`ExtraColumnsWarning`."""
    sep = delimiter_of(path)
    shown = sep.join(header) if header else "(empty file)"
    position: dict[str, int] = {}
    problems = []
    for column in layout.columns:
        found = [i for i, name in enumerate(header) if name.strip() in layout.accepted(column)]
        if len(found) > 1:
            problems.append(f"{', '.join(header[i] for i in found)} name the same column")
        if found:
            position[column] = found[0]
    missing = [c for c in layout.columns if c not in position]
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


class RowLines:
    """The file line of each data row, found only when asked.

    ``lines[r]`` is row r's 1-based line (the header is line 1); an int array or a boolean mask
    gives an int64 array. Without ``known`` lines the file is scanned for blank lines (which the
    reader skips) the first time a line is asked for; a file without blank lines is not kept.
    """

    def __init__(self, path: Path, n_rows: int, known: np.ndarray | None = None) -> None:
        self.path, self.n_rows = path, n_rows
        self._known = None if known is None else np.asarray(known, dtype=np.int64)
        self._blank: np.ndarray | None = None  # line numbers of the blank lines, ascending
        self._rows: np.ndarray | None = None  # for a subset: the rows of the whole file it keeps

    def subset(self, rows: np.ndarray) -> RowLines:
        """The lines of the rows ``rows`` (positions), as lazy as these: ``subset(rows)[k] == self[rows[k]]``."""
        rows = np.asarray(rows, dtype=np.int64)
        kept = RowLines(self.path, len(rows), self._known)
        kept._blank = self._blank
        kept._rows = rows if self._rows is None else self._rows[rows]
        return kept

    def __len__(self) -> int:
        return self.n_rows

    def _blank_lines(self) -> np.ndarray:
        if self._blank is None:
            blank: list[np.ndarray] = []
            line = 1  # the line the next byte is on
            previous = b"\n"  # a file starts a line
            with open(self.path, "rb") as handle:
                while block := handle.read(_SCAN_BLOCK):
                    data = np.frombuffer(block, dtype=np.uint8)
                    ends = np.flatnonzero(data == 10)
                    if len(ends):
                        # line end at ends[j] closes the line starting after the previous end
                        starts = np.concatenate(([-1], ends[:-1])) + 1
                        empty = ends == starts
                        crlf = (ends - starts == 1) & (data[np.maximum(ends - 1, 0)] == 13)
                        empty |= crlf
                        if previous != b"\n":  # the first line of this block began in the last one
                            empty[0] = False
                        blank.append(line + np.flatnonzero(empty))
                        line += len(ends)
                    previous = block[-1:]
            self._blank = np.concatenate(blank) if blank else np.zeros(0, dtype=np.int64)
        return self._blank

    def _lines(self, rows: np.ndarray) -> np.ndarray:
        if self._rows is not None:
            rows = self._rows[rows]
        if self._known is not None:
            return self._known[rows]
        blank = self._blank_lines()
        lines = rows.astype(np.int64) + 2
        if len(blank) == 0:
            return lines
        # row r is on the smallest line L with L - 1 - (blank lines before L) = r + 1
        skipped = np.zeros_like(lines)
        for _ in range(len(blank) + 1):  # fixed point; at most one more blank line is passed per round
            moved = np.searchsorted(blank, lines + skipped, side="right")
            if np.array_equal(moved, skipped):
                break
            skipped = moved
        return lines + skipped

    def __getitem__(self, rows):
        if isinstance(rows, (int, np.integer)):
            return int(self._lines(np.asarray([int(rows)]))[0])
        index = np.arange(self.n_rows)[rows]
        return self._lines(np.asarray(index))

    def __array__(self, dtype=None, copy=None):
        lines = self._lines(np.arange(self.n_rows))
        return lines if dtype is None else lines.astype(dtype)

    def __iter__(self):
        return iter(self._lines(np.arange(self.n_rows)).tolist())

    def __repr__(self) -> str:
        return f"RowLines({str(self.path)!r}, {self.n_rows} rows)"

    def __deepcopy__(self, memo):  # pandas copies attrs with deepcopy: share the (immutable) state
        return self


@dataclass
class ColumnarTable:
    """The columns of a canonical table as read: each a dictionary array (distinct strings and
    int32 indices), keyed by canonical name, and the rows' file lines."""

    path: Path
    layout: TableLayout
    columns: dict[str, pa.DictionaryArray]
    lines: RowLines
    _codes: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.lines)

    def values(self, column: str) -> np.ndarray:
        """The distinct strings of ``column`` (object array), indexed by :meth:`indices`."""
        if column not in self.columns:  # released: its codes and ids serve
            return self._codes[column][1]
        return np.asarray(self.columns[column].dictionary.to_numpy(zero_copy_only=False), dtype=object)

    def indices(self, column: str) -> np.ndarray:
        """Each row's index into :meth:`values` (int32)."""
        if column not in self.columns:
            return self._codes[column][0]
        return self.columns[column].indices.to_numpy(zero_copy_only=False)

    def release(self, column: str) -> None:
        """Drop the parsed column once its :meth:`codes` are made: the codes and ids then serve
        :meth:`values`, :meth:`indices` and :meth:`field` (one copy of a column in memory, not two)."""
        self.codes(column)
        self.columns.pop(column, None)

    def text(self, column: str) -> np.ndarray:
        """Each row's field of ``column`` as a str (object array; for small tables)."""
        return self.values(column)[self.indices(column)]

    def field(self, column: str, row: int) -> str:
        """Row ``row``'s field of ``column``."""
        if column not in self.columns:
            codes, ids = self._codes[column]
            return str(ids[codes[int(row)]])
        return str(self.columns[column][int(row)].as_py())

    def line(self, row: int) -> int:
        return self.lines[int(row)]

    def row_text(self, row: int) -> str:
        """The row's fields in the layout's column order, joined by the file's separator."""
        return delimiter_of(self.path).join(self.field(c, row) for c in self.layout.columns)

    def error(self, row: int, reason: str, value: object = None) -> DataError:
        """A DataError at row ``row``'s line."""
        return DataError.at(self.path, self.line(row), reason, value)

    def repeated(self, columns: Sequence[str], keep: str = "first") -> tuple[np.ndarray, np.ndarray]:
        """:func:`repeated_rows` of the rows' codes of ``columns``."""
        return repeated_rows([self.codes(c)[0] for c in columns], keep)

    def codes(self, column: str) -> tuple[np.ndarray, pd.Index]:
        """(codes, ids): ``ids`` the distinct values of ``column`` in natural order (:func:`natural_order`;
        a str Index), ``codes[r]`` row r's position in it (int32; int64 past 2**31 - 1 ids)."""
        if column not in self._codes:
            dictionary = self.columns[column].dictionary
            order = natural_order(dictionary)
            rank = np.empty(len(order), dtype=np.int64 if len(order) > np.iinfo(np.int32).max else np.int32)
            rank[order] = np.arange(len(order), dtype=rank.dtype)
            ids = pd.Index(dictionary.take(pa.array(order)).to_pandas(), name=column)  # Arrow-backed under pandas 3
            self._codes[column] = rank[self.indices(column)], ids
        return self._codes[column]


@dataclass(frozen=True)
class Fault:
    """A fault found at a row of a table: of all found, the one at the earliest row (then the lowest
    ``order``) is raised, so an error names the first faulty row in file order."""

    row: int
    order: int
    reason: str
    value: object


def raise_earliest(table: ColumnarTable, faults: Iterable[Fault | None]) -> None:
    """Raise the fault at the earliest row (ties: the lowest ``order``) as a DataError at its line."""
    found = [f for f in faults if f is not None]
    if found:
        fault = min(found, key=lambda f: (f.row, f.order))
        raise table.error(fault.row, fault.reason, fault.value)


def first_fault(table: ColumnarTable, column: str, bad_values: np.ndarray, reason: str,
                rows: np.ndarray | None = None, order: int = 0) -> Fault | None:
    """The fault at the first row (of ``rows``, all when None) whose ``column`` value is flagged by the
    boolean mask ``bad_values`` over the column's distinct values (:meth:`ColumnarTable.values`), or None."""
    bad_values = np.asarray(bad_values, dtype=bool)
    if not bad_values.any():
        return None
    indices = table.indices(column)
    hits = np.flatnonzero(bad_values[indices] if rows is None else bad_values[indices[rows]])
    if not len(hits):
        return None
    row = int(hits[0]) if rows is None else int(rows[hits[0]])
    return Fault(row, order, reason, table.field(column, row))


def empty_fields(table: ColumnarTable, columns: Sequence[str], rows: np.ndarray | None = None) -> Fault | None:
    """The first row (of ``rows``, all when None) with an empty or whitespace-only field of ``columns``
    ("empty <column>"; ties: the column listed first); the distinct values are checked, not the rows."""
    faults = []
    for order, column in enumerate(columns):
        values = table.columns[column].dictionary if column in table.columns else pa.array(
            table.values(column), type=pa.string())
        blank = pc.equal(pc.utf8_trim_whitespace(values), "").to_numpy(zero_copy_only=False)
        faults.append(first_fault(table, column, blank, f"empty {column}", rows, order))
    found = [f for f in faults if f is not None]
    return min(found, key=lambda f: (f.row, f.order)) if found else None


def repeated_rows(keys: Sequence[np.ndarray], keep: str = "first") -> tuple[np.ndarray, np.ndarray]:
    """(rows whose ``keys`` repeat another row's, the row each repeats), ascending: every row of a group but
    its first (``keep="first"``; the head is the group's first row) or but its last (``"last"``; the head is
    the group's last row). Sort-based on integer keys: O(n log n)."""
    order = np.lexsort([np.asarray(k) for k in keys[::-1]])
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for k in keys:
        ordered = np.asarray(k)[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    start = np.concatenate(([True], ~same))
    group = np.cumsum(start) - 1
    if keep == "last":
        head = order[np.concatenate((~same, [True]))][group]
    else:
        head = order[start][group]
    mask = order != head
    rows, heads = order[mask], head[mask]
    ascending = np.argsort(rows, kind="stable")
    return rows[ascending].astype(np.int64), heads[ascending].astype(np.int64)


#: what the message of a repeated row says, in every family: the flag, the config key and the argument
DUPLICATES_HINT = ("say what a repeat means with --duplicates keep, first or last (duplicates: in the config, "
                   "duplicates= in Python)")


def _as_dictionaries(columns: list[pa.ChunkedArray | None], names: Sequence[str]) -> dict[str, pa.DictionaryArray]:
    """One DictionaryArray (unified dictionary, int32 indices, one chunk) per column. Each parsed column is
    let go once converted (its list entry set to None), so at most one column is held twice."""
    out: dict[str, pa.DictionaryArray] = {}
    for k, name in enumerate(names):
        column = columns[k]
        columns[k] = None
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        column = column.unify_dictionaries()
        if column.num_chunks == 0:
            out[name] = pa.DictionaryArray.from_arrays(pa.array([], type=pa.int32()), pa.array([], type=pa.string()))
            continue
        dictionary = column.chunk(0).dictionary
        indices = np.empty(len(column), dtype=np.int32)
        start = 0
        for chunk in column.chunks:
            indices[start:start + len(chunk)] = chunk.indices.to_numpy(zero_copy_only=False)
            start += len(chunk)
        del column
        out[name] = pa.DictionaryArray.from_arrays(pa.array(indices), dictionary)
    return out


def _exact_rows(path: Path, header_width: int, positions: list[int]) -> tuple[list[list[str]], list[int]]:
    """The wanted fields of every data row and their lines, read by Python's csv module: a row with
    another number of fields than the header is a DataError naming its line."""
    sep = delimiter_of(path)
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


def read_columns(path: str | os.PathLike[str], layout: TableLayout, use_threads: bool = True) -> ColumnarTable:
    """Read a canonical table's columns (see the module docstring for the habits it accepts).

    Parameters
    ----------
    path : path-like
        The table: a TSV, or a CSV when the name ends in ``.csv``, with a header line.
    layout : TableLayout
        Its columns; a missing column is an error, another column a warning.
    use_threads : bool
        Let pyarrow parse blocks of the file on every core.

    Returns
    -------
    ColumnarTable
        Every layout column as a dictionary array, in file order.

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
    names = list(layout.columns)
    sep = delimiter_of(path)
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(use_threads=use_threads, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=sep),
            convert_options=pacsv.ConvertOptions(
                include_columns=[header[position[c]] for c in names],
                column_types={header[position[c]]: pa.dictionary(pa.int32(), pa.string()) for c in names},
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
        parsed = list(table.columns)
        del table
        columns = _as_dictionaries(parsed, names)
        n_rows = len(columns[names[0]])
        lines = RowLines(path, n_rows)
    except (pa.ArrowInvalid, pa.ArrowKeyError):
        rows, known = _exact_rows(path, len(header), [position[c] for c in names])
        values = list(zip(*rows)) if rows else [() for _ in names]
        columns = {name: pc.dictionary_encode(pa.array(list(column), type=pa.string()))
                   for name, column in zip(names, values)}
        columns = {name: pa.DictionaryArray.from_arrays(array.indices.cast(pa.int32()), array.dictionary)
                   for name, array in columns.items()}
        n_rows = len(rows)
        lines = RowLines(path, n_rows, known=np.asarray(known, dtype=np.int64))
    if n_rows == 0:
        raise DataError.at(path, 1, "no data rows after the header", sep.join(header))
    return ColumnarTable(path=path, layout=layout, columns=columns, lines=lines)
