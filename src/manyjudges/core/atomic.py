"""Atomic writes: a file is written beside its destination and moved into place in one ``os.replace``.

A reader never sees a half-written file, and a write that fails (or is killed) leaves the old
file, if any, untouched and no temporary file behind. Every writer of the library (canonical
tables, metadata, result tables, downloads) goes through :func:`atomic_file`.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_file"]


def _temp_path(path: str | os.PathLike[str]) -> Path:
    """Return a fresh, hidden file name beside ``path`` (same directory, so the final move is atomic)."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "w", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing, which replaces ``path`` at the end of the block.

    On leaving the block without an error the file replaces ``path`` (parent directories are created),
    on an error it is deleted.

    ``mode`` is ``"w"`` (text: UTF-8, ``newline=""`` unless given) or ``"wb"``; the file is created
    new (mode ``x``), with the usual permissions. A ``path`` that exists and is not a regular file
    (``/dev/null``, ``/dev/stdout``, a named pipe) is written to directly: replacing it would put a
    regular file in the place of the device or pipe.
    """
    path = Path(path)
    binary = "b" in mode
    if not binary:
        open_kwargs.setdefault("encoding", "utf-8")
        open_kwargs.setdefault("newline", "")
    if path.exists() and not path.is_file() and not path.is_dir():
        with open(path, "wb" if binary else "w", **open_kwargs) as handle:
            yield handle
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(path)
    try:
        with open(tmp, "xb" if binary else "x", **open_kwargs) as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
