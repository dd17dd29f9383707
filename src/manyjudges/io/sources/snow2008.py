"""Parse the graded tasks of the Snow, O'Connor, Jurafsky, Ng (EMNLP 2008) data.

``<task>.standardized.tsv`` is a TSV with the header ``!amt_annotation_ids,
!amt_worker_ids, orig_id, response, gold``. Only the graded tasks are
supported: ``wordsim`` (responses 0..10) and the affect tasks ``anger,
disgust, fear, joy, sadness, surprise`` (0..100) and ``valence``
(-100..100), binned into 5 labels (see :func:`parse_snow2008` and
``docs/data.md``). The rules shared by the graded parsers are in
:mod:`manyjudges.io.sources`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.errors import DataError
from manyjudges.io.grades import GradedData
from manyjudges.io.sources.text_lines import GradeCollector, PathLike, check_header, data_lines, tab_fields

__all__ = ["SNOW2008_TASKS", "parse_snow2008", "snow2008_gold"]

_SNOW_HEADER = ["!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold"]
_AFFECT_BINS = 5
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class _SnowTask:
    """Response range ``low..high`` (inclusive) and the number of bins (None = identity)."""

    low: int
    high: int
    bins: int | None


_SNOW_TASKS: dict[str, _SnowTask] = {
    "wordsim": _SnowTask(0, 10, None),
    "anger": _SnowTask(0, 100, _AFFECT_BINS),
    "disgust": _SnowTask(0, 100, _AFFECT_BINS),
    "fear": _SnowTask(0, 100, _AFFECT_BINS),
    "joy": _SnowTask(0, 100, _AFFECT_BINS),
    "sadness": _SnowTask(0, 100, _AFFECT_BINS),
    "surprise": _SnowTask(0, 100, _AFFECT_BINS),
    "valence": _SnowTask(-100, 100, _AFFECT_BINS),
}

#: The supported snow2008 tasks (the graded ones).
SNOW2008_TASKS: tuple[str, ...] = tuple(_SNOW_TASKS)


def _bin_names(task: _SnowTask) -> list[str]:
    """Names of the bins (or of the identity labels) of a snow2008 task."""
    if task.bins is None:
        return [str(v) for v in range(task.low, task.high + 1)]
    width = (task.high - task.low) // task.bins
    sep = "-" if task.low >= 0 else ".."
    names = []
    for b in range(task.bins):
        first = task.low + b * width
        last = task.high if b == task.bins - 1 else first + width - 1
        names.append(f"{first}{sep}{last}")
    return names


def _bin(task: _SnowTask, response: int) -> int:
    """The label of an in-range response."""
    if task.bins is None:
        return response - task.low
    width = (task.high - task.low) // task.bins
    return min((response - task.low) // width, task.bins - 1)


def parse_snow2008(path: PathLike, task: str) -> GradedData:
    """Parse a graded snow2008 task file ``<task>.standardized.tsv``.

    The file is a TSV with the header ``!amt_annotation_ids,
    !amt_worker_ids, orig_id, response, gold``, one worker response a line
    (10 per item in the published files).

    Parameters
    ----------
    path : path-like
        The file.
    task : str
        One of :data:`SNOW2008_TASKS`: ``"wordsim"``, ``"anger"``,
        ``"disgust"``, ``"fear"``, ``"joy"``, ``"sadness"``, ``"surprise"``,
        ``"valence"``. It sets the response range and the binning (the file
        name is not checked).

    Returns
    -------
    GradedData
        ``grades``: item = ``orig_id``, judge = ``!amt_worker_ids``, label
        from ``response`` (an integer in the task's range):

        - ``wordsim``: responses 0..10, ``K = 11``, label = response, names
          ``"0" .. "10"``.
        - ``anger, disgust, fear, joy, sadness, surprise``: responses
          0..100, ``K = 5`` equal-width bins of 20:
          label = ``min(response // 20, 4)``, names ``"0-19", "20-39",
          "40-59", "60-79", "80-100"`` (the last bin also holds 100).
        - ``valence``: responses -100..100, ``K = 5`` equal-width bins of
          40: label = ``min((response + 100) // 40, 4)``, names
          ``"-100..-61", "-60..-21", "-20..19", "20..59", "60..100"``
          (".." separates the bounds because they can be negative).

        A repeated (orig_id, worker) keeps its first row (later ones counted
        in ``dropped["duplicate"]`` or ``dropped["duplicate_conflict"]``;
        the published files have none). The ``gold`` and
        ``!amt_annotation_ids`` columns are not used; ``truth`` is None.

    Raises
    ------
    ValueError
        If ``task`` is not supported (the message lists the supported ones).
    DataError
        Naming the file, the 1-based line and the value, if the header is
        wrong, a line does not have 5 fields or has an empty one, a response
        is not an integer or is outside the task's range, a blank line is
        followed by data, or there are no data rows.
    """
    if task not in _SNOW_TASKS:
        raise ValueError(
            f"unknown snow2008 task {task!r}; supported: {', '.join(SNOW2008_TASKS)}"
        )
    spec = _SNOW_TASKS[task]
    path = Path(path)
    lines = data_lines(path)
    check_header(path, lines, _SNOW_HEADER)
    grades = GradeCollector()
    for number, text in lines[1:]:
        _, worker, item, response, _ = tab_fields(path, number, text, _SNOW_HEADER)
        if not _INTEGER.fullmatch(response):
            raise DataError.at(path, number, f"{task} response must be an integer", response)
        value = int(response)
        if not spec.low <= value <= spec.high:
            raise DataError.at(
                path, number, f"{task} response must be in {spec.low}..{spec.high}", response
            )
        grades.add(item, worker, _bin(spec, value))
    names = _bin_names(spec)
    return GradedData(
        grades=grades.frame(path),
        n_labels=len(names),
        label_names=names,
        dropped=grades.counts(),
    )


def snow2008_gold(path: PathLike, task: str) -> pd.DataFrame:
    """The expert ``gold`` of a graded snow2008 affect task, binned as the workers' responses are.

    Returns a truth table ``item, truth`` (item = ``orig_id``, truth = the label of the item's gold
    score under :func:`parse_snow2008`'s bins), one row per item in file order. Every row of an item
    must carry the same gold. ``wordsim`` has no gold on the workers' scale (its gold is Miller and
    Charles' 0-4 mean rating): a ValueError, like any task :data:`SNOW2008_TASKS` does not hold.

    Raises
    ------
    DataError
        Naming the file, the line and the value, for a gold that is not an integer in the task's
        range or that differs between two rows of one item.
    """
    if task not in _SNOW_TASKS or _SNOW_TASKS[task].bins is None:
        raise ValueError(f"snow2008 task {task!r} has no gold on its workers' scale; the affect tasks do: "
                         f"{', '.join(t for t, spec in _SNOW_TASKS.items() if spec.bins is not None)}")
    spec = _SNOW_TASKS[task]
    path = Path(path)
    lines = data_lines(path)
    check_header(path, lines, _SNOW_HEADER)
    gold: dict[str, int] = {}
    for number, text in lines[1:]:
        _, _, item, _, value = tab_fields(path, number, text, _SNOW_HEADER)
        if not _INTEGER.fullmatch(value) or not spec.low <= int(value) <= spec.high:
            raise DataError.at(path, number, f"{task} gold must be an integer in {spec.low}..{spec.high}", value)
        label = _bin(spec, int(value))
        if gold.setdefault(item, label) != label:
            raise DataError.at(path, number, f"item {item!r} has two different gold scores", value)
    return pd.DataFrame({"item": list(gold), "truth": np.array(list(gold.values()), dtype=np.int64)})

