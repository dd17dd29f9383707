"""Parse the PandaLM test set: 999 response pairs, three human annotators and two LLM judges.

``data/testset-v1.json`` of WeOpenML/PandaLM (Wang et al., "PandaLM", ICLR 2024) is a JSON list of
records with ``idx`` and ``annotator1``, ``annotator2``, ``annotator3`` (0 = tie, 1 = response 1 is
better, 2 = response 2); ``data/<judge>-testset-v1.json`` (``gpt-3.5-turbo``, ``pandalm-7b``) lists
each judge's verdict of the same ``idx`` in its one ``*_result`` field (``"1"``, ``"2"``, ``"Tie"``,
or 0, 1, 2). :func:`parse_pandalm` makes of them a panel with a truth (the truth family),
:func:`verdicts_from_pandalm` a verdicts table (:mod:`manyjudges.io.tables.verdicts`). See ``docs/data.md``.
"""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.json_judgments import _json_records
from manyjudges.io.sources.panel import PanelData, _panel_labels, _truth_frame
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.verdicts import verdicts_frame

__all__ = ["parse_pandalm", "verdicts_from_pandalm"]

_log = logging.getLogger(__name__)

#: the human annotations, by file name
_PANDALM_HUMANS = "testset-v1.json"
#: the human annotators' fields
_PANDALM_ANNOTATORS = ("annotator1", "annotator2", "annotator3")
#: the classes: a tie, response 1 is better, response 2 is better (the files' codes 0, 1, 2)
_PANDALM_CLASSES = ["tie", "response1", "response2"]
_JUDGE_SUFFIX = "-testset-v1.json"
_VERDICTS: dict[Any, int] = {0: 0, 1: 1, 2: 2, "0": 0, "1": 1, "2": 2, "Tie": 0, "tie": 0}
#: a judge's verdict that names no class (gpt-3.5-turbo's "garbage"): dropped and counted
_UNREADABLE = "garbage"
#: a class code -> its winner: a tie, response 1 (shown first) is better, response 2
_WINNER = ("tie", "model_a", "model_b")


def _records(path: Path) -> list[dict[str, Any]]:
    """Return the JSON list of records of a file, each with an integer ``idx``.

    A DataError naming the file (and the record and value) otherwise.
    """
    data = _json_records(path)
    for number, row in enumerate(data):
        if not isinstance(row.get("idx"), int):
            raise DataError.at(path, None, f"record {number} needs an integer idx", str(row)[:80])
    return data


def _class(path: Path, row: dict[str, Any], key: str) -> int | None:
    """Return the class code of ``row[key]``, None for an unreadable verdict.

    A DataError naming the file, the record's idx and the value for anything else.
    """
    value = row.get(key)
    if value == _UNREADABLE:
        return None
    if isinstance(value, bool) or value not in _VERDICTS:
        raise DataError.at(path, None, f"idx {row['idx']}: {key} must be 0/1/2 or '1'/'2'/'Tie'", value)
    return _VERDICTS[value]


def _files(files: Sequence[PathLike], need_judge: bool) -> tuple[dict[str, Path], list[str]]:
    """Return ({file name: path}, the judges' file names, sorted) of ``files``.

    A ValueError without :data:`_PANDALM_HUMANS` (or, with ``need_judge``, without a judge's file).
    """
    paths = {Path(p).name: Path(p) for p in files}
    judges = sorted(n for n in paths if n != _PANDALM_HUMANS and n.endswith(_JUDGE_SUFFIX))
    if _PANDALM_HUMANS not in paths or (need_judge and not judges):
        judge = f" and a judge's <judge>{_JUDGE_SUFFIX}" if need_judge else ""
        raise ValueError(f"pandalm needs {_PANDALM_HUMANS!r}{judge}; got {sorted(paths)}")
    return paths, judges


