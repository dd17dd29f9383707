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

import os
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

    Only the values whose pyarrow text differs are rewritten: the integral ones and those under 1e-4.
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
        text = pc.replace_with_mask(text, mask, pc.replace_substring_regex(text.filter(mask), r"e([+-])(\d)$",
                                                                           r"e\10\2"))
    small = (size < 1e-4) & (size >= 1e-6)  # pyarrow writes these fixed, repr with an exponent
    if small.any():
        mask = pa.array(small)
        part = text.filter(mask)
        for zeros, exponent in (("00000", "06"), ("0000", "05")):
            part = pc.replace_substring_regex(part, rf"^(-?)0\.{zeros}([1-9])(\d*)$", rf"\1\2.\3e-{exponent}")
        text = pc.replace_with_mask(text, mask, pc.replace_substring(part, ".e", "e"))
    return text


def _needs_quotes(text: pa.Array, sep: str) -> bool:
    special = "[" + "".join({"\t": r"\t", ",": ","}.get(sep, sep)) + r"\"\n\r]"
    return bool(pc.any(pc.match_substring_regex(text, special)).as_py())


def _column_text(column: pd.Series, sep: str) -> pa.Array | None:
    """Return the column as ``to_csv`` writes it, or None when only ``to_csv`` itself should."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return None
    if dtype == np.float64:
        values = column.to_numpy(np.float64)
        finite = values[np.isfinite(values)]
        if len(finite) and float(np.abs(finite).max()) >= FLOAT_LIMIT:
            return None
        text = float_text(values)
        return pc.if_else(pc.is_nan(pa.array(values)), "", text)  # to_csv writes NaN as an empty field
    if pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return pc.cast(pa.array(column.to_numpy()), pa.string())
    try:
        array = pa.array(column, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(array, pa.ChunkedArray):  # an Arrow-backed column put together from several
        array = array.combine_chunks()
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    array = array.cast(pa.string()).fill_null("")
    return None if _needs_quotes(array, sep) else array


def write_delimited(df: pd.DataFrame, handle: Any, sep: str = "\t") -> None:
    r"""Write ``df.to_csv(handle, sep=sep, index=False, lineterminator="\n")``'s text to the open text ``handle``.

    Large tables are formatted by pyarrow (module docstring), the same bytes.
    """
    names = [str(c) for c in df.columns]
    columns = None
    if len(df) >= FAST_ROWS and len(names) > 1 and all(isinstance(c, str) for c in df.columns) \
            and not _needs_quotes(pa.array(names, type=pa.string()), sep):
        columns = [_column_text(df.iloc[:, k], sep) for k in range(len(names))]
    if columns is None or any(c is None for c in columns):
        df.to_csv(handle, sep=sep, index=False, lineterminator="\n")
        return
    handle.write(sep.join(names) + "\n")
    for start in range(0, len(df), _BLOCK_ROWS):
        parts = [c.slice(start, _BLOCK_ROWS) for c in columns if c is not None]  # none is (checked above)
        lines = pc.binary_join_element_wise(*parts, sep) if len(parts) > 1 else parts[0]
        block = pa.ListArray.from_arrays(pa.array([0, len(lines)], type=pa.int32()), lines)
        handle.write(pc.binary_join(block, "\n")[0].as_py() + "\n")


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
