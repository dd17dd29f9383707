"""Tables as TSV or CSV text: pandas' ``to_csv`` bytes, formatted column by column with pyarrow when large.

``DataFrame.to_csv`` formats each float with Python's ``repr`` (the shortest text that reads back
to the same number), about a microsecond a value: ten million inferred labels with their
posteriors take 18 s to write. :func:`_write_delimited` gives the same bytes faster for large
tables: pyarrow casts each column to text in C++ (floats to their shortest round-trip digits, as
``repr``), and three rewrites make its float text ``repr``'s exactly: an integral value gains
``.0`` (``1`` -> ``1.0``), an exponent gets two digits (``e-7`` -> ``e-07``), and the fixed text
pyarrow keeps for 1e-6 <= |x| < 1e-4 becomes ``repr``'s exponent form (``0.00001`` -> ``1e-05``).
That holds for |x| < 1e9 (checked value by value against ``repr`` in the tests, on some 300,000
floats of every kind: subnormal to 1e9, integral, near each switch); a table with a float beyond,
a field that would need quoting (the separator, a quote, a line break), a column that is not
float64, integer or text, a single column, or fewer than :data:`_FAST_ROWS` rows is written by
``to_csv`` itself.
"""
from __future__ import annotations

import codecs
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from manyjudges.core.atomic import atomic_file
from manyjudges.io.engine.columnar import _delimiter_of

__all__ = ["write_table", "write_tsv_to"]

#: tables with fewer rows are written by pandas' ``to_csv`` (the per-value cost matters only for large ones)
_FAST_ROWS = 100_000
#: floats are formatted by pyarrow only while every finite one is smaller than this in magnitude
FLOAT_LIMIT = 1e9
#: rows formatted and written at a time
_BLOCK_ROWS = 1 << 17


def _float_text(values: np.ndarray) -> pa.Array:
    """Each float64 as ``repr`` writes it (``|x| < FLOAT_LIMIT``; NaN as ``nan``, infinities as ``inf``).

    Only the values whose pyarrow text differs are rewritten, by slicing and joining text (no regular
    expression): the integral ones and those under 1e-4.
    """
    values = np.asarray(values, dtype=np.float64)
    text = pc.cast(pa.array(values), pa.string())
    whole = np.isfinite(values) & (values == np.trunc(values))
    if whole.any():
        mask = pa.array(whole)
        text = pc.replace_with_mask(text, mask, pc.binary_join_element_wise(text.filter(mask), ".0", ""))
    size = np.abs(values)
    tiny = (size < 1e-6) & (values != 0)  # pyarrow writes these with an exponent: pad it to two digits
    if tiny.any():
        mask = pa.array(tiny)
        text = pc.replace_with_mask(text, mask, _two_digit_exponent(text.filter(mask)))
    small = (size < 1e-4) & (size >= 1e-6)  # pyarrow writes these fixed, repr with an exponent
    if small.any():
        mask = pa.array(small)
        text = pc.replace_with_mask(text, mask, _exponent_form(text.filter(mask), size[small] < 1e-5))
    return text


def _two_digit_exponent(text: pa.Array) -> pa.Array:
    """``"2.5e-8"`` as ``"2.5e-08"``: a one-digit exponent (its sign second to last) gains a leading zero."""
    one_digit = pc.equal(pc.utf8_slice_codeunits(text, -2, -1), "-")
    return pc.if_else(one_digit, pc.utf8_replace_slice(text, -1, -1, "0"), text)  # "0" put before the last digit


#: a position past the end of any text (``utf8_replace_slice`` there appends)
_END = 1 << 62


def _exponent_form(fixed: pa.Array, below: np.ndarray) -> pa.Array:
    """``repr``'s text of floats with 1e-6 <= |x| < 1e-4 from pyarrow's fixed text of them (``-0.0000123``).

    The significant digits (what is left once the leading ``-``, ``0`` and ``.`` are trimmed) become
    ``d.ddd`` (or ``d``), followed by ``e-05``, or ``e-06`` where ``below`` (|x| < 1e-5, exact on the
    double: its shortest text is below 1e-5 too); a negative value keeps its ``-``.
    """
    digits = pc.utf8_ltrim(fixed, characters="-0.")
    mantissa = pc.utf8_rtrim(pc.utf8_replace_slice(digits, 1, 1, "."), characters=".")  # "d." (one digit) -> "d"
    text = pc.if_else(pa.array(below), pc.utf8_replace_slice(mantissa, _END, _END, "e-06"),
                      pc.utf8_replace_slice(mantissa, _END, _END, "e-05"))
    negative = pc.starts_with(fixed, "-")
    if pc.any(negative).as_py():
        text = pc.if_else(negative, pc.binary_join_element_wise("-", text, ""), text)
    return text


def _needs_quotes(text: pa.Array, sep: str) -> bool:
    special = "[" + "".join({"\t": r"\t", ",": ","}.get(sep, sep)) + r"\"\n\r]"
    return bool(pc.any(pc.match_substring_regex(text, special)).as_py())