def _annotations(path: Path) -> tuple[list[dict[str, Any]], dict[int, list[int]]]:
    """Read (the records, {idx: the three annotators' class codes}) of the human file.

    A DataError naming the file, the idx and the value for a repeated idx or an annotation that is no
    class.
    """
    records = _records(path)
    annotations: dict[int, list[int]] = {}
    for row in records:
        if row["idx"] in annotations:
            raise DataError.at(path, None, "repeated idx", row["idx"])
        codes = [_class(path, row, key) for key in _PANDALM_ANNOTATORS]
        if None in codes:
            raise DataError.at(path, None, f"idx {row['idx']}: an annotation must be 0, 1 or 2", _UNREADABLE)
        annotations[row["idx"]] = [int(v) for v in codes if v is not None]
    return records, annotations


def _judge_verdicts(path: Path, annotations: dict[int, list[int]]) -> tuple[list[tuple[int, int]], int]:
    """Read ([(idx, class code)] of a judge's file in record order, the number of unreadable verdicts dropped).

    The unreadable verdicts are logged with their idx. A DataError naming the file and the idx for a
    record without one ``*_result``, with an idx the human file lacks or repeated, or with a verdict
    that is no class.
    """
    seen: set[int] = set()
    dropped: list[int] = []
    verdicts: list[tuple[int, int]] = []
    for row in _records(path):
        keys = [k for k in row if k.endswith("_result")]
        if len(keys) != 1 or row["idx"] not in annotations or row["idx"] in seen:
            raise DataError.at(path, None, "a record needs one *_result and an idx of the human file, "
                               "once", row["idx"])
        seen.add(row["idx"])
        verdict = _class(path, row, keys[0])
        if verdict is None:
            dropped.append(row["idx"])
        else:
            verdicts.append((row["idx"], verdict))
    if dropped:
        _log.warning("%s: %d verdicts %r dropped (idx %s)", path, len(dropped), _UNREADABLE,
                     ", ".join(map(str, dropped)))
    return verdicts, len(dropped)


def parse_pandalm(files: Sequence[PathLike], humans: Sequence[int] = ()) -> PanelData:
    """Read the PandaLM panel: the LLM judges (and the annotators ``humans``), the other annotators' majority as truth.

    Parameters
    ----------
    files : sequence of path-like
        :data:`_PANDALM_HUMANS` and each judge's ``<judge>-testset-v1.json`` (judge ``<judge>``).
    humans : sequence of int
        The annotators (1, 2, 3) put in the panel as judges ``annotator<k>``; the truth is taken from
        the others only, so it is never computed from a label in the panel.

    Returns
    -------
    PanelData
        Item ``str(idx)``; classes ``tie`` (0), ``response1`` (1), ``response2`` (2). A judge's
        ``"garbage"`` verdict is dropped (``dropped["unreadable_verdict"]``, logged). Truth: the class a
        strict majority of the annotators outside the panel give (of 3: at least 2; of 2: both); an item
        without one is left out of the truth (``dropped["no_human_majority"]``).

    Raises
    ------
    ValueError
        Without the human file, a judge's file, or with ``humans`` not a subset of 1, 2, 3 leaving one out.
    DataError
        Naming the file, the record's idx and the value: a verdict or annotation that is no class, a
        judge's idx the human file does not have, a repeated idx.
    """
    panel = sorted(set(humans))
    if not set(panel) <= {1, 2, 3} or len(panel) == len(_PANDALM_ANNOTATORS):
        raise ValueError(f"pandalm humans must be some of 1, 2, 3, leaving one for the truth; got {list(humans)}")
    paths, judges = _files(files, need_judge=True)
    _, annotations = _annotations(paths[_PANDALM_HUMANS])
    items: list[str] = []
    who: list[str] = []
    labels: list[int] = []
    unreadable = 0
    for name in judges:
        verdicts, dropped = _judge_verdicts(paths[name], annotations)
        items.extend(str(idx) for idx, _ in verdicts)
        who.extend([name.removesuffix(_JUDGE_SUFFIX)] * len(verdicts))
        labels.extend(code for _, code in verdicts)
        unreadable += dropped
    for k in panel:
        for idx, votes in annotations.items():
            items.append(str(idx))
            who.append(f"annotator{k}")
            labels.append(votes[k - 1])
    truth: dict[str, int] = {}
    without = 0
    for idx, votes in annotations.items():
        rest = [v for k, v in enumerate(votes, start=1) if k not in panel]
        code, count = Counter(rest).most_common(1)[0]
        if 2 * count > len(rest):
            truth[str(idx)] = code
        else:
            without += 1
    return PanelData(_panel_labels(items, who, labels), _truth_frame(truth), list(_PANDALM_CLASSES),
                     {"unreadable_verdict": unreadable, "no_human_majority": without})


