"""Parse graded-judgment panels into the canonical ``grades`` table.

A grades table is a TSV file with the header ``item, judge, label``: one row
per (item, judge), ``label`` an integer ``0 .. K-1`` on an ordinal scale
(0 = lowest grade). The number of labels ``K`` and the label names are
dataset metadata; they travel in a small YAML file beside the table (see
:func:`write_grades` and :func:`read_grades`). A parser returns a
:class:`GradedData`: the table, ``K``, the label names, an optional truth
table (``topic, item, grade``) and the number of raw rows it dropped, by
reason. Grades are sorted by item, then judge (numerically when every id is
a digit string, else lexicographically). The metadata file holds
``n_labels``, ``label_names`` and ``dropped`` and nothing else.

Three raw formats are supported:

- :func:`parse_trec_rf10`: ``trec-rf10-data.txt`` of the TREC 2010 Relevance
  Feedback track crowd judgments (Buckley, Lease, Smucker). A TSV with the
  header ``topicID, workerID, docID, gold, label``; ``label`` is the worker's
  judgment (2 highly relevant, 1 relevant, 0 non-relevant, -2 broken link),
  ``gold`` the NIST judgment of the (topic, doc) pair (2, 1, 0; -1 = no NIST
  judgment; -2 = a deliberately planted broken link).
- :func:`parse_adultcontent3`: ``labels.txt`` (``worker<TAB>url<TAB>category``,
  no header) and ``categories.txt`` (one category a line) of the
  AdultContent3-HCOMP2010 data of Get-Another-Label (Ipeirotis, Provost,
  Wang). Categories G < P < R < X are the ordinal scale; the published
  ``categories.txt`` also lists a fifth category ``B`` that is not on it.
- :func:`parse_snow2008`: ``<task>.standardized.tsv`` of the Snow, O'Connor,
  Jurafsky, Ng (EMNLP 2008) tasks, a TSV with the header
  ``!amt_annotation_ids, !amt_worker_ids, orig_id, response, gold``. Only the
  graded tasks are supported: ``wordsim`` (responses 0..10) and the affect
  tasks ``anger, disgust, fear, joy, sadness, surprise`` (0..100) and
  ``valence`` (-100..100), binned into 5 labels (see :func:`parse_snow2008`).

Rules shared by the parsers, chosen after inspecting the published files:

- Line endings may be LF or CRLF. Blank lines at the end of a file are
  ignored; a blank line followed by more data is a :class:`DataError` (none
  of the published files has one, so it would mean a damaged file).
- Fields are taken verbatim (no whitespace stripping); an empty or
  whitespace-only field is an error.
- A judge who labels the same item more than once keeps the label of the
  first row in file order that survives the other drop rules; every later
  row for that (item, judge) is dropped and counted in
  ``dropped["duplicate"]`` if its label equals the kept one, else in
  ``dropped["duplicate_conflict"]``. Keeping the first is simple,
  deterministic and uses only the raw order; the two counts show how much
  of the data a different rule would change.
- Every error names the file, the 1-based line where the fault is on one
  line (the header, where there is one, is line 1) and the offending value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from manyjudges.io.errors import DataError
from manyjudges.io.tables import _temp_path, natural_sort, read_tsv_rows, write_table

__all__ = [
    "ADULTCONTENT3_CATEGORIES",
    "GRADES_COLUMNS",
    "SNOW2008_TASKS",
    "TRUTH_COLUMNS",
    "GradedData",
    "parse_adultcontent3",
    "parse_snow2008",
    "parse_trec_rf10",
    "read_grades",
    "write_grades",
]

GRADES_COLUMNS = ["item", "judge", "label"]
TRUTH_COLUMNS = ["topic", "item", "grade"]

#: The ordinal AdultContent3 categories, lowest first (label 0 .. 3).
ADULTCONTENT3_CATEGORIES: tuple[str, ...] = ("G", "P", "R", "X")
#: Categories ``categories.txt`` may list that are not on the ordinal scale:
#: labels with them are dropped (counted in ``dropped["category_B"]``).
_ADULT_OFF_SCALE: tuple[str, ...] = ("B",)

_TREC_HEADER = ["topicID", "workerID", "docID", "gold", "label"]
_TREC_LABELS = {"0": 0, "1": 1, "2": 2}
_TREC_BROKEN = "-2"
_TREC_GOLD = {"-2": None, "-1": None, "0": 0, "1": 1, "2": 2}

_SNOW_HEADER = ["!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold"]
_AFFECT_BINS = 5


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

_INTEGER = re.compile(r"-?[0-9]+")
_LABEL = re.compile(r"[0-9]+")
_META_KEYS = ("n_labels", "label_names", "dropped")

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class GradedData:
    """A graded-judgment panel and its metadata.

    Attributes
    ----------
    grades : pandas.DataFrame
        Columns ``item``, ``judge`` (str) and ``label`` (int64, ``0 .. K-1``),
        one row per (item, judge), sorted by item then judge (numerically if
        all ids are digit strings, else lexicographically).
    n_labels : int
        ``K``, the number of labels.
    label_names : list of str
        ``K`` distinct names, label 0 first, e.g. ``["G", "P", "R", "X"]``.
    truth : pandas.DataFrame or None
        A truth table, columns ``topic``, ``item`` (str) and ``grade``
        (int64, on the same ``0 .. K-1`` scale), or None when the data set
        has none (or it was not read).
    dropped : dict of str to int
        Raw rows the parser did not turn into grades, by reason. Every reason
        a parser knows is present, with 0 when nothing was dropped for it.

    Raises
    ------
    TypeError
        If ``n_labels`` is not an integer.
    ValueError
        If ``n_labels < 1`` or ``label_names`` is not ``n_labels`` distinct
        non-empty strings.
    """

    grades: pd.DataFrame
    n_labels: int
    label_names: list[str]
    truth: pd.DataFrame | None = None
    dropped: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.n_labels, bool) or not isinstance(self.n_labels, (int, np.integer)):
            raise TypeError(f"n_labels must be an integer, got {self.n_labels!r}")
        if self.n_labels < 1:
            raise ValueError(f"n_labels must be at least 1, got {self.n_labels}")
        names = list(self.label_names)
        if len(names) != self.n_labels:
            raise ValueError(
                f"label_names has {len(names)} names for n_labels={self.n_labels}: {names!r}"
            )
        if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
            raise ValueError(f"label_names must be distinct non-empty strings, got {names!r}")


# --------------------------------------------------------------------------
# helpers


def _data_lines(path: Path) -> list[tuple[int, str]]:
    """(1-based line number, text) of a text file's lines, trailing blank lines removed.

    A blank (empty or whitespace-only) line followed by a non-blank one is a
    DataError: none of the published files has one.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            raise DataError.at(path, number, "blank line in the middle of the file", text)
    return list(enumerate(lines, start=1))


