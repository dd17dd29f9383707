"""The checks every table reader shares.

Faults located at a row (the earliest raised), empty fields, repeated rows, and the words of a repeat's
message. A reader collects the faults it finds (:class:`Fault`: a row, an order among faults of one row, a
reason, a value), each from the distinct values of a column (:func:`_first_fault`, :func:`_empty_fields`)
or from its codes (:func:`_repeated_rows`), and raises the earliest (:func:`_raise_earliest`), so an
error always names the first faulty row in file order.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from manyjudges.core.packed_keys import last, prefix
from manyjudges.core.sorting import row_keys

if TYPE_CHECKING:
    from manyjudges.io.engine.columnar import ColumnarTable

__all__ = ["Fault", "check_duplicate_rule", "blank_strings", "sorted_rows"]


@dataclass(frozen=True)
class Fault:
    """A fault found at a row of a table.

    Of all faults found, the one at the earliest row (then the lowest ``order``) is raised, so an error
    names the first faulty row in file order.
    """

    row: int
    order: int
    reason: str
    value: object


def _raise_earliest(table: ColumnarTable, faults: Iterable[Fault | None]) -> None:
    """Raise the fault at the earliest row (ties: the lowest ``order``) as a DataError at its line."""
    found = [f for f in faults if f is not None]
    if found:
        fault = min(found, key=lambda f: (f.row, f.order))
        raise table.error(fault.row, fault.reason, fault.value)


def _first_fault(table: ColumnarTable, column: str, bad_values: np.ndarray, reason: str,
                rows: np.ndarray | None = None, order: int = 0) -> Fault | None:
    """Return the fault at the first row whose ``column`` value is flagged by ``bad_values``, or None.

    The rows searched are ``rows`` (all when None); ``bad_values`` is a boolean mask over the column's
    distinct values (:meth:`ColumnarTable.codes`).
    """
    bad_values = np.asarray(bad_values, dtype=bool)
    if not bad_values.any():
        return None
    indices = table.codes(column)[0]
    hits = np.flatnonzero(bad_values[indices] if rows is None else bad_values[indices[rows]])
    if not len(hits):
        return None
    row = int(hits[0]) if rows is None else int(rows[hits[0]])
    return Fault(row, order, reason, table.field(column, row))


def _empty_fields(table: ColumnarTable, columns: Sequence[str], rows: np.ndarray | None = None,
                 uncoded: Collection[str] = ()) -> Fault | None:
    """Return the first row with an empty or whitespace-only field of ``columns``, as a fault.

    The rows searched are ``rows`` (all when None); the reason is "empty <column>" (ties: the column
    listed first). A column's distinct values are checked, not its rows, except for the columns of
    ``uncoded``: those the caller never codes (a column of many values whose codes nothing needs), checked
    row by row as parsed, so that they are not coded for this check alone.
    """
    faults: list[Fault | None] = []
    for order, column in enumerate(columns):
        if column in uncoded and column in table.columns:
            blank = blank_strings(table.columns[column])
            hits = np.flatnonzero(blank if rows is None else blank[rows])
            if len(hits):
                row = int(hits[0]) if rows is None else int(rows[hits[0]])
                faults.append(Fault(row, order, f"empty {column}", table.field(column, row)))
            continue
        faults.append(_first_fault(table, column, blank_strings(table.codes(column)[1]), f"empty {column}", rows,
                                  order))
    found = [f for f in faults if f is not None]
    return min(found, key=lambda f: (f.row, f.order)) if found else None


#: the first bytes, in UTF-8, of the characters ``str.isspace`` calls whitespace (all of them below U+3001)
_SPACE_FIRST_BYTE = np.zeros(256, dtype=bool)
_SPACE_FIRST_BYTE[[chr(c).encode()[0] for c in range(0x3001) if chr(c).isspace()]] = True


def blank_strings(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Return whether each string is empty or whitespace only (Unicode whitespace, as ``str.isspace``).

    Only the strings whose first byte can begin a whitespace character are looked at whole.
    """
    if pa.types.is_dictionary(values.type):
        values = values.cast(pa.string())
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if not chunks:
        return np.zeros(0, dtype=bool)
    return np.concatenate([_blank_chunk(chunk) for chunk in chunks])


def _blank_chunk(chunk: pa.Array) -> np.ndarray:
    """:func:`blank_strings` of one Arrow string array: its first bytes read from its buffers."""
    if chunk.null_count or not pa.types.is_string(chunk.type) or not len(chunk):
        blank = pc.or_(pc.equal(pc.utf8_length(chunk), 0), pc.utf8_is_space(chunk))
        return np.asarray(blank.to_numpy(zero_copy_only=False), dtype=bool)
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1, offset=4 * chunk.offset)
    blank = offsets[1:] == offsets[:-1]
    data = chunk.buffers()[2]
    if data is None or not data.size:
        return blank
    first = np.frombuffer(data, dtype=np.uint8)[np.minimum(offsets[:-1], data.size - 1)]
    maybe = np.flatnonzero(~blank & _SPACE_FIRST_BYTE[first])
    if len(maybe):
        spaces = pc.utf8_is_space(chunk.take(pa.array(maybe)))
        blank[maybe] = np.asarray(spaces.to_numpy(zero_copy_only=False), dtype=bool)
    return blank


