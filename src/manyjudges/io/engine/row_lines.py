"""The file line of each row of a table read column by column: found only when an error names one."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["RowLines"]

#: bytes read at a time when a row's line is looked up
_SCAN_BLOCK = 1 << 24


class RowLines:
    """The file line of each data row, found only when asked.

    ``lines[r]`` is row r's 1-based line (the header is line 1); an int array or a boolean mask
    gives an int64 array. Without ``known`` lines the file is scanned for blank lines (which the
    reader skips) the first time a line is asked for; a file without blank lines is not kept.
    """

    def __init__(self, path: Path, n_rows: int, known: np.ndarray | None = None) -> None:
        self.path, self.n_rows = path, n_rows
        self._known = None if known is None else np.asarray(known, dtype=np.int64)
        self._blank: np.ndarray | None = None  # line numbers of the blank lines, ascending
        self._rows: np.ndarray | None = None  # for a subset: the rows of the whole file it keeps

    def subset(self, rows: np.ndarray) -> RowLines:
        """Return the lines of the rows ``rows`` (positions), as lazy as these: ``subset(rows)[k] == self[rows[k]]``."""
        rows = np.asarray(rows, dtype=np.int64)
        kept = RowLines(self.path, len(rows), self._known)
        kept._blank = self._blank
        kept._rows = rows if self._rows is None else self._rows[rows]
        return kept

    def __len__(self) -> int:
        return self.n_rows

    def _blank_lines(self) -> np.ndarray:
        if self._blank is None:
            blank: list[np.ndarray] = []
            line = 1  # the line the next byte is on
            previous = b"\n"  # a file starts a line
            with open(self.path, "rb") as handle:
                while block := handle.read(_SCAN_BLOCK):
                    data = np.frombuffer(block, dtype=np.uint8)
                    ends = np.flatnonzero(data == 10)
                    if len(ends):
                        # line end at ends[j] closes the line starting after the previous end
                        starts = np.concatenate(([-1], ends[:-1])) + 1
                        empty = ends == starts
                        crlf = (ends - starts == 1) & (data[np.maximum(ends - 1, 0)] == 13)
                        empty |= crlf
                        if previous != b"\n":  # the first line of this block began in the last one
                            empty[0] = False
                        blank.append(line + np.flatnonzero(empty))
                        line += len(ends)
                    previous = block[-1:]
            self._blank = np.concatenate(blank) if blank else np.zeros(0, dtype=np.int64)
        return self._blank

    def _lines(self, rows: np.ndarray) -> np.ndarray:
        if self._rows is not None:
            rows = self._rows[rows]
        if self._known is not None:
            return self._known[rows]
        blank = self._blank_lines()
        lines = rows.astype(np.int64) + 2
        if len(blank) == 0:
            return lines
        # row r is on the smallest line L with L - 1 - (blank lines before L) = r + 1
        skipped = np.zeros_like(lines)
        for _ in range(len(blank) + 1):  # fixed point; at most one more blank line is passed per round
            moved = np.searchsorted(blank, lines + skipped, side="right")
            if np.array_equal(moved, skipped):
                break
            skipped = moved
        return lines + skipped

    def __getitem__(self, rows):
        if isinstance(rows, (int, np.integer)):
            return int(self._lines(np.asarray([int(rows)]))[0])
        index = np.arange(self.n_rows)[rows]
        return self._lines(np.asarray(index))

    def __array__(self, dtype=None, copy=None):
        lines = self._lines(np.arange(self.n_rows))
        return lines if dtype is None else lines.astype(dtype)

    def __iter__(self):
        return iter(self._lines(np.arange(self.n_rows)).tolist())

    def __repr__(self) -> str:
        return f"RowLines({str(self.path)!r}, {self.n_rows} rows)"

    def __deepcopy__(self, memo):  # pandas copies attrs with deepcopy: share the (immutable) state
        return self
