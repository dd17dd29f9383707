"""Errors raised when input data or downloads are bad."""

from __future__ import annotations

import os
from typing import Any


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
    ) -> "DataError":
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


class ChecksumError(DataError):
    """A fetched file's sha256 differs from the pinned one."""


class DownloadError(OSError):
    """A pinned file could not be fetched (no network, missing mirror file)."""
