"""Read any published pairwise-verdict format behind one name, into a verdicts table.

The verdicts table is :mod:`manyjudges.io.tables.verdicts`'s.

:func:`read_published` reads files as their projects publish them, by format (:data:`FORMATS`):

- ``arena``: Chatbot Arena's own table, our canonical one (:func:`~manyjudges.io.tables.verdicts.read_verdicts`), or
  its JSON list of battles (``model_a``, ``model_b``, ``winner``, ``judge``, ``question_id``);
- ``llmfao``: :func:`~manyjudges.io.sources.llmfao.verdicts_from_llmfao` (``crowd-comparisons.csv`` and the
  GPT-4 and GPT-3.5 ``*-crowd-comparisons.csv``);
- ``prd``: :func:`~manyjudges.io.sources.prd.verdicts_from_prd` (``data/vicuna80/ratings-*/*.jsonl``);
- ``pandalm``: :func:`~manyjudges.io.sources.pandalm.verdicts_from_pandalm` (``data/testset-v1.json`` and
  ``data/*-testset-v1.json``);
- ``mt_bench``: :func:`~manyjudges.io.sources.mt_bench._verdicts_from_mt_bench` (FastChat
  ``model_judgment/*_pair.jsonl``);
- ``arena_hard``: :func:`~manyjudges.io.sources.arena_hard._verdicts_from_arena_hard`
  (``model_judgment/<judge>/<model>.jsonl``);
- ``alpaca_eval``: :func:`~manyjudges.io.sources.alpaca_eval._verdicts_from_alpaca_eval` (``annotations.json``).

A directory stands for the files in it (and below) that its format reads (:data:`_FORMAT_FILES`), sorted.
:func:`convert` writes what was read as a canonical verdicts table.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.engine.checks import _DUPLICATES_HINT, _repeated_rows
from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.alpaca_eval import _alpaca_eval_file
from manyjudges.io.sources.arena_hard import ARENA_HARD_BASELINE, _arena_hard_file
from manyjudges.io.sources.json_judgments import _field_of, _FileVerdicts, _json_records, _warn_left_out
from manyjudges.io.sources.llmfao import _LLMFAO_FILES, verdicts_from_llmfao
from manyjudges.io.sources.mt_bench import _mt_bench_file
from manyjudges.io.sources.pandalm import _PANDALM_HUMANS, verdicts_from_pandalm
from manyjudges.io.sources.prd import _prd_verdicts_located
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.preferences import DUPLICATE_RULES
from manyjudges.io.tables.verdicts import (
    VERDICT_COLUMNS,
    _without_partial_features,
    read_verdicts,
    verdicts_frame,
    write_verdicts,
)

__all__ = ["FORMATS", "convert", "read_published"]

#: the published formats :func:`read_published` reads
FORMATS = ("arena", "llmfao", "prd", "pandalm", "mt_bench", "arena_hard", "alpaca_eval")
#: a format -> the file-name patterns a directory is expanded to (searched in it and below)
_FORMAT_FILES: dict[str, tuple[str, ...]] = {
    "arena": ("*.tsv", "*.csv", "*.json"), "llmfao": tuple(_LLMFAO_FILES),
    "prd": ("answer[_-]*-vs-answer[_-]*.jsonl",), "pandalm": (_PANDALM_HUMANS, "*-testset-v1.json"),
    "mt_bench": ("*_pair.jsonl",), "arena_hard": ("*.jsonl",), "alpaca_eval": ("annotations*.json",),
}
#: Arena's battle winners, as written in its JSON battles, all among the canonical winners
_ARENA_WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


@dataclass
class _Located:
    """A verdicts table and where each row was read: ``files[k]`` (a path, its unit) for rows from ``starts[k]``."""

    verdicts: pd.DataFrame
    files: list[tuple[Path, str]]
    starts: list[int]
    places: np.ndarray

    def where(self, row: int) -> tuple[Path, int | None, str]:
        """Return (file, line or None, how the place is told) of row ``row``."""
        path, unit = self.files[int(np.searchsorted(self.starts, row, side="right")) - 1]
        place = int(self.places[row])
        return (path, place, f"{path}, line {place}") if unit == "line" else (path, None, f"{path}, {unit} {place}")


def _joined(parts: Sequence[tuple[Path, _FileVerdicts]]) -> _Located:
    """Return the rows of several files' verdicts, one after the other, and where each was read."""
    if not parts:
        return _located_rows(verdicts_frame([], [], [], [], []), [], "line")
    located = _located_rows(_without_partial_features(pd.concat([r.verdicts for _, r in parts], ignore_index=True)),
                            [(p, r.places) for p, r in parts], "line")
    located.files = [(p, r.unit) for p, r in parts]
    return located


