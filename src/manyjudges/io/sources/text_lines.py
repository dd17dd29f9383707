"""Text-parsing helpers shared by the raw-format parsers of :mod:`manyjudges.io.sources`.

They implement the rules shared by the graded parsers, listed in
:mod:`manyjudges.io.sources`: a file's lines (:func:`_read_lines`, :func:`_data_lines`), a
header (:func:`_check_header`), a line's tab-separated fields (:func:`_tab_fields`) and the
first-label-wins rule for repeated (item, judge) pairs (:class:`_GradeCollector`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from manyjudges.io.engine.errors import DataError, _read_utf8
from manyjudges.io.tables.grades import _grades_frame

__all__ = ["PathLike"]

PathLike = str | os.PathLike[str]


def _read_lines(path: Path) -> list[str]:
    """Return the lines of a UTF-8 text file, without line terminators (LF or CRLF).

    Bytes that are not UTF-8 are a DataError naming the file, the line and the bytes.
    """
    return _read_utf8(path).splitlines()


def _data_lines(path: Path) -> list[tuple[int, str]]:
    """(1-based line number, text) of a text file's lines, trailing blank lines removed.

    A blank (empty or whitespace-only) line followed by a non-blank one is a
    DataError: none of the published files has one.
    """
    lines = _read_lines(path)
    while lines and not lines[-1].strip():
        lines.pop()
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            raise DataError.at(path, number, "blank line in the middle of the file", text)
    return list(enumerate(lines, start=1))


def _tab_fields(path: Path, number: int, text: str, names: list[str]) -> list[str]:
    """Return the tab-separated fields of a data line; DataError on a wrong count or an empty field."""
    fields = text.split("\t")
    if len(fields) != len(names):
        raise DataError.at(
            path, number, f"expected {len(names)} tab-separated fields, got {len(fields)}", text
        )
    for name, value in zip(names, fields):
        if value.strip() == "":
            raise DataError.at(path, number, f"empty {name}", text)
    return fields


def _check_header(path: Path, lines: list[tuple[int, str]], header: list[str]) -> None:
    """DataError unless the first line is exactly ``header`` and data rows follow."""
    if not lines:
        raise DataError.at(
            path, 1, f"header must be {chr(9).join(header)!r}", "(empty file)"
        )
    number, text = lines[0]
    if text.split("\t") != header:
        raise DataError.at(path, number, f"header must be {chr(9).join(header)!r}", text)
    if len(lines) == 1:
        raise DataError.at(path, number, "no data rows after the header", text)


class _GradeCollector:
    """Keeps the first label of each (item, judge); counts later repeats (equal and conflicting)."""

    def __init__(self) -> None:
        self.labels: dict[tuple[str, str], int] = {}
        self.duplicate = 0
        self.conflict = 0

    def add(self, item: str, judge: str, label: int) -> None:
        """Keep ``label`` for (item, judge) unless one is kept; count a repeat as equal or conflicting."""
        key = (item, judge)
        kept = self.labels.get(key)
        if kept is None:
            self.labels[key] = label
        elif kept == label:
            self.duplicate += 1
        else:
            self.conflict += 1

    def counts(self) -> dict[str, int]:
        """Return the repeats counted: ``duplicate`` (equal) and ``duplicate_conflict`` (conflicting)."""
        return {"duplicate": self.duplicate, "duplicate_conflict": self.conflict}

    def frame(self, path: Path) -> pd.DataFrame:
        """Return the kept labels as a grades table (:func:`_grades_frame`); a DataError naming ``path`` if none."""
        if not self.labels:
            raise DataError.at(path, None, "no grades left after dropping rows", "(no grades)")
        items, judges = zip(*self.labels)
        return _grades_frame(list(items), list(judges), list(self.labels.values()))