def _formattable(column: pd.Series, sep: str) -> bool:
    """Tell whether pyarrow can write every value of ``column`` as ``to_csv`` does (else ``to_csv`` writes the table).

    Float64 below :data:`FLOAT_LIMIT`, plain integers, and text that needs no quotes.
    """
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    if dtype == np.float64:
        values = column.to_numpy(np.float64)
        finite = values[np.isfinite(values)]
        return not (len(finite) and float(np.abs(finite).max()) >= FLOAT_LIMIT)
    if pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return True
    text = _text_array(column)
    return text is not None and not _needs_quotes(text, sep)


def _text_array(column: pd.Series) -> pa.Array | None:
    """Return a text column as one Arrow string array (missing values empty), or None when it is not text."""
    try:
        array = pa.array(column, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(array, pa.ChunkedArray):  # an Arrow-backed column put together from several
        array = array.combine_chunks()
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    return array.cast(pa.string()).fill_null("")


def _column_text(column: pd.Series) -> pa.Array:
    """Return a column :func:`_formattable` found writable as ``to_csv`` writes it, one string a value."""
    if column.dtype == np.float64:
        values = column.to_numpy(np.float64)
        return pc.if_else(pc.is_nan(pa.array(values)), "", _float_text(values))  # to_csv writes NaN as ""
    if pd.api.types.is_integer_dtype(column.dtype):
        return pc.cast(pa.array(column.to_numpy()), pa.string())
    text = _text_array(column)
    assert text is not None  # checked by _formattable
    return text


def _write_delimited(df: pd.DataFrame, handle: Any, sep: str = "\t") -> None:
    r"""Write ``df.to_csv(handle, sep=sep, index=False, lineterminator="\n")``'s text to the open text ``handle``.

    Large tables are formatted by pyarrow (module docstring), the same bytes, in blocks of
    :data:`_BLOCK_ROWS` rows (the text of a few blocks held, not the table's): blocks side by side on the
    machine's cores (pyarrow's kernels let go of Python's lock), each made lines by pyarrow's CSV writer (no
    quoting: the texts need none) and written, in order, as UTF-8 bytes straight to the file under a UTF-8
    ``handle`` while the next blocks are formatted.
    """
    names = [str(c) for c in df.columns]
    fast = len(df) >= _FAST_ROWS and len(names) > 1 and all(isinstance(c, str) for c in df.columns) \
        and not _needs_quotes(pa.array(names, type=pa.string()), sep) \
        and all(_formattable(df.iloc[:, k], sep) for k in range(len(names)))
    if not fast:
        df.to_csv(handle, sep=sep, index=False, lineterminator="\n")
        return
    handle.write(sep.join(names) + "\n")
    raw = _utf8_buffer(handle)
    options = pacsv.WriteOptions(include_header=False, delimiter=sep, quoting_style="none", batch_size=1 << 16)

    def block_text(start: int) -> pa.Table:
        block = df.iloc[start:start + _BLOCK_ROWS]
        return pa.table([_column_text(block.iloc[:, k]) for k in range(len(names))],
                        names=[str(k) for k in range(len(names))])

    def write(lines: pa.Table) -> None:
        if raw is not None:  # straight to the file (a growing buffer would cost more than the formatting)
            pacsv.write_csv(lines, raw, options)
            return
        sink = pa.BufferOutputStream()
        pacsv.write_csv(lines, sink, options)
        handle.write(sink.getvalue().to_pybytes().decode("utf-8"))

    cores = os.cpu_count() or 1
    pending: deque[Future[pa.Table]] = deque()
    with ThreadPoolExecutor(max_workers=cores) as pool:
        for start in range(0, len(df), _BLOCK_ROWS):
            pending.append(pool.submit(block_text, start))
            if len(pending) > cores:  # the oldest block written while the next ones are formatted
                write(pending.popleft().result())
        while pending:
            write(pending.popleft().result())
    if raw is not None:
        raw.flush()


def _utf8_buffer(handle: Any) -> Any:
    """Return the byte stream under the text ``handle`` (flushed) when it writes UTF-8, else None."""
    buffer = getattr(handle, "buffer", None)
    encoding = getattr(handle, "encoding", None)
    if buffer is None or encoding is None or codecs.lookup(encoding).name != "utf-8" or os.linesep != "\n":
        return None  # (where a text file turns "\n" into the system's line end, the text is written as text)
    handle.flush()
    return buffer


def write_tsv_to(df: pd.DataFrame, handle: Any, sep: str = "\t") -> None:
    r"""Write ``df`` as TSV text (CSV with ``sep=","``; header, no index, full precision, "\n" line ends).

    To an open text handle: pandas' ``to_csv`` text (:func:`~manyjudges.io.engine.table_text._write_delimited`).
    """
    _write_delimited(df, handle, sep)


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` atomically (:func:`~manyjudges.core.atomic.atomic_file`).

    A TSV, or a CSV when the name ends in ``.csv``.

    Parameters
    ----------
    df : pandas.DataFrame
        The table; rows are written in the order given, without the index.
    path : path-like
        Destination; parent directories are created if needed.
    """
    with atomic_file(path) as handle:
        write_tsv_to(df, handle, _delimiter_of(path))
