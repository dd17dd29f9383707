"""Atomic writes: a file is written beside its destination and moved into place in one ``os.replace``.

A reader never sees a half-written file, and a write that fails leaves the old file, if any,
untouched and no temporary file behind. A process killed mid-write (``SIGKILL``, a node lost)
cannot remove its temporary file; the next write to the same path on the same host removes it,
so a resumed run leaves no stray file. Every writer of the library (canonical tables, metadata,
result tables, downloads) goes through :func:`atomic_file`.
"""
from __future__ import annotations

import glob
import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_file"]


def _host() -> str:
    """Return this host's name with the characters a file name or a glob pattern could trip on replaced."""
    return "".join(c if c.isalnum() or c == "-" else "-" for c in socket.gethostname()) or "host"


def _temp_path(path: str | os.PathLike[str]) -> Path:
    """Return a fresh, hidden file name beside ``path``: ``.<name>.<host>.<pid>.<random>.tmp``.

    The same directory, so the final move is atomic.
    """
    path = Path(path)
    return path.with_name(f".{path.name}.{_host()}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this host (one we may not signal counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_temps(path: Path) -> None:
    """Delete the temporary files of ``path`` left by writers on this host that no longer run."""
    prefix = f".{path.name}.{_host()}."
    for tmp in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        pid = tmp.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            tmp.unlink(missing_ok=True)


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "w", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing, which replaces ``path`` at the end of the block.

    On leaving the block without an error the file replaces ``path`` (parent directories are created),
    on an error it is deleted. Temporary files of ``path`` that killed writers on this host left
    behind are deleted first.

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
    _remove_stale_temps(path)
    tmp = _temp_path(path)
    try:
        with open(tmp, "xb" if binary else "x", **open_kwargs) as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