def _fields(path: Path, number: int, text: str, names: list[str]) -> list[str]:
    """The tab-separated fields of a data line; DataError on a wrong count or an empty field."""
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


class _Collector:
    """Keeps the first label of each (item, judge); counts later repeats."""

    def __init__(self) -> None:
        self.labels: dict[tuple[str, str], int] = {}
        self.duplicate = 0
        self.conflict = 0

    def add(self, item: str, judge: str, label: int) -> None:
        key = (item, judge)
        kept = self.labels.get(key)
        if kept is None:
            self.labels[key] = label
        elif kept == label:
            self.duplicate += 1
        else:
            self.conflict += 1

    def counts(self) -> dict[str, int]:
        return {"duplicate": self.duplicate, "duplicate_conflict": self.conflict}

    def frame(self, path: Path) -> pd.DataFrame:
        if not self.labels:
            raise DataError.at(path, None, "no grades left after dropping rows", "(no grades)")
        items, judges = zip(*self.labels)
        return _grades_frame(list(items), list(judges), list(self.labels.values()))


def _order(values: Iterable[str]) -> dict[str, int]:
    """Position of each distinct value in natural order."""
    return {value: i for i, value in enumerate(natural_sort(set(values)))}


def _grades_frame(items: list[str], judges: list[str], labels: list[int]) -> pd.DataFrame:
    """A grades DataFrame sorted by item, then judge (natural order)."""
    item_rank, judge_rank = _order(items), _order(judges)
    order = np.lexsort(
        (
            np.fromiter((judge_rank[j] for j in judges), dtype=np.int64, count=len(judges)),
            np.fromiter((item_rank[i] for i in items), dtype=np.int64, count=len(items)),
        )
    )
    return pd.DataFrame(
        {
            "item": pd.Series(np.asarray(items, dtype=object)[order], dtype=str),
            "judge": pd.Series(np.asarray(judges, dtype=object)[order], dtype=str),
            "label": np.asarray(labels, dtype=np.int64)[order],
        }
    )


# --------------------------------------------------------------------------
# trec_rf10


def parse_trec_rf10(path: PathLike) -> GradedData:
    """Parse ``trec-rf10-data.txt`` (TREC 2010 RF track crowd judgments).

    The file is a TSV with the header ``topicID, workerID, docID, gold,
    label`` and one crowd judgment a line.

    Parameters
    ----------
    path : path-like
        The file.

    Returns
    -------
    GradedData
        ``K = 3``, label names ``"0", "1", "2"`` (non-relevant, relevant,
        highly relevant).

        ``grades``: item ``f"{topicID}:{docID}"`` (a document is a different
        item under each topic), judge = ``workerID``, label = the worker's
        0/1/2. Rows are dropped, in this order of precedence:

        - ``label == -2`` (the worker reported a broken link): not a grade;
          counted in ``dropped["broken_link"]``.
        - a repeated (topic, worker, doc): the first remaining row in file
          order is kept, later ones counted in ``dropped["duplicate"]``
          (same label) or ``dropped["duplicate_conflict"]`` (another label).
          The published file has 1,570 repeated rows (a worker judged the
          same pair two or three times); 1,345 remain after the broken-link
          rows are gone: 1,097 repeat the kept label, 248 differ from it.

        Crowd labels on pairs whose gold is -2 (URLs planted as broken links
        for quality control, which a worker nonetheless graded 0/1/2) are
        kept: they are what the worker said.

        ``truth``: one row per (topic, doc) whose gold is 0, 1 or 2: columns
        ``topic`` (topicID), ``item`` (the docID, *not* prefixed with the
        topic) and ``grade`` (int64), sorted by topic then item. Gold -1 (no
        NIST judgment) and -2 (planted broken link) are not truth.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value, if the header is
        not exactly ``topicID, workerID, docID, gold, label``, a line does
        not have 5 fields or has an empty one, a label is not one of
        -2, 0, 1, 2, a gold is not one of -2, -1, 0, 1, 2, the gold of a
        (topic, doc) differs from its gold on an earlier line, a blank line
        is followed by data, or there are no data rows (or none left).
    """
    path = Path(path)
    lines = _data_lines(path)
    _check_header(path, lines, _TREC_HEADER)
    grades = _Collector()
    broken = 0
    gold_of: dict[tuple[str, str], tuple[str, int]] = {}
    for number, text in lines[1:]:
        topic, worker, doc, gold, label = _fields(path, number, text, _TREC_HEADER)
        if gold not in _TREC_GOLD:
            raise DataError.at(path, number, "gold must be one of -2, -1, 0, 1, 2", gold)
        if label != _TREC_BROKEN and label not in _TREC_LABELS:
            raise DataError.at(path, number, "label must be one of -2, 0, 1, 2", label)
        pair = (topic, doc)
        seen = gold_of.setdefault(pair, (gold, number))
        if seen[0] != gold:
            raise DataError.at(
                path,
                number,
                f"gold of topic {topic!r}, doc {doc!r} differs from {seen[0]!r} on line {seen[1]}",
                gold,
            )
        if label == _TREC_BROKEN:
            broken += 1
            continue
        grades.add(f"{topic}:{doc}", worker, _TREC_LABELS[label])

    truth_rows = [
        (topic, doc, grade)
        for (topic, doc), (gold, _) in gold_of.items()
        if (grade := _TREC_GOLD[gold]) is not None
    ]
    topic_rank = _order(t for t, _, _ in truth_rows)
    doc_rank = _order(d for _, d, _ in truth_rows)
    truth_rows.sort(key=lambda row: (topic_rank[row[0]], doc_rank[row[1]]))
    columns = list(zip(*truth_rows)) if truth_rows else [(), (), ()]
    truth = pd.DataFrame(
        {
            "topic": pd.Series(columns[0], dtype=str),
            "item": pd.Series(columns[1], dtype=str),
            "grade": np.asarray(columns[2], dtype=np.int64),
        }
    )
    return GradedData(
        grades=grades.frame(path),
        n_labels=3,
        label_names=["0", "1", "2"],
        truth=truth,
        dropped={"broken_link": broken, **grades.counts()},
    )


# --------------------------------------------------------------------------
# adultcontent3


