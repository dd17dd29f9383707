"""Code a column of ids: each row's position among the distinct ids in natural order.

:func:`code_ids` gives every row of a text column its code (int32) and the distinct ids in natural order
(:mod:`manyjudges.core.natural_order`), the same whatever the order of the rows. Two ways, the same
result:

- **ids of one shape, a fixed prefix without digits and a number** (``doc-6819296``, ``w3851``, ``17``;
  no leading zero, at most 18 digits): the numbers are cut from the ids and cast by Arrow, then coded
  by a presence table (or a sort when they are sparse), and the distinct numbers put in the ids' text
  order (numbers left-aligned) unless every id is a number. No hashing of strings: this costs about
  what parsing the column did.
- **any other ids**: one hash pass (Arrow's dictionary encoding), the distinct ids put in natural order
  (:func:`~manyjudges.core.natural_order.natural_order`), the codes ranked through them.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from manyjudges.core.blocks import _BLOCK, _on_blocks
from manyjudges.core.natural_order import natural_order

__all__ = ["NumberedIds", "code_ids", "number_positions"]

#: 10, 100, ..., 10**18: a number has 1 + (how many of these it reaches) decimal digits
_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)
_POWERS_OF_TEN = 10 ** np.arange(0, 19, dtype=np.int64)


def code_ids(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Return each row's code and the distinct ids in natural order.

    Parameters
    ----------
    column : pyarrow.ChunkedArray or pyarrow.Array
        One id a row (no nulls): strings, or a dictionary of strings.

    Returns
    -------
    codes : numpy.ndarray
        ``ids[codes[r]]`` is row r's id; int32 (int64 past 2**31 - 1 distinct ids).
    ids : pyarrow.StringArray
        The distinct ids, in natural order.
    """
    if pa.types.is_dictionary(column.type):
        return _dictionary_codes(column)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    chunks = [c.cast(pa.string()) if pa.types.is_large_string(c.type) else c for c in chunks if len(c)]
    if not chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], type=pa.string())
    fast = _prefix_number_codes(chunks)
    return fast if fast is not None else _hashed_codes(pa.chunked_array(chunks, type=pa.string()))


def _dictionary_codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Code a dictionary-encoded column: the distinct values of its chunks' dictionaries coded, the rows mapped.

    Each chunk's dictionary is matched against the distinct values (a few per chunk), and its rows' indices
    read through that match, the chunks on every core: no chunk is re-encoded.
    """
    chunks = [c for c in (column.chunks if isinstance(column, pa.ChunkedArray) else [column]) if len(c)]
    if not chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], type=pa.string())
    dictionaries = [c.dictionary.cast(pa.string()) for c in chunks]
    distinct = pc.unique(pa.chunked_array(dictionaries, type=pa.string()))
    entry, ids = code_ids(distinct)
    codes = np.empty(sum(len(c) for c in chunks), dtype=entry.dtype)
    starts = np.cumsum([0] + [len(c) for c in chunks])

    def fill(k: int) -> None:
        match = entry[pc.index_in(dictionaries[k], value_set=distinct).to_numpy(zero_copy_only=False)]
        codes[starts[k]:starts[k + 1]] = match[chunks[k].indices.to_numpy(zero_copy_only=False)]

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(fill, range(len(chunks))))
    return codes, ids


def _hashed_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Code any ids: dictionary-encode, order the dictionary naturally, rank the indices."""
    encoded = pc.dictionary_encode(column).unify_dictionaries()
    dictionary = encoded.chunk(0).dictionary
    order = natural_order(dictionary)
    dtype = np.int64 if len(order) > np.iinfo(np.int32).max else np.int32
    rank = np.empty(len(order), dtype=dtype)
    rank[order] = np.arange(len(order), dtype=dtype)
    codes = np.empty(len(column), dtype=dtype)
    start = 0
    for chunk in encoded.chunks:
        codes[start:start + len(chunk)] = rank[chunk.indices.to_numpy(zero_copy_only=False)]
        start += len(chunk)
    return codes, dictionary.take(pa.array(order))


def _chunk_numbers(chunk: pa.Array, prefix: str) -> np.ndarray | None:
    """Return the numbers of a chunk's ids (int64), or None when an id is not ``prefix`` and a plain number.

    Arrow trims the prefix's characters from the left (the prefix has no digit, so this cuts the prefix, or
    more, which the check below refuses) and casts the rest; a plain number (no sign, no leading zero, at
    most 18 digits) is one whose digit count is the id's length less the prefix's, read from the offsets.
    """
    if chunk.null_count or (prefix and not pc.all(pc.starts_with(chunk, prefix)).as_py()):
        return None
    digits = pc.utf8_ltrim(chunk, characters=prefix) if prefix else chunk
    try:
        values = pc.cast(digits, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1, offset=4 * chunk.offset)
    width = np.diff(offsets) - len(prefix.encode())
    if int(width.min()) < 1 or int(width.max()) > 18:
        return None
    smallest = np.where(width > 1, _POWERS_OF_TEN[width - 1], 0)  # 0 .. 9, 10 .. 99, 100 .. 999, ...
    if not ((values >= smallest) & (values < _POWERS_OF_TEN[width])).all():
        return None
    return values