def _each_file(read: Callable[[Path], _FileVerdicts], what: str) -> Callable[[list[Path]], _Located]:
    """Return a reader of files read one by one by ``read``, warning once of the verdicts ``what`` left out."""
    def located(paths: list[Path]) -> _Located:
        parts = [(p, read(p)) for p in paths]
        _warn_left_out({p: r.left_out for p, r in parts}, what)
        return _joined(parts)
    return located


def _battles(path: Path) -> _FileVerdicts:
    """Read Chatbot Arena's JSON list of battles: prompt = ``question_id``, judge = ``judge``, record by record."""
    rows = []
    for number, row in enumerate(_json_records(path)):
        where = f"record {number}: "
        prompt = _field_of(path, None, row, "question_id", (str, int), where)
        values = [_field_of(path, None, row, key, str, where) for key in ("judge", "model_a", "model_b", "winner")]
        if values[3] not in _ARENA_WINNERS:
            raise DataError.at(path, None, f"{where}winner must be {', '.join(_ARENA_WINNERS)}", values[3])
        if values[1] == values[2]:
            raise DataError.at(path, None, f"{where}model_a and model_b are the same model", values[1])
        rows.append((str(prompt), *values))
    frame = verdicts_frame(*([r[k] for r in rows] for k in range(5)))
    return _FileVerdicts(frame, list(range(len(rows))), 0, unit="record")


def _arena_file(path: Path) -> _FileVerdicts:
    """Read one Arena file: a JSON list of battles, or a canonical verdicts table (rows told by data row, from 1)."""
    if path.suffix == ".json":
        return _battles(path)
    frame = read_verdicts(path)
    return _FileVerdicts(frame, list(range(1, len(frame) + 1)), 0, unit="data row")


def _llmfao_file(path: Path) -> _FileVerdicts:
    """Read one LLMFAO comparisons file (rows told by data row, from 1)."""
    frame = verdicts_from_llmfao([path])
    return _FileVerdicts(frame, list(range(1, len(frame) + 1)), 0, unit="data row")


def _prd(paths: list[Path]) -> _Located:
    """Read PRD verdict files, each row at its file's line."""
    frame, origins = _prd_verdicts_located(paths)
    parts: list[tuple[Path, list[int]]] = []
    for path, line in origins:
        if not parts or parts[-1][0] != path:
            parts.append((path, []))
        parts[-1][1].append(line)
    return _located_rows(frame, parts, "line")


def _located_rows(frame: pd.DataFrame, parts: list[tuple[Path, list[int]]], unit: str) -> _Located:
    """Return ``frame`` located by consecutive runs of rows, (file, their places), in row order."""
    starts = list(np.cumsum([0] + [len(places) for _, places in parts[:-1]]))
    places = np.concatenate([np.asarray(p, dtype=np.int64) for _, p in parts]) if parts else np.zeros(0, int)
    return _Located(frame, [(p, unit) for p, _ in parts], [int(s) for s in starts], places)


def _pandalm(paths: list[Path]) -> _Located:
    """Read the PandaLM files, each row told by its row in the table read (the records are matched across files)."""
    frame = verdicts_from_pandalm(paths)
    human = next((p for p in paths if p.name == _PANDALM_HUMANS), paths[0])
    return _located_rows(frame, [(human, list(range(1, len(frame) + 1)))], "verdict row (all files)")


#: a format -> its reader of the (expanded) files, with where each row was read
_READERS: dict[str, Callable[..., _Located]] = {
    "arena": _each_file(_arena_file, ""),
    "llmfao": _each_file(_llmfao_file, ""),
    "prd": _prd,
    "pandalm": _pandalm,
    "mt_bench": _each_file(_mt_bench_file, "MT-Bench verdicts that failed (error)"),
    "alpaca_eval": _each_file(_alpaca_eval_file, "AlpacaEval annotations without a preference"),
}


def _expand(paths: PathLike | Sequence[PathLike], fmt: str) -> list[Path]:
    """Return the files of ``paths`` (one or several), each directory replaced by the files in it ``fmt`` reads.

    A directory's files (:data:`_FORMAT_FILES`, searched in it and below) come sorted; a ValueError names a
    directory without one, and a FileNotFoundError a path that does not exist.
    """
    given = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: list[Path] = []
    for path in map(Path, given):
        if path.is_dir():
            found = sorted({f for pattern in _FORMAT_FILES[fmt] for f in path.rglob(pattern) if f.is_file()})
            if not found:
                raise ValueError(f"{path}: no file that {fmt} reads ({', '.join(_FORMAT_FILES[fmt])})")
            out.extend(found)
        elif path.is_file():
            out.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    if not out:
        raise ValueError(f"{fmt} needs files; got none")
    return out


