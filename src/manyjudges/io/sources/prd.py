"""Parse the PRD vicuna80 pairwise verdicts: five LLM judges and human votes on pairs of answers.

``data/vicuna80/ratings-<judge>/answer_<X>-vs-answer_<Y>-<judge>-reviewer_threeclass.jsonl`` of
bcdnlp/PRD (Li, Patel, Du, "PRD: Peer Rank and Discussion Improve Large Language Model based
Evaluations", 2023) holds one JSON object a line with ``question_id`` and ``score``: 1 = the answer of
``X`` (shown first) is better, 2 = the answer of ``Y`` (shown second), 3 = a tie; some files write
``-reviewer-threeclass``, vicuna-13b's ``-reviewer``, two of ``ratings-gpt35/`` ``answer-<X>-vs-answer-<Y>``
(a second run on the same pairs as their ``answer_`` namesakes, read as more verdicts). The files of
``ratings-human/`` (judge ``human``) hold several anonymous votes per question in the same form, some on
the guanaco models (``guanaco-7b`` ... ``guanaco-65b``), which no LLM judge rated. :func:`parse_prd` makes of
them a panel with a truth (the truth family), :func:`verdicts_from_prd` a verdicts table
(:mod:`manyjudges.io.tables.verdicts`).
See ``docs/data.md``.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.json_judgments import _json_lines
from manyjudges.io.sources.panel import PanelData, _panel_labels, _truth_frame
from manyjudges.io.sources.text_lines import PathLike, _GradeCollector
from manyjudges.io.tables.verdicts import verdicts_frame

__all__ = ["parse_prd", "verdicts_from_prd"]

#: the five answering models (and LLM judges) of the pinned files, in alphabetical order
_PRD_MODELS = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")
#: the classes of an item (question, model pair a < b): a's answer wins, b's answer wins, a tie
_PRD_CLASSES = ["a_wins", "b_wins", "tie"]
_HUMAN = "human"
#: the judge of the n-th human vote (n = 1, 2, ...) in :func:`verdicts_from_prd`
_PRD_HUMAN_JUDGE = "human-{n}"
#: a verdict's score -> its winner: the first shown answer (X) wins, the second (Y), a tie
_WINNER = {1: "model_a", 2: "model_b", 3: "tie"}
_SUFFIX = re.compile(r"-reviewer([_-]threeclass)?\.jsonl$")
#: a file name's stem: answer_<X>-vs-answer_<Y>-<judge> (``_`` or ``-`` after ``answer``), judge one of the
#: five models or human
_NAME = re.compile(r"answer[_-](?P<x>[^/]+?)-vs-answer[_-](?P<y>[^/]+)-(?P<judge>"
                   + "|".join(map(re.escape, (*_PRD_MODELS, "human"))) + ")")
_SCORES = (1, 2, 3)


def _prd_file_name(path: PathLike) -> tuple[str, str, str]:
    """Parse ``(X, Y, judge)`` from a file name ``answer_<X>-vs-answer_<Y>-<judge>-reviewer_threeclass.jsonl``.

    ``X`` is shown first. The published names vary, and each is read: ``answer-<X>-vs-answer-<Y>`` with
    hyphens (two gpt35 files), ``-reviewer-threeclass`` or ``-reviewer``, and answering models beyond
    :data:`_PRD_MODELS` (the human votes on the guanaco models). The judge is the last of :data:`_PRD_MODELS`
    or ``human`` before the suffix, Y what stands between it and ``-vs-answer``. A DataError naming the
    file unless the judge is one of them and X and Y two different non-empty names.
    """
    path = Path(path)
    stem = _SUFFIX.sub("", path.name)
    match = _NAME.fullmatch(stem) if stem != path.name else None
    if match is None:
        raise DataError.at(path, None, "file name must be answer_<X>-vs-answer_<Y>-<judge>-reviewer_threeclass.jsonl",
                           path.name)
    x, y, judge = match.group("x", "y", "judge")
    if x == y:
        raise DataError.at(path, None, f"models must be two different models and the judge among "
                           f"{', '.join(_PRD_MODELS)} or {_HUMAN!r}", path.name)
    return x, y, judge


def _verdicts(path: Path) -> list[tuple[int, int, int]]:
    """Read ``(line, question_id, score)`` of each line of a verdict file.

    A DataError naming the file, line and value for a line that is not a JSON object with an integer
    ``question_id`` and a ``score`` of 1, 2 or 3.
    """
    out = []
    for number, row in _json_lines(path):
        if not isinstance(row.get("question_id"), int):
            raise DataError.at(path, number, "question_id must be an integer", json.dumps(row)[:80])
        score = row.get("score")
        if not isinstance(score, int) or score not in _SCORES:
            raise DataError.at(path, number, "score must be 1, 2 or 3", score)
        out.append((number, row["question_id"], score))
    return out


def _code(score: int, x: str, a: str) -> int:
    """Return the class of a verdict ``score`` on a pair shown as (x, other), the pair's first model ``a``."""
    if score == 3:
        return 2
    return int((score == 1) != (x == a))