def _all_numbers(chunks: list[pa.Array], prefix: str) -> np.ndarray | None:
    """Return every row's number (int32 while they fit, else int64), or None when an id is of another shape.

    The chunks are cut and cast side by side, one thread a core (Arrow's kernels let go of Python's lock),
    and kept in order by a :class:`NumberedIds`.
    """
    coder = NumberedIds(prefix)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for numbers in pool.map(coder.numbers_of, chunks):
            if numbers is None:
                return None
            coder.keep(numbers)
    return coder.all_numbers()


def _prefix_of(first: str | None) -> str | None:
    """Return the prefix of ids shaped as ``first``: its text before its last digits (None: not that shape)."""
    prefix = first.rstrip("0123456789") if first is not None else None
    if prefix is None or prefix == first or any(c.isdigit() for c in prefix):
        return None
    return prefix


def _prefix_number_codes(chunks: list[pa.Array]) -> tuple[np.ndarray, pa.Array] | None:
    """Code ids that are one prefix and a number (module docstring), or None for any other ids.

    The numbers chunk by chunk (:func:`_all_numbers`), then :func:`_number_codes`.
    """
    prefix = _prefix_of(chunks[0][0].as_py())
    if prefix is None:
        return None
    values = _all_numbers(chunks, prefix)
    return None if values is None else _number_codes(values, prefix)


class NumberedIds:
    """A column of ids of one prefix and a number, coded as its chunks come (a file read batch by batch).

    :meth:`add` keeps each chunk's numbers (int32 while they fit), not its text; :meth:`codes` codes them
    all at the end, as :func:`code_ids` would have coded the whole column.
    """

    def __init__(self, prefix: str | None = None) -> None:
        self.prefix = prefix  # None until the first chunk with ids shows it (:meth:`shaped`)
        self.numbers: list[np.ndarray] = []

    def add(self, chunk: pa.Array) -> bool:
        """Keep the numbers of ``chunk``'s ids; False (nothing kept) when an id is not of the column's shape."""
        numbers = self.numbers_of(chunk) if self.shaped(chunk) else None
        return numbers is not None and self.keep(numbers)

    def shaped(self, chunk: pa.Array) -> bool:
        """Take the column's prefix from the first id of the first chunk with ids; False when it has none."""
        if self.prefix is None and len(chunk):
            self.prefix = _prefix_of(chunk[0].as_py())
            return self.prefix is not None
        return self.prefix is not None or not len(chunk)

    def numbers_of(self, chunk: pa.Array) -> np.ndarray | None:
        """Return the numbers of ``chunk``'s ids (int64), or None when an id is not of the column's shape.

        Needs the prefix (:meth:`shaped`); changes nothing, so chunks may be cut on several threads at once.
        """
        if not len(chunk):
            return np.zeros(0, dtype=np.int64)
        return None if self.prefix is None else _chunk_numbers(chunk, self.prefix)

    def keep(self, numbers: np.ndarray) -> bool:
        """Keep one chunk's numbers (int32 while they fit), after those of the chunks before it; True."""
        small = not len(numbers) or int(numbers.max()) <= np.iinfo(np.int32).max
        self.numbers.append(numbers.astype(np.int32) if small else numbers)
        return True

    def all_numbers(self) -> np.ndarray:
        """Return the numbers kept, every row's in order (int32 while they all fit), and let the chunks' go."""
        values = np.concatenate(self.numbers) if self.numbers else np.zeros(0, dtype=np.int32)
        self.numbers = []
        return values

    def codes(self) -> tuple[np.ndarray, pa.Array]:
        """Return (each row's code, the distinct ids in natural order), as :func:`code_ids` does; the numbers go."""
        values = self.all_numbers()
        if not len(values):
            return values, pa.array([], type=pa.string())
        return _number_codes(values, self.prefix or "")


