"""Reading helpers shared by the parsers of published LLM-judge judgment files in JSON.

JSON Lines files (one JSON object a line: FastChat's MT-Bench judgments, Arena-Hard-Auto's) are read by
:func:`_json_lines`, a JSON list of records (AlpacaEval's ``annotations.json``, Chatbot Arena's battles)
by :func:`_json_records`; a field by :func:`_field_of`. Every error names the file, the line (or the
record) and the value. Verdicts a judge gave that name no winner are left out and counted, and
:func:`_warn_left_out` says how many, once a read.
"""
from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.io.engine.errors import DataError, DataWarning, _read_utf8


@dataclass(frozen=True)
class _FileVerdicts:
    """The verdicts read from one file, where each row was read there, and how many verdicts were left out.

    ``places[r]`` is the line of row r (JSON Lines), or its record, counted from 0 (a JSON list): ``unit``
    says which.
    """

    verdicts: pd.DataFrame
    places: list[int]
    left_out: int
    unit: str = "line"


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Return ``(line, object)`` of each non-blank line of a JSON Lines file, lines counted from 1.

    A DataError naming the file, the line and its start for a line that is not a JSON object.
    """
    out = []
    for number, text in enumerate(_read_utf8(path).splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError:
            raise DataError.at(path, number, "not a JSON object", text[:80]) from None
        if not isinstance(row, dict):
            raise DataError.at(path, number, "not a JSON object", text[:80])
        out.append((number, row))
    return out


def _json_records(path: Path) -> list[dict[str, Any]]:
    """Return the records of a file holding one JSON list of objects.

    A DataError naming the file (and the line, or the record and its start) otherwise.
    """
    try:
        data = json.loads(_read_utf8(path))
    except json.JSONDecodeError as exc:
        raise DataError.at(path, exc.lineno, "not valid JSON", exc.msg) from None
    if not isinstance(data, list):
        raise DataError.at(path, None, "must be a JSON list of records", type(data).__name__)
    for number, row in enumerate(data):
        if not isinstance(row, dict):
            raise DataError.at(path, None, f"record {number} is not a JSON object", str(row)[:80])
    return data


def _field_of(path: Path, line: int | None, row: Mapping[str, Any], key: str, kind: type | tuple[type, ...] = str,
             where: str = "") -> Any:
    """Return ``row[key]``, a non-empty value of ``kind`` (a str not blank; never a bool for int).

    A DataError naming the file, the ``line`` (or ``where``, e.g. "record 3: ") and the value otherwise.
    """
    if key not in row:
        raise DataError.at(path, line, f"{where}missing key {key!r}", ", ".join(row)[:80])
    value = row[key]
    bad = not isinstance(value, kind) or isinstance(value, bool) or (isinstance(value, str) and not value.strip())
    if bad:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise DataError.at(path, line, f"{where}{key} must be a non-empty {names}", value)
    return value


def _warn_left_out(counts: Mapping[Path, int], what: str) -> None:
    """Warn once (a :class:`~manyjudges.io.engine.errors.DataWarning`) of the verdicts ``what`` left out, by file."""
    left = {path: n for path, n in counts.items() if n}
    if left:
        files = "; ".join(f"{path}: {n}" for path, n in left.items())
        warnings.warn(f"left out {sum(left.values())} {what} ({files})", DataWarning, stacklevel=3)