def _kept_rows(located: _Located, duplicates: str) -> np.ndarray | None:
    """Return the rows ``duplicates`` keeps of rows repeating an earlier row's (prompt, judge, model_a, model_b).

    None: every row. ``"error"`` raises a DataError at the first repeat, naming where both rows were read.
    """
    if duplicates == "keep" or not len(located.verdicts):
        return None
    keys = [pd.factorize(located.verdicts[c])[0] for c in VERDICT_COLUMNS[:4]]
    repeated, heads = _repeated_rows(keys, "last" if duplicates == "last" else "first")
    if not len(repeated):
        return None
    if duplicates == "error":
        row, first = int(repeated[0]), int(heads[0])
        path, line, told = located.where(row)
        reason = f"(prompt, judge, model_a, model_b) already judged at {located.where(first)[2]}; {_DUPLICATES_HINT}"
        if line is None:  # the place is a record or a row, not a line: said in the reason
            reason = f"{told.removeprefix(f'{path}, ')}: {reason}"
        value = "\t".join(map(str, located.verdicts.iloc[row][VERDICT_COLUMNS]))
        raise DataError.at(path, line, reason, value)
    mask = np.ones(len(located.verdicts), dtype=bool)
    mask[repeated] = False
    return np.flatnonzero(mask)


def read_published(paths: PathLike | Sequence[PathLike], fmt: str, duplicates: str = "keep",
                   baseline: str = ARENA_HARD_BASELINE) -> pd.DataFrame:
    """Read pairwise verdicts published in format ``fmt`` as one verdicts table.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        The files as published, one or several, in any order the format allows; a directory stands for
        the files in it and below that ``fmt`` reads (:data:`_FORMAT_FILES`), sorted (a PRD ratings folder,
        an Arena-Hard ``model_judgment/<judge>/`` folder).
    fmt : str
        One of :data:`FORMATS` (the module's docstring says which parser reads each).
    duplicates : {"keep", "error", "first", "last"}
        What a row repeating an earlier row's (prompt, judge, model_a, model_b) means, as in
        :func:`~manyjudges.io.tables.verdicts.read_verdicts`: one more verdict (``"keep"``, the default: a judge
        may be asked twice), an ``"error"`` naming where both were read, or only the ``"first"`` or the
        ``"last"`` counts. Rows are compared in the order read.
    baseline : str
        ``arena_hard`` only: the baseline of lines that do not name one
        (:func:`~manyjudges.io.sources.arena_hard._verdicts_from_arena_hard`).

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner`` (str), then ``p_b`` for ``alpaca_eval`` and, when every
        file has the outputs, ``length_a, length_b`` (their characters).

    Raises
    ------
    ValueError
        For a format not among :data:`FORMATS` (naming them), an unknown ``duplicates`` rule, no file.
    DataError
        Naming the file, line (or record) and value, as the format's parser does, or the first repeat
        (with ``duplicates="error"``).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown verdicts format {fmt!r}; known: {', '.join(FORMATS)}")
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, got {duplicates!r}")
    files = _expand(paths, fmt)
    if fmt == "arena" and len(files) == 1 and files[0].suffix != ".json":
        return read_verdicts(files[0], duplicates)  # its own repeat check names both lines
    located = _arena_hard(files, baseline) if fmt == "arena_hard" else _READERS[fmt](files)
    kept = _kept_rows(located, duplicates)
    return located.verdicts if kept is None else located.verdicts.iloc[kept].reset_index(drop=True)


def _arena_hard(paths: list[Path], baseline: str) -> _Located:
    """Read Arena-Hard-Auto judgment files, ``baseline`` where a line names none."""
    return _each_file(lambda p: _arena_hard_file(p, baseline), "Arena-Hard games without a score (null)")(paths)


def convert(paths: PathLike | Sequence[PathLike], fmt: str, output: PathLike, duplicates: str = "keep",
            baseline: str = ARENA_HARD_BASELINE) -> pd.DataFrame:
    """Read ``paths`` by :func:`read_published` and write the canonical verdicts table to ``output``, atomically.

    A TSV, or a CSV when ``output`` ends in ``.csv``, header ``prompt, judge, model_a, model_b, winner`` (an
    extra column such as ``p_b`` is not written). Returns the table read; nothing is written if reading fails.
    """
    verdicts = read_published(paths, fmt, duplicates, baseline)
    write_verdicts(verdicts, output)
    return verdicts
