"""Parse the LLMJudge challenge (SIGIR 2024 LLM4Eval) runs and the TREC assessors' grades.

Each run ``submissions/scores/<run>.txt`` of llm4eval/LLMJudge-benchmark holds TREC qrel lines
``qid 0 pid grade``: one LLM judge's relevance grade 0-3 of each query-passage pair; the gold
``data/llmjudge_test_qrel_idx.txt`` of llm4eval/LLMJudge holds the TREC assessors' grades of the same
pairs in the same layout (Rahmani et al., "LLMJudge: LLMs for Relevance Judgments", LLM4Eval 2024).
See ``docs/data.md``.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.panel import PanelData, _panel_labels, _truth_frame
from manyjudges.io.sources.text_lines import PathLike, _data_lines, _GradeCollector

__all__ = ["parse_llmjudge"]

_log = logging.getLogger(__name__)

#: the file name of the assessors' grades among a data set's files
_LLMJUDGE_GOLD = "llmjudge_test_qrel_idx.txt"
#: the grades, lowest first: 0 irrelevant, 1 related, 2 highly relevant, 3 perfectly relevant
_LLMJUDGE_CLASSES = ["0", "1", "2", "3"]


def _read_qrel_grades(path: PathLike) -> tuple[list[tuple[int, str, int]], list[tuple[int, str]]]:
    """Read the ``(line, item, grade)`` of each line ``qid 0 pid grade`` of a qrel file.

    The item is ``f"{qid}:{pid}"``; also returned: the ``(line, value)`` of the grades outside 0..3.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value: a line without 4 whitespace-separated fields,
        a second field other than ``0``, or a grade that is not an integer.
    """
    path = Path(path)
    rows: list[tuple[int, str, int]] = []
    outside: list[tuple[int, str]] = []
    for number, text in _data_lines(path):
        fields = text.split()
        if len(fields) != 4:
            raise DataError.at(path, number, "expected 4 fields 'qid 0 pid grade'", text)
        qid, zero, pid, grade = fields
        if zero != "0":
            raise DataError.at(path, number, "the second field must be 0", zero)
        if not grade.lstrip("-").isdigit():
            raise DataError.at(path, number, "grade must be an integer", grade)
        if not 0 <= int(grade) <= 3:
            outside.append((number, grade))
            continue
        rows.append((number, f"{qid}:{pid}", int(grade)))
    return rows, outside


def parse_llmjudge(files: Sequence[PathLike]) -> PanelData:
    """Read the panel of LLMJudge runs with the assessors' grades as truth.

    Parameters
    ----------
    files : sequence of path-like
        The run files (judge = the file's stem, e.g. ``TREMA-CoT``) and the gold, named
        :data:`_LLMJUDGE_GOLD`.

    Returns
    -------
    PanelData
        ``labels``: item ``f"{qid}:{pid}"``, judge = run, label = grade 0..3 (ordinal, K = 4).
        A run's grade outside 0..3 is dropped, counted in ``dropped["grade_out_of_range"]`` and
        logged as a warning naming the file, line and value; a repeated (item, run) keeps its first
        grade (``dropped["duplicate"]``, ``dropped["duplicate_conflict"]``). ``truth``: the gold
        grade of each pair, in the gold's order.

    Raises
    ------
    ValueError
        Without the gold file or without a run.
    DataError
        Naming the file, line and value, for a malformed line (:func:`_read_qrel_grades`), a gold grade
        outside 0..3, or a pair with two different gold grades.
    """
    paths = [Path(p) for p in files]
    gold = [p for p in paths if p.name == _LLMJUDGE_GOLD]
    runs = [p for p in paths if p.name != _LLMJUDGE_GOLD]
    if not gold or not runs:
        raise ValueError(f"llmjudge needs the gold {_LLMJUDGE_GOLD!r} and at least one run; "
                         f"got {[p.name for p in paths]}")
    rows, outside = _read_qrel_grades(gold[0])
    if outside:
        raise DataError.at(gold[0], outside[0][0], "gold grade must be in 0..3", outside[0][1])
    truth: dict[str, int] = {}
    for number, item, grade in rows:
        if truth.setdefault(item, grade) != grade:
            raise DataError.at(gold[0], number, f"pair {item!r} has two different gold grades", grade)
    collector = _GradeCollector()
    dropped = 0
    for run in runs:
        rows, outside = _read_qrel_grades(run)
        if outside:
            _log.warning("%s: %d grades outside 0..3 dropped (line: value %s)", run, len(outside),
                         ", ".join(f"{number}: {value!r}" for number, value in outside))
        dropped += len(outside)
        for _, item, grade in rows:
            collector.add(item, run.stem, grade)
    items, judges = zip(*collector.labels) if collector.labels else ((), ())
    labels = _panel_labels(list(items), list(judges), list(collector.labels.values()))
    return PanelData(labels, _truth_frame(truth), list(_LLMJUDGE_CLASSES),
                     {"grade_out_of_range": dropped, **collector.counts()})