def _same_on_both_sides(table: ColumnarTable, first: str, second: str) -> np.ndarray:
    """Return the rows whose ``first`` and ``second`` fields are one non-empty value, ascending.

    The codes are compared through one shared list of values (the second column's distinct values matched
    once against the first's): no str a row.
    """
    code, firsts = table.codes(first)
    second_code, seconds = table.codes(second)
    in_first = pc.index_in(seconds, value_set=firsts).fill_null(-1)
    nonempty = np.asarray(pc.not_equal(firsts, "").to_numpy(zero_copy_only=False), dtype=bool)
    return np.flatnonzero((code == in_first.to_numpy(zero_copy_only=False)[second_code]) & nonempty[code])


def _repeated_rows(keys: Sequence[np.ndarray], keep: str = "first") -> tuple[np.ndarray, np.ndarray]:
    """Return (rows whose ``keys`` repeat another row's, the row each repeats), ascending.

    Every row of a group but its first (``keep="first"``; the head is the group's first row) or but its
    last (``"last"``; the head is the group's last row). Sort-based on integer keys (:func:`sorted_rows`),
    O(n log n); one key of codes without a repeat is seen by counting, O(n).
    """
    key = np.asarray(keys[0])
    if len(keys) == 1 and len(key) and key.dtype.kind in "iu" and 0 <= int(key.min()) \
            and int(key.max()) < 4 * len(key) + 1024:
        if int(np.bincount(key).max()) <= 1:  # one key of codes, none counted twice: no repeat, in O(n)
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
    return _repeats_of(*sorted_rows(keys), keep)


def sorted_rows(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Return (the rows sorted by ``keys``, then by row number; whether each sorted row's keys are the previous one's).

    The codes and row numbers are packed in one int64 key a row and sorted on every core when they fit
    (:func:`~manyjudges.core.sorting.row_keys`: equal prefixes are equal keys), else ``np.lexsort``.
    """
    packed = row_keys(keys)
    if packed is not None:
        group = prefix(packed[0], packed[1], 1)
        same = group[1:] == group[:-1]
        del group
        return last(*packed), same
    order = np.lexsort([np.asarray(k) for k in keys[::-1]])
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for k in keys:
        ordered = np.asarray(k)[order]
        same &= ordered[1:] == ordered[:-1]
    return order, same


def _repeats_of(order: np.ndarray, same: np.ndarray, keep: str = "first") -> tuple[np.ndarray, np.ndarray]:
    """:func:`_repeated_rows` from :func:`sorted_rows`' (sorted rows, whether each repeats the previous one's keys)."""
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
_DUPLICATES_HINT = ("say what a repeat means with --duplicates keep, first or last (duplicates: in the config, "
                   "duplicates= in Python)")


#: what a repeated row may mean in a table that holds one value per key (a rank, a grade): never "keep"
_ONE_VALUE_RULES = ("error", "first", "last")


def _check_one_value_rule(duplicates: str, table: str, why: str) -> None:
    """Raise a ValueError unless ``duplicates`` is error, first or last.

    ``keep`` would give ``table`` two values where it holds one (``why`` says which).
    """
    if duplicates == "keep":
        raise ValueError(f"duplicates='keep' makes no sense for {table}: {why}; use error (the default), first or last")
    if duplicates not in _ONE_VALUE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(_ONE_VALUE_RULES)}, got {duplicates!r}")


def _duplicate_judgments(table: ColumnarTable, key: Sequence[str], duplicates: str
                        ) -> tuple[Fault | None, np.ndarray | None]:
    """Return what a judgments table does with a row repeating an earlier row's ``key`` columns.

    By ``duplicates``: ``"keep"`` nothing; ``"error"`` the fault at the first repeat, naming the line it
    repeats; ``"first"`` or ``"last"`` the rows kept, only that one of each repeated key (None: every row).
    """
    if duplicates == "keep":
        return None, None
    repeated, heads = table.repeated(list(key), "last" if duplicates == "last" else "first")
    if not len(repeated):
        return None, None
    if duplicates == "error":
        row, first = int(repeated[0]), int(heads[0])
        return Fault(row, 20, f"({', '.join(key)}) already judged on line {table.line(first)}; {_DUPLICATES_HINT}",
                     table.row_text(row)), None
    mask = np.ones(table.n_rows, dtype=bool)
    mask[repeated] = False
    return None, np.flatnonzero(mask)


def check_duplicate_rule(duplicates: str, repeat: str, table: str) -> None:
    """``duplicates`` must be error, first or last: a repeated ``repeat`` would give ``table`` two ranks."""
    _check_one_value_rule(duplicates, table, f"a repeated {repeat} would give it two ranks")
