"""Tables as TSV or CSV text: pandas' ``to_csv`` bytes, formatted column by column with pyarrow when large.

``DataFrame.to_csv`` formats each float with Python's ``repr`` (the shortest text that reads back
to the same number), about a microsecond a value: ten million inferred labels with their
posteriors take 18 s to write. :func:`write_delimited` gives the same bytes faster for large
tables: pyarrow casts each column to text in C++ (floats to their shortest round-trip digits, as
``repr``), and three rewrites make its float text ``repr``'s exactly: an integral value gains
``.0`` (``1`` -> ``1.0``), an exponent gets two digits (``e-7`` -> ``e-07``), and the fixed text
pyarrow keeps for 1e-6 <= |x| < 1e-4 becomes ``repr``'s exponent form (``0.00001`` -> ``1e-05``).
That holds for |x| < 1e9 (checked value by value against ``repr`` on 21 million values in the
tests' property check); a table with a float beyond, a field that would need quoting (the
separator, a quote, a line break), a column that is not float64, integer or text, a single
column, or fewer than :data:`FAST_ROWS` rows is written by ``to_csv`` itself.
"""
from __future__ import annotations

import codecs
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from manyjudges.core.atomic import atomic_file
from manyjudges.io.columnar import delimiter_of

__all__ = ["FAST_ROWS", "float_text", "write_delimited", "write_table", "write_tsv_to"]

#: tables with fewer rows are written by pandas' ``to_csv`` (the per-value cost matters only for large ones)
FAST_ROWS = 100_000
#: floats are formatted by pyarrow only while every finite one is smaller than this in magnitude
FLOAT_LIMIT = 1e9
#: rows formatted and written at a time
_BLOCK_ROWS = 1 << 20


def float_text(values: np.ndarray) -> pa.Array:
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
        text = pc.replace_with_mask(text, pa.array(small), _exponent_form(values[small]))
    return text


def _two_digit_exponent(text: pa.Array) -> pa.Array:
    """``"2.5e-8"`` as ``"2.5e-08"``: a one-digit exponent (its sign second to last) gains a leading zero."""
    one_digit = pc.equal(pc.utf8_slice_codeunits(text, -2, -1), "-")
    padded = pc.binary_join_element_wise(pc.utf8_slice_codeunits(text, 0, -1), pc.utf8_slice_codeunits(text, -1),
                                         "0")
    return pc.if_else(one_digit, padded, text)


def _exponent_form(values: np.ndarray) -> pa.Array:
    """``repr``'s text of floats with 1e-6 <= |x| < 1e-4, which pyarrow writes fixed (``0.0000123``).

    The digits after the zeros of ``|x|``'s fixed text (four zeros below 1e-4, five below 1e-5) become
    ``d.ddd`` (or ``d``) and the exponent ``e-05`` (``e-06``); a negative value gains its ``-``.
    """
    size = np.abs(values)
    below = size < 1e-5  # exact on the double: its shortest text is below 1e-5 too
    fixed = pc.cast(pa.array(size), pa.string())
    digits = pc.if_else(pa.array(below), pc.utf8_slice_codeunits(fixed, 7), pc.utf8_slice_codeunits(fixed, 6))
    first, rest = pc.utf8_slice_codeunits(digits, 0, 1), pc.utf8_slice_codeunits(digits, 1)
    mantissa = pc.if_else(pc.equal(rest, ""), first, pc.binary_join_element_wise(first, rest, "."))
    exponent = pa.array(np.where(below, "e-06", "e-05"), type=pa.string())
    sign = pa.array(np.where(values < 0, "-", ""), type=pa.string())
    return pc.binary_join_element_wise(sign, mantissa, exponent, "")


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
        return pc.if_else(pc.is_nan(pa.array(values)), "", float_text(values))  # to_csv writes NaN as ""
    if pd.api.types.is_integer_dtype(column.dtype):
        return pc.cast(pa.array(column.to_numpy()), pa.string())
    text = _text_array(column)
    assert text is not None  # checked by _formattable
    return text


def write_delimited(df: pd.DataFrame, handle: Any, sep: str = "\t") -> None:
    r"""Write ``df.to_csv(handle, sep=sep, index=False, lineterminator="\n")``'s text to the open text ``handle``.

    Large tables are formatted by pyarrow (module docstring), the same bytes, a block of
    :data:`_BLOCK_ROWS` rows at a time (the text of one block held, not the table's): the block's columns
    side by side on the machine's cores (pyarrow's kernels let go of Python's lock), joined into one text
    and written as UTF-8 bytes straight to the file under a UTF-8 ``handle``.
    """
    names = [str(c) for c in df.columns]
    fast = len(df) >= FAST_ROWS and len(names) > 1 and all(isinstance(c, str) for c in df.columns) \
        and not _needs_quotes(pa.array(names, type=pa.string()), sep) \
        and all(_formattable(df.iloc[:, k], sep) for k in range(len(names)))
    if not fast:
        df.to_csv(handle, sep=sep, index=False, lineterminator="\n")
        return
    handle.write(sep.join(names) + "\n")
    raw = _utf8_buffer(handle)
    with ThreadPoolExecutor(max_workers=min(len(names), os.cpu_count() or 1)) as pool:
        for start in range(0, len(df), _BLOCK_ROWS):
            block = df.iloc[start:start + _BLOCK_ROWS]
            parts = list(pool.map(_column_text, [block.iloc[:, k] for k in range(len(names))]))
            lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*parts, sep), "", "\n")  # "a<sep>b\n"
            if raw is None:
                handle.write(pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(lines)], type=pa.int32()),
                                                                     lines), "")[0].as_py())
            else:
                offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=len(lines) + 1,
                                        offset=4 * lines.offset)
                raw.write(memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]])
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

    To an open text handle: pandas' ``to_csv`` text (:func:`~manyjudges.io.table_text.write_delimited`).
    """
    write_delimited(df, handle, sep)


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
        write_tsv_to(df, handle, delimiter_of(path))