def _pair(path: Path, row: dict[str, Any]) -> tuple[str, str]:
    """Return (model of response 1, model of response 2) of a test-set record.

    Read from its ``cmp_key`` ``"<model1>_<model2>"``; a DataError naming the file, the idx and the
    value otherwise.
    """
    key = row.get("cmp_key")
    first, _, second = key.partition("_") if isinstance(key, str) else ("", "", "")
    if not first or not second or "_" in second or first == second:
        raise DataError.at(path, None, f"idx {row['idx']}: cmp_key must be <model1>_<model2>, two different "
                           "models", key)
    return first, second


def verdicts_from_pandalm(files: Sequence[PathLike]) -> pd.DataFrame:
    """Read the PandaLM verdicts of the three annotators and of the LLM judges, as one verdicts table.

    Parameters
    ----------
    files : sequence of path-like
        :data:`_PANDALM_HUMANS` and any of the judges' ``<judge>-testset-v1.json``.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``: model_a and model_b the models of response 1
        (shown first) and response 2, named by the record's ``cmp_key`` ``"<model1>_<model2>"``
        (PandaLM's README: response 1 is from model1); winner ``tie`` / ``model_a`` / ``model_b`` for
        0 (``"Tie"``) / 1 / 2. The judges are ``annotator1``, ``annotator2``, ``annotator3`` and each
        LLM judge as its file names it (``gpt-3.5-turbo``, ``pandalm-7b``); a judge's ``"garbage"``
        verdict is dropped and logged. The prompt is the instruction and its input, several records
        (model pairs) sharing one: it is named by the smallest ``idx`` among the records with the same
        ``instruction`` and ``input`` (``"0"``). Rows: the annotators' verdicts record by record
        (annotator1, 2, 3 of each), then each judge's file (by name) in record order.

    Raises
    ------
    ValueError
        Without the human file.
    DataError
        Naming the file, the record's idx and the value: a verdict or annotation that is no class, a
        judge's idx the human file does not have, a repeated idx, a ``cmp_key`` that names no two models.
    """
    paths, judges = _files(files, need_judge=False)
    human_path = paths[_PANDALM_HUMANS]
    records, annotations = _annotations(human_path)
    pair = {row["idx"]: _pair(human_path, row) for row in records}
    text = {row["idx"]: (str(row.get("instruction", "")), str(row.get("input", ""))) for row in records}
    first: dict[tuple[str, str], int] = {}
    for idx, words in text.items():
        first[words] = min(first.get(words, idx), idx)
    prompt = {idx: str(first[words]) for idx, words in text.items()}
    rows = [(idx, annotator, code) for idx, codes in annotations.items()
            for annotator, code in zip(_PANDALM_ANNOTATORS, codes)]
    for name in judges:
        verdicts, _ = _judge_verdicts(paths[name], annotations)
        rows.extend((idx, name.removesuffix(_JUDGE_SUFFIX), code) for idx, code in verdicts)
    return verdicts_frame([prompt[i] for i, _, _ in rows], [j for _, j, _ in rows], [pair[i][0] for i, _, _ in rows],
                          [pair[i][1] for i, _, _ in rows], [_WINNER[c] for _, _, c in rows])