def _number_codes(values: np.ndarray, prefix: str) -> tuple[np.ndarray, pa.Array]:
    """Code the rows' numbers ``values`` of ids ``prefix`` + number: one table from number to code.

    The table is read once per row, the codes written over the numbers (sparse numbers are sorted instead).
    """
    low, high = int(values.min()), int(values.max())
    if high - low >= 4 * len(values) + 1024:  # sparse numbers: sort them
        distinct, inverse = np.unique(values, return_inverse=True)
        if prefix:
            rank = _text_rank(distinct.astype(np.int64))
            distinct, inverse = distinct[np.argsort(rank)], rank[inverse]
        return _coded(inverse, distinct.astype(np.int64), prefix)
    distinct = _distinct_numbers(values, low, high)
    rank = _text_rank(distinct + low) if prefix else np.arange(len(distinct), dtype=np.int64)
    table = np.empty(high - low + 1, dtype=values.dtype)
    table[distinct] = rank
    _recode(values, table, low)
    del table
    ordered = np.empty_like(distinct)
    ordered[rank] = distinct + low
    return _coded(values, ordered, prefix)


def _distinct_numbers(values: np.ndarray, low: int, high: int) -> np.ndarray:
    """Return the distinct ``values`` less ``low``, ascending, from a presence table over ``low .. high``."""
    present = np.zeros(high - low + 1, dtype=bool)

    def mark(block: slice) -> None:
        present[values[block] - low] = True

    _on_blocks(mark, len(values))
    return np.flatnonzero(present)


def _recode(values: np.ndarray, table: np.ndarray, low: int) -> None:
    """Write ``table[value - low]`` over each of ``values``."""
    def recode(block: slice) -> None:
        values[block] = table[values[block] - low]

    _on_blocks(recode, len(values))


def number_positions(ids: pa.Array, wanted: pa.Array) -> np.ndarray | None:
    """Return the position of each of ``wanted`` in the distinct ``ids`` (int64, -1 where absent), by number.

    Only for ids of one prefix and a number (module docstring), ``wanted`` with the same prefix: the numbers
    are cut from both, and a table from number to position (or a sorted search, for sparse numbers) is read
    once per wanted id. None for any other ids (the caller hashes them).
    """
    if not len(ids) or not len(wanted) or ids.null_count or wanted.null_count:
        return None
    prefix = _prefix_of(ids[0].as_py())
    if prefix is None:
        return None
    have = _all_numbers(_slices(ids), prefix)
    want = _all_numbers(_slices(wanted), prefix) if have is not None else None
    if have is None or want is None:
        return None
    have, want = have.astype(np.int64, copy=False), want.astype(np.int64, copy=False)
    low, high = int(have.min()), int(have.max())
    inside = (want >= low) & (want <= high)
    if high - low >= 4 * len(have) + 1024:  # sparse numbers: a sorted search
        order = np.argsort(have, kind="stable")
        found = np.searchsorted(have[order], want)
        found = np.minimum(found, len(have) - 1)
        hit = inside & (have[order][found] == want)
        return np.where(hit, order[found], -1).astype(np.int64)
    table = np.full(high - low + 1, -1, dtype=np.int64)
    table[have[::-1] - low] = np.arange(len(have) - 1, -1, -1)  # a repeated id: its first position
    return np.where(inside, table[np.clip(want - low, 0, high - low)], -1)


def _slices(array: pa.Array) -> list[pa.Array]:
    """Return ``array`` in slices of ``_BLOCK`` rows (:mod:`~manyjudges.core.blocks`), for :func:`_all_numbers`."""
    return [array.slice(start, _BLOCK) for start in range(0, len(array), _BLOCK)]


def _coded(codes: np.ndarray, distinct: np.ndarray, prefix: str) -> tuple[np.ndarray, pa.Array]:
    """Return (codes as int32 when they fit, the ids ``prefix`` + each of ``distinct`` as text)."""
    dtype = np.int64 if len(distinct) > np.iinfo(np.int32).max else np.int32
    text = pc.cast(pa.array(distinct), pa.string())
    ids = pc.binary_join_element_wise(pa.scalar(prefix), text, "") if prefix else text
    return codes.astype(dtype, copy=False), ids


def _text_rank(distinct: np.ndarray) -> np.ndarray:
    """Return each of ``distinct`` (ascending numbers)'s rank when their decimal texts are sorted.

    Texts without leading zeros compare as the numbers left-aligned to the longest width, a shorter text
    first among equals (``"1"`` < ``"10"`` < ``"9"``). The ascending numbers are one sorted run per width,
    so a stable sort (timsort: it merges runs) of one key does it.
    """
    width = np.searchsorted(_POWERS, distinct, side="right") + 1
    widest = int(width.max(initial=1))
    if widest <= 17:
        key = distinct * _POWERS_OF_TEN[widest - width] * (widest + 1) + width
        order = np.argsort(key, kind="stable")
    else:
        order = np.lexsort((width, distinct * _POWERS_OF_TEN[18 - width]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank
