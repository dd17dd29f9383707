"""Parse the graded tasks of the Snow, O'Connor, Jurafsky, Ng (EMNLP 2008) data.

``<task>.standardized.tsv`` is a TSV with the header ``!amt_annotation_ids,
!amt_worker_ids, orig_id, response, gold``. Supported: the graded tasks
``wordsim`` (responses 0..10) and the affect tasks ``anger, disgust, fear,
joy, sadness, surprise`` (0..100) and ``valence`` (-100..100), binned into 5
labels, and the categorical tasks ``temp`` (event order, 1..2) and ``wsd``
(word sense, 1..3) (see :func:`parse_snow2008` and ``docs/data.md``; ``rte``
is the truth benchmark set ``truth_rte``). The rules shared by the graded parsers are in
:mod:`manyjudges.io.sources`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike, _check_header, _data_lines, _GradeCollector, _tab_fields
from manyjudges.io.tables.grades import GradedData

__all__ = ["parse_snow2008", "snow2008_gold"]

_SNOW_HEADER = ["!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold"]
_AFFECT_BINS = 5
_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


@dataclass(frozen=True)
class _SnowTask:
    """Response range ``low..high`` (inclusive), the number of bins, and the range of a ``gold`` on another scale.

    The number of bins is None for the identity. The gold's range is None when the gold is on the judges'
    scale; otherwise it is mapped linearly onto ``low..high`` and rounded half up.
    """

    low: int
    high: int
    bins: int | None
    gold_scale: tuple[float, float] | None = None


_SNOW_TASKS: dict[str, _SnowTask] = {
    "wordsim": _SnowTask(0, 10, None, gold_scale=(0.0, 4.0)),  # Miller and Charles' 0-4 mean ratings
    "anger": _SnowTask(0, 100, _AFFECT_BINS),
    "disgust": _SnowTask(0, 100, _AFFECT_BINS),
    "fear": _SnowTask(0, 100, _AFFECT_BINS),
    "joy": _SnowTask(0, 100, _AFFECT_BINS),
    "sadness": _SnowTask(0, 100, _AFFECT_BINS),
    "surprise": _SnowTask(0, 100, _AFFECT_BINS),
    "valence": _SnowTask(-100, 100, _AFFECT_BINS),
    "temp": _SnowTask(1, 2, None),
    "wsd": _SnowTask(1, 3, None),
}

#: The supported snow2008 tasks (all but ``rte``).
_SNOW2008_TASKS: tuple[str, ...] = tuple(_SNOW_TASKS)


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
    """Return the label of an in-range response."""
    if task.bins is None:
        return response - task.low
    width = (task.high - task.low) // task.bins
    return min((response - task.low) // width, task.bins - 1)


def parse_snow2008(path: PathLike, task: str) -> GradedData:
    """Parse a graded snow2008 task file ``<task>.standardized.tsv``.

    The file is a TSV with the header ``!amt_annotation_ids,
    !amt_worker_ids, orig_id, response, gold``, one judge response a line
    (10 per item in the published files).

    Parameters
    ----------
    path : path-like
        The file.
    task : str
        One of :data:`_SNOW2008_TASKS`: ``"wordsim"``, ``"anger"``,
        ``"disgust"``, ``"fear"``, ``"joy"``, ``"sadness"``, ``"surprise"``,
        ``"valence"``, ``"temp"``, ``"wsd"``. It sets the response range and the binning (the file
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
        - ``temp``: responses 1..2, ``K = 2``, label = response - 1, names
          ``"1", "2"``; ``wsd``: responses 1..3, ``K = 3``, names
          ``"1", "2", "3"`` (categorical: the codes of the published file).

        A repeated (orig_id, judge) keeps its first row (later ones counted
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
            f"unknown snow2008 task {task!r}; supported: {', '.join(_SNOW2008_TASKS)}"
        )
    spec = _SNOW_TASKS[task]
    path = Path(path)
    lines = _data_lines(path)
    _check_header(path, lines, _SNOW_HEADER)
    grades = _GradeCollector()
    for number, text in lines[1:]:
        _, judge, item, response, _ = _tab_fields(path, number, text, _SNOW_HEADER)
        if not _INTEGER.fullmatch(response):
            raise DataError.at(path, number, f"{task} response must be an integer", response)
        value = int(response)
        if not spec.low <= value <= spec.high:
            raise DataError.at(
                path, number, f"{task} response must be in {spec.low}..{spec.high}", response
            )
        grades.add(item, judge, _bin(spec, value))
    names = _bin_names(spec)
    return GradedData(
        grades=grades.frame(path),
        n_classes=len(names),
        label_names=names,
        dropped=grades.counts(),
    )


def snow2008_gold(path: PathLike, task: str) -> pd.DataFrame:
    """Read the ``gold`` of a snow2008 task, labelled as the judges' responses are.

    Returns a truth table ``item, truth`` (item = ``orig_id``, truth = the label of the item's gold
    under :func:`parse_snow2008`'s bins), one row per item in file order. Every row of an item must
    carry the same gold. The affect tasks, ``temp`` and ``wsd`` have an integer gold on the judges'
    scale; ``wordsim``'s gold is Miller and Charles' mean rating on 0-4, mapped onto the judges'
    0..10 as ``floor(2.5 * gold + 0.5)`` (rounded half up).

    Raises
    ------
    ValueError
        For a task :data:`_SNOW2008_TASKS` does not hold.
    DataError
        Naming the file, the line and the value, for a gold that is not a number in the task's gold
        range (an integer on the judges' scale) or that differs between two rows of one item.
    """
    if task not in _SNOW_TASKS:
        raise ValueError(f"unknown snow2008 task {task!r}; supported: {', '.join(_SNOW2008_TASKS)}")
    spec = _SNOW_TASKS[task]
    path = Path(path)
    lines = _data_lines(path)
    _check_header(path, lines, _SNOW_HEADER)
    gold: dict[str, int] = {}
    for number, text in lines[1:]:
        _, _, item, _, value = _tab_fields(path, number, text, _SNOW_HEADER)
        label = _gold_label(path, number, task, spec, value)
        if gold.setdefault(item, label) != label:
            raise DataError.at(path, number, f"item {item!r} has two different gold scores", value)
    return pd.DataFrame({"item": list(gold), "truth": np.array(list(gold.values()), dtype=np.int64)})


def _gold_label(path: Path, number: int, task: str, spec: _SnowTask, value: str) -> int:
    """Return the label of one row's ``gold``; a DataError naming the file, line and value if it is out of range."""
    if spec.gold_scale is None:
        if not _INTEGER.fullmatch(value) or not spec.low <= int(value) <= spec.high:
            raise DataError.at(path, number, f"{task} gold must be an integer in {spec.low}..{spec.high}", value)
        return _bin(spec, int(value))
    low, high = spec.gold_scale
    if not _NUMBER.fullmatch(value) or not low <= float(value) <= high:
        raise DataError.at(path, number, f"{task} gold must be a number in {low:g}..{high:g}", value)
    scaled = spec.low + (float(value) - low) * (spec.high - spec.low) / (high - low)
    return _bin(spec, int(np.floor(scaled + 0.5)))
