"""Reading a table batch by batch, its id columns coded as the batches come: for files too large to hold whole.

:func:`_read_batches` parses a file with pyarrow's streaming reader (``pyarrow.csv.open_csv``) and keeps
of each column to code only its ids' numbers (:class:`~manyjudges.core.id_codes.NumberedIds`), cut on a
pool of threads while the reader parses on. :func:`~manyjudges.io.engine.columnar.read_columns` uses it for
large files.
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Collection
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from manyjudges.core.id_codes import NumberedIds

_DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def _read_batches(path: Path, options: dict, fields: dict[str, str], code: Collection[str],
                 encode: Collection[str] = ()
                 ) -> tuple[dict[str, pa.ChunkedArray], dict[str, tuple[np.ndarray, pa.Array]], int] | None:
    """Parse ``path`` batch by batch (``pyarrow.csv.open_csv``), coding the columns of ``code`` as they come.

    ``options`` are ``pyarrow.csv``'s (read, parse, convert) and ``fields`` maps each canonical column to its
    header name. The columns of ``code`` keep only their ids' numbers
    (:class:`~manyjudges.core.id_codes.NumberedIds`), coded at the end; those of ``encode`` (parsed as text)
    are dictionary-encoded batch by batch; the others are kept as parsed. Each batch's numbers are cut, and
    its columns encoded, on a pool of threads while the reader parses the next. Returns (the other columns,
    the coded columns' (codes, ids), the number of rows), or None when an id is not one prefix and a number
    (the caller then parses the whole file).
    """
    coders = {c: NumberedIds() for c in code if c in fields}
    parts: dict[str, list[Future[pa.Array]]] = {c: [] for c in fields if c not in coders}
    n_rows = 0
    pending: deque[tuple[NumberedIds | None, Future]] = deque()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool, pacsv.open_csv(path, **options) as reader:
        for batch in reader:
            for column, coder in coders.items():  # cut on the pool while the reader parses on
                if not coder.shaped(batch.column(fields[column])):
                    return None
                pending.append((coder, pool.submit(coder.numbers_of, batch.column(fields[column]))))
            for column, chunks in parts.items():
                chunks.append(pool.submit(pc.dictionary_encode, batch.column(fields[column])) if column in encode
                              else _done(batch.column(fields[column])))
                pending.append((None, chunks[-1]))
            n_rows += batch.num_rows
            while len(pending) > 4 * (os.cpu_count() or 1) or (pending and pending[0][1].done()):
                if not _kept(*pending.popleft()):
                    return None
        while pending:
            if not _kept(*pending.popleft()):
                return None
    columns = {c: pa.chunked_array([chunk.result() for chunk in chunks],
                                   type=_DICTIONARY if c in encode else reader.schema.field(fields[c]).type)
               for c, chunks in parts.items()}
    return columns, {c: coder.codes() for c, coder in coders.items()}, n_rows


def _done(value: pa.Array) -> Future[pa.Array]:
    """Return ``value`` as a finished future (a column kept as parsed, beside those being encoded)."""
    future: Future[pa.Array] = Future()
    future.set_result(value)
    return future


def _kept(coder: NumberedIds | None, work: Future) -> bool:
    """Keep a batch's numbers in its coder, in batch order; False when its ids were of another shape.

    Without a coder, wait for the batch's encoding (True).
    """
    found = work.result()
    if coder is None:
        return True
    return found is not None and coder.keep(found)
