"""Errors raised when input data or downloads are bad, and the UTF-8 text reader every parser shares."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from manyjudges.core.data_warning import DataWarning

__all__ = ["ChecksumError", "DataError", "DataWarning", "DownloadError"]

#: bytes shown on each side of the first byte that is not UTF-8
_UTF8_CONTEXT = 20


class DataError(ValueError):
    """Bad input data: a malformed line, an invalid value, a wrong checksum.

    Raised with a message naming the file, the 1-based line number (when
    there is one) and the offending value, so the user can go straight to it.
    """

    path: str | None = None
    line: int | None = None
    value: Any = None

    @classmethod
    def at(
        cls,
        path: str | os.PathLike[str],
        line: int | None,
        reason: str,
        value: Any = None,
    ) -> DataError:
        """Build an error located at ``path`` (and ``line``, if given).

        Parameters
        ----------
        path : path-like
            The file holding the bad data.
        line : int or None
            1-based line number in the file (the header is line 1).
        reason : str
            What is wrong, e.g. ``"rank must be a positive integer"``.
        value : object, optional
            The offending value; shown with ``repr``.

        Returns
        -------
        DataError
            The error, with ``path``, ``line`` and ``value`` attributes set.
        """
        where = f"{os.fspath(path)}" if line is None else f"{os.fspath(path)}, line {line}"
        message = f"{where}: {reason}"
        if value is not None:
            message += f": {value!r}"
        err = cls(message)
        err.path = os.fspath(path)
        err.line = line
        err.value = value
        return err


def _not_utf8(path: str | os.PathLike[str]) -> DataError:
    """Return the DataError for a file that is not UTF-8 text.

    It names the file, the 1-based line of the first bad byte (lines end at LF) and the bytes around it
    (the line's own, up to 20 on each side).
    """
    data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        end = len(data) if end < 0 else end
        shown = data[max(start, exc.start - _UTF8_CONTEXT):min(end, exc.end + _UTF8_CONTEXT)].rstrip(b"\r")
        return DataError.at(path, data.count(b"\n", 0, exc.start) + 1,
                            "bytes that are not UTF-8 (save the file as UTF-8)", shown)
    return DataError.at(path, None, "not valid UTF-8 text (save the file as UTF-8)")


def _read_utf8(path: str | os.PathLike[str]) -> str:
    """Return the text of a UTF-8 file, line ends as they are.

    Bytes that are not UTF-8 raise :func:`_not_utf8`'s DataError (file, line, bytes), never a bare
    UnicodeDecodeError.
    """
    try:
        return Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _not_utf8(path) from None


class ChecksumError(DataError):
    """A fetched file's sha256 differs from the pinned one."""


class DownloadError(OSError):
    """A pinned file could not be fetched (no network, missing mirror file)."""