def parse_prd(files: Sequence[PathLike]) -> PanelData:
    """Read the PRD panel of LLM judges, each presentation order its own judge, the human votes' majority as truth.

    Parameters
    ----------
    files : sequence of path-like
        Verdict files (:func:`_prd_file_name`): each LLM judge's, and the human votes (judge ``human``).

    Returns
    -------
    PanelData
        An item is a question and an unordered model pair (a, b), a before b alphabetically:
        ``f"{question_id}:{a}:{b}"``. Classes ``a_wins`` (0), ``b_wins`` (1), ``tie`` (2), whatever
        order the answers were shown in. Judge ``f"{judge}:ab"`` saw a's answer first, ``f"{judge}:ba"``
        b's: the two orders of one judge are two judges. A repeated (item, judge) keeps its first
        verdict (``dropped["duplicate"]``, ``dropped["duplicate_conflict"]``). Truth: the class most
        human votes on the item name (one vote is its own majority); an item whose top classes tie is
        left out of the truth (``dropped["human_tie"]``), and so is a voted item no judge labelled
        (``dropped["truth_without_labels"]``).

    Raises
    ------
    ValueError
        Without a judge's file or without a human file.
    DataError
        Naming the file (and line and value): a file name :func:`_prd_file_name` does not read, a bad line.
    """
    collector = _GradeCollector()
    votes: dict[str, list[int]] = defaultdict(list)
    for path in map(Path, files):
        x, y, judge = _prd_file_name(path)
        a, b = sorted((x, y))
        for _, question, score in _verdicts(path):
            item, code = f"{question}:{a}:{b}", _code(score, x, a)
            if judge == _HUMAN:
                votes[item].append(code)
            else:
                collector.add(item, f"{judge}:{'ab' if x == a else 'ba'}", code)
    if not collector.labels or not votes:
        raise ValueError(f"prd needs judges' files and human files; got {[Path(p).name for p in files]}")
    items, judges = zip(*collector.labels)
    labelled = set(items)
    truth: dict[str, int] = {}
    ties = unlabelled = 0
    for item, codes in votes.items():
        top = Counter(codes).most_common()
        if len(top) > 1 and top[0][1] == top[1][1]:
            ties += 1
        elif item not in labelled:
            unlabelled += 1
        else:
            truth[item] = top[0][0]
    labels = _panel_labels(list(items), list(judges), list(collector.labels.values()))
    order = sorted(truth, key=lambda i: (int(i.split(":")[0]), i))
    return PanelData(labels, _truth_frame({i: truth[i] for i in order}), list(_PRD_CLASSES),
                     {"human_tie": ties, "truth_without_labels": unlabelled, **collector.counts()})


def verdicts_from_prd(files: Sequence[PathLike]) -> pd.DataFrame:
    """Read the PRD verdicts of the LLM judges and the human votes, as one verdicts table.

    Parameters
    ----------
    files : sequence of path-like
        Verdict files (:func:`_prd_file_name`): LLM judges' and human votes' (judge ``human``), any of them.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``, one row per line of a file: prompt =
        ``question_id``, model_a = X (shown first), model_b = Y, winner ``model_a`` / ``model_b`` /
        ``tie`` for score 1 / 2 / 3. An LLM judge is named as in the file name (``gpt4``); the human
        votes are anonymous (nothing links two votes to one person), so each is its own judge
        ``human-<n>`` (:data:`_PRD_HUMAN_JUDGE`), n = 1, 2, ... numbering the votes file by file
        (files in (X, Y) order), line by line. Rows: the LLM judges' files in (judge, X, Y) order,
        then the human files, each in line order, whatever the order of ``files``.

    Raises
    ------
    ValueError
        Without a file.
    DataError
        Naming the file (and line and value): a file name :func:`_prd_file_name` does not read, a bad line.
    """
    return _prd_verdicts_located(files)[0]


def _prd_verdicts_located(files: Sequence[PathLike]) -> tuple[pd.DataFrame, list[tuple[Path, int]]]:
    """Return :func:`verdicts_from_prd`'s table and the (file, line) each of its rows was read from."""
    if not files:
        raise ValueError("prd needs verdict files; got none")
    named = sorted(((*_prd_file_name(p), Path(p)) for p in files), key=lambda f: (f[2] == _HUMAN, f[2], f[0], f[1]))
    columns: list[list[str]] = [[], [], [], [], []]
    origins: list[tuple[Path, int]] = []
    votes = 0
    for x, y, judge, path in named:
        for line, question, score in _verdicts(path):
            if judge == _HUMAN:
                votes += 1
            row = (str(question), _PRD_HUMAN_JUDGE.format(n=votes) if judge == _HUMAN else judge, x, y, _WINNER[score])
            for column, value in zip(columns, row):
                column.append(value)
            origins.append((path, line))
    return verdicts_frame(*columns), origins