def _adult_categories(path: Path) -> set[str]:
    """The categories listed in ``categories.txt``, checked against the known scale."""
    listed: dict[str, int] = {}
    known = ADULTCONTENT3_CATEGORIES + _ADULT_OFF_SCALE
    for number, text in _data_lines(path):
        if text not in known:
            raise DataError.at(
                path, number, f"unknown category (known: {', '.join(known)})", text
            )
        if text in listed:
            raise DataError.at(
                path, number, f"category listed twice (first on line {listed[text]})", text
            )
        listed[text] = number
    missing = [c for c in ADULTCONTENT3_CATEGORIES if c not in listed]
    if missing:
        raise DataError.at(
            path, None, "categories file must list every one of G, P, R, X; missing", missing
        )
    return set(listed)


def parse_adultcontent3(labels_path: PathLike, categories_path: PathLike) -> GradedData:
    """Parse the AdultContent3-HCOMP2010 ``labels.txt`` with its ``categories.txt``.

    ``labels.txt`` has no header; each line is ``worker<TAB>url<TAB>category``.
    ``categories.txt`` lists one category a line.

    Parameters
    ----------
    labels_path : path-like
        ``labels.txt``.
    categories_path : path-like
        ``categories.txt``. It must list each of G, P, R, X once and may list
        B; no other category.

    Returns
    -------
    GradedData
        ``K = 4``, label names ``"G", "P", "R", "X"`` (labels 0..3: general
        audience < parental guidance < restricted < X-rated; the order is
        fixed by the data set, not read from the file). ``truth`` is None.

        ``grades``: item = url, judge = worker. Rows are dropped, in this
        order of precedence:

        - category ``B`` (listed in the published ``categories.txt`` but not
          on the G < P < R < X scale, and not described by the source
          repository, whose README speaks of 4 categories): counted in
          ``dropped["category_B"]``.
        - a repeated (worker, url): the first remaining row in file order is
          kept, later ones counted in ``dropped["duplicate"]`` (same
          category) or ``dropped["duplicate_conflict"]`` (another one). In
          the published file a fifth of the rows repeat a (worker, url):
          6,084 repeat the kept category, 2,784 differ from it.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value, if a category in
        ``categories.txt`` is not G, P, R, X or B or is listed twice, G, P, R
        or X is missing from it, a line of ``labels.txt`` does not have 3
        fields or has an empty one, a label's category is not listed in
        ``categories.txt``, a blank line is followed by data, or there are no
        labels (or none left).
    """
    labels_path, categories_path = Path(labels_path), Path(categories_path)
    listed = _adult_categories(categories_path)
    code = {c: i for i, c in enumerate(ADULTCONTENT3_CATEGORIES)}
    lines = _data_lines(labels_path)
    if not lines:
        raise DataError.at(labels_path, 1, "no labels", "(empty file)")
    grades = _Collector()
    off_scale = dict.fromkeys(_ADULT_OFF_SCALE, 0)
    for number, text in lines:
        worker, url, category = _fields(
            labels_path, number, text, ["worker", "url", "category"]
        )
        if category not in listed:
            raise DataError.at(
                labels_path,
                number,
                f"unknown category (not in {categories_path.name}: {', '.join(sorted(listed))})",
                category,
            )
        if category in off_scale:
            off_scale[category] += 1
            continue
        grades.add(url, worker, code[category])
    return GradedData(
        grades=grades.frame(labels_path),
        n_labels=len(ADULTCONTENT3_CATEGORIES),
        label_names=list(ADULTCONTENT3_CATEGORIES),
        dropped={**{f"category_{c}": n for c, n in off_scale.items()}, **grades.counts()},
    )


# --------------------------------------------------------------------------
# snow2008


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
    lines = _data_lines(path)
    _check_header(path, lines, _SNOW_HEADER)
    grades = _Collector()
    for number, text in lines[1:]:
        _, worker, item, response, _ = _fields(path, number, text, _SNOW_HEADER)
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


# --------------------------------------------------------------------------
# the canonical table and its metadata


def _check_graded(data: GradedData) -> None:
    """ValueError unless ``data.grades`` is a valid grades table for ``data.n_labels``."""
    grades = data.grades
    if list(grades.columns) != GRADES_COLUMNS:
        raise ValueError(f"grades must have columns {GRADES_COLUMNS}, got {list(grades.columns)}")
    if grades.empty:
        raise ValueError("grades table has no rows")
    labels = grades["label"].to_numpy()
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"label column must be integer, got dtype {labels.dtype}")
    bad = (labels < 0) | (labels >= data.n_labels)
    if bad.any():
        raise ValueError(f"label {int(labels[bad][0])} outside 0..{data.n_labels - 1}")
    for name in ("item", "judge"):
        if (grades[name].astype(str).str.strip() == "").any():
            raise ValueError(f"empty {name} in the grades table")
    repeated = grades.duplicated(["item", "judge"])
    if repeated.any():
        row = grades[repeated].iloc[0]
        raise ValueError(f"judge {row['judge']!r} grades item {row['item']!r} twice")
    if not all(isinstance(k, str) and isinstance(v, (int, np.integer)) and not isinstance(v, bool)
               and v >= 0 for k, v in data.dropped.items()):
        raise ValueError(f"dropped must map reasons to non-negative counts, got {data.dropped!r}")


def write_grades(data: GradedData, grades_path: PathLike, meta_path: PathLike) -> None:
    """Write a grades table (TSV) and its metadata (YAML), each atomically.

    Parameters
    ----------
    data : GradedData
        The panel. ``data.truth`` is not written (write it with
        :func:`manyjudges.io.tables.write_table` if needed).
    grades_path : path-like
        The TSV, header ``item, judge, label``, rows in the order of
        ``data.grades``.
    meta_path : path-like
        The YAML file: ``n_labels``, ``label_names`` and ``dropped``, in that
        order, and nothing else (nothing time-dependent: the same data gives
        the same bytes).

    Raises
    ------
    ValueError
        If ``data.grades`` is not a valid grades table (columns, non-empty,
        integer labels in ``0 .. K-1``, no repeated (item, judge), no empty
        id) or ``data.dropped`` is not a mapping of reasons to non-negative
        counts; nothing is written then.

    Notes
    -----
    Each file goes to a temporary file beside it and replaces the old one in
    one ``os.replace``. The metadata is serialised before the table is
    written and put in place right after it, so a failure leaves at most the
    table new and the metadata old.
    """
    _check_graded(data)
    meta = {
        "n_labels": int(data.n_labels),
        "label_names": [str(n) for n in data.label_names],
        "dropped": {str(k): int(v) for k, v in data.dropped.items()},
    }
    text = yaml.safe_dump(meta, sort_keys=False, default_flow_style=False, allow_unicode=True)
    meta_path = Path(meta_path)
    meta_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(meta_path)
    try:
        with open(tmp, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
        write_table(data.grades[GRADES_COLUMNS], grades_path)
        os.replace(tmp, meta_path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _key_lines(text: str) -> dict[str, int]:
    """1-based line of each top-level key of a YAML mapping (best effort)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        key.value: value.start_mark.line + 1
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode)
    }


def _read_meta(path: Path) -> tuple[int, list[str], dict[str, int]]:
    """``n_labels``, ``label_names`` and ``dropped`` from a grades metadata file."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise DataError.at(path, line, "not valid YAML", str(exc).splitlines()[0]) from exc
    if meta is None:
        raise DataError.at(path, 1, "empty metadata file", "(empty file)")
    if not isinstance(meta, dict):
        raise DataError.at(path, 1, "metadata must be a YAML mapping", meta)
    lines = _key_lines(text)
    for key in meta:
        if key not in _META_KEYS:
            raise DataError.at(
                path, lines.get(key), f"unknown key (known: {', '.join(_META_KEYS)})", key
            )
    for key in _META_KEYS[:2]:
        if key not in meta:
            raise DataError.at(path, None, "missing key", key)

    n_labels = meta["n_labels"]
    if isinstance(n_labels, bool) or not isinstance(n_labels, int) or n_labels < 1:
        raise DataError.at(
            path, lines.get("n_labels"), "n_labels must be a positive integer", n_labels
        )
    names = meta["label_names"]
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise DataError.at(
            path, lines.get("label_names"), "label_names must be a list of non-empty strings", names
        )
    if len(names) != n_labels or len(set(names)) != len(names):
        raise DataError.at(
            path,
            lines.get("label_names"),
            f"label_names must be {n_labels} distinct names (n_labels)",
            names,
        )
    dropped = meta.get("dropped") or {}
    if not isinstance(dropped, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in dropped.items()
    ):
        raise DataError.at(
            path,
            lines.get("dropped"),
            "dropped must map reasons to non-negative integer counts",
            dropped,
        )
    return n_labels, names, dict(dropped)


def read_grades(grades_path: PathLike, meta_path: PathLike) -> GradedData:
    """Read and validate a grades TSV and its YAML metadata.

    Parameters
    ----------
    grades_path : path-like
        A TSV with the header ``item, judge, label`` (as written by
        :func:`write_grades`). Blank lines are skipped.
    meta_path : path-like
        The YAML metadata: ``n_labels`` (positive integer), ``label_names``
        (that many distinct non-empty strings) and optionally ``dropped``
        (reason -> non-negative integer count); no other key.

    Returns
    -------
    GradedData
        The table sorted by item, then judge (natural order), with ``truth``
        None.

    Raises
    ------
    DataError
        Naming the file, the 1-based line (header = line 1; where there is
        one) and the value, if the metadata is not valid YAML, has an
        unknown or missing key or a bad value; or if the table's header is
        not exactly ``item, judge, label``, a row does not have 3 fields, an
        item or judge is empty, a label is not an integer in
        ``0 .. n_labels-1``, a judge grades an item twice, or there are no
        data rows.
    """
    grades_path, meta_path = Path(grades_path), Path(meta_path)
    n_labels, names, dropped = _read_meta(meta_path)
    return read_grades_table(grades_path, n_labels, names, dropped, f"n_labels = {n_labels} in {meta_path.name}")


def read_grades_table(grades_path: PathLike, n_labels: int, label_names: list[str] | None = None,
                      dropped: dict[str, int] | None = None, where: str | None = None) -> GradedData:
    """Read and validate a grades TSV (``item, judge, label``) whose labels are 0..n_labels-1.

    For a user's own table (``source: table`` in the config), ``n_labels`` comes from the
    config; errors name the file, line and value as in :func:`read_grades`.
    """
    grades_path = Path(grades_path)
    names = list(label_names) if label_names else [str(c) for c in range(n_labels)]
    dropped = dict(dropped or {})
    where = where or f"n_labels = {n_labels}"
    rows, lines = read_tsv_rows(grades_path, GRADES_COLUMNS)
    items: list[str] = []
    judges: list[str] = []
    labels: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    for (item, judge, label), line in zip(rows, lines):
        for name, text in (("item", item), ("judge", judge)):
            if text.strip() == "":
                raise DataError.at(grades_path, line, f"empty {name}", text)
        if not _LABEL.fullmatch(label) or int(label) >= n_labels:
            raise DataError.at(
                grades_path,
                line,
                f"label must be an integer in 0..{n_labels - 1} ({where})",
                label,
            )
        key = (item, judge)
        if key in seen:
            raise DataError.at(
                grades_path,
                line,
                f"judge {judge!r} grades item {item!r} twice (first on line {seen[key]})",
                item,
            )
        seen[key] = line
        items.append(item)
        judges.append(judge)
        labels.append(int(label))
    return GradedData(
        grades=_grades_frame(items, judges, labels),
        n_labels=n_labels,
        label_names=names,
        dropped=dropped,
    )


def parse_graded_source(source: str, files: dict[str, PathLike], spec: dict | None = None) -> GradedData:
    """Parse a pinned or user dataset's files (``{file name: path}``) by its config ``source``.

    ``spec`` is the dataset's config entry (``task`` for snow2008; ``n_labels`` and
    ``label_names`` for a user ``table``). A missing file, or a snow2008 ``task`` whose file
    is not among the dataset's files, is a ValueError naming what was expected.
    """
    spec = dict(spec or {})

    def need(name: str) -> PathLike:
        if name not in files:
            raise ValueError(f"source {source!r} needs the file {name!r}; the dataset has {sorted(files)}")
        return files[name]

    if source == "table":
        (path,) = files.values()
        return read_grades_table(path, spec["n_labels"], spec.get("label_names"))
    if source == "trec_rf10":
        return parse_trec_rf10(need("trec-rf10-data.txt"))
    if source == "adultcontent3":
        return parse_adultcontent3(need("labels.txt"), need("categories.txt"))
    if source == "snow2008":
        task = spec.get("task")
        return parse_snow2008(need(f"{task}.standardized.tsv"), task)
    raise ValueError(f"unknown graded source {source!r}; known: table, trec_rf10, adultcontent3, snow2008")
