"""Parse the MIREX 2005 crowd preferences of Urbano et al. (SIGIR CSE 2010) and their qrel.

``judgments.csv`` (a Latin-1 MTurk results file) becomes the canonical
``preferences`` table and ``MTurk.qrel`` the ``truth`` table of
:mod:`manyjudges.io.tables.preferences`; see ``docs/data.md``.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.engine.errors import DataError, _read_utf8
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.preferences import _PREFERENCE_COLUMNS, PreferenceData
from manyjudges.io.tables.truth import TRUTH_COLUMNS

__all__ = ["REPORT_NOTE", "parse_mirex2005"]

#: The data caveat the crowd report prints under a dataset with ``source: mirex2005``.
REPORT_NOTE = (
    "**Truth for MIREX 2005.** The expert ground truth of Niu et al. (Typke et al. 2005) is not public. We use "
    "the `MTurk.qrel` groups that Urbano et al. derived **from these same crowd judgments**: the truth is not "
    "independent of the judgments, so every method is partly scored on agreement with the crowd itself. "
    "Each query's groups are binned into `n_grades` grades (best group = the top grade; config/paper.yaml: 5 "
    "grades, relevant = grade >= 3). The query's own document is an item of its topic (judges compared it too) "
    "and has the top grade. Only trends and "
    "the ranking of methods compare with the paper's values."
)

_MIREX_COLUMNS = ("WorkerId", "Input.query", "Input.docA", "Input.docB", "Answer.radio")
_MIREX_ANSWERS = {"a": "left", "b": "right", "s": "tie"}


def parse_mirex2005(judgments_path: PathLike, qrel_path: PathLike, n_grades: int = 5) -> PreferenceData:
    """Parse the Urbano et al. (SIGIR CSE 2010) MIREX 2005 crowd preferences and their qrel.

    ``judgments.csv`` is a Latin-1 MTurk results file; each row is one judge's answer to
    "which of A and B is more similar to the query": ``a`` -> outcome ``left`` (docA),
    ``b`` -> ``right``, ``s`` (same) -> ``tie``. The 5 rows with an empty answer are
    dropped (counted in ``dropped["empty_answer"]``). Topic = ``Input.query``.

    ``MTurk.qrel`` lines are ``MTurk <query> <doc> <group>``: ranked groups, group 1 = most
    similar. Truth grades (0 .. n_grades-1, higher = more similar): the query's distinct
    groups, best first, are cut into ``n_grades`` equal-width bins; a doc in the g-th of G
    groups (1-based) gets grade ``n_grades - 1 - floor(n_grades (g - 1) / G)``.
    This truth was derived by the data's authors from these same crowd judgments: it is
    not independent of them.

    Raises DataError naming the file, line and value for a missing column, an unknown
    answer, an empty id, a malformed qrel line, or a judged doc with no qrel entry.
    """
    judgments_path, qrel_path = Path(judgments_path), Path(qrel_path)
    truth = _parse_mirex_qrel(qrel_path, n_grades)
    known = set(zip(truth["topic"], truth["item"]))
    rows: list[tuple[str, str, str, str, str]] = []
    dropped = {"empty_answer": 0}
    with open(judgments_path, encoding="latin-1", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataError.at(judgments_path, 1, "empty file")
        missing = [c for c in _MIREX_COLUMNS if c not in header]
        if missing:
            raise DataError.at(judgments_path, 1, f"header lacks columns {missing}", ",".join(header))
        col = [header.index(c) for c in _MIREX_COLUMNS]
        line_start = reader.line_num + 1
        for fields in reader:
            line = line_start
            line_start = reader.line_num + 1
            if not fields:
                continue
            if len(fields) != len(header):
                raise DataError.at(judgments_path, line, f"expected {len(header)} fields, got {len(fields)}",
                                   ",".join(fields))
            judge, query, doc_a, doc_b, answer = (fields[i].strip() for i in col)
            for name, value in (("WorkerId", judge), ("Input.query", query), ("Input.docA", doc_a),
                                ("Input.docB", doc_b)):
                if not value:
                    raise DataError.at(judgments_path, line, f"empty {name}")
            if answer == "":
                dropped["empty_answer"] += 1
                continue
            if answer not in _MIREX_ANSWERS:
                raise DataError.at(judgments_path, line, "Answer.radio must be a, b, s or empty", answer)
            if doc_a == doc_b:
                raise DataError.at(judgments_path, line, "docA and docB are the same document", doc_a)
            for doc in (doc_a, doc_b):
                if (query, doc) not in known:
                    raise DataError.at(judgments_path, line, f"document has no entry in {qrel_path.name} "
                                       f"for query {query!r}", doc)
            rows.append((query, judge, doc_a, doc_b, _MIREX_ANSWERS[answer]))
    if not rows:
        raise DataError.at(judgments_path, None, "no judgments with an answer")
    prefs = pd.DataFrame(rows, columns=_PREFERENCE_COLUMNS)
    return PreferenceData(prefs, truth, dropped)


def _parse_mirex_qrel(path: Path, n_grades: int) -> pd.DataFrame:
    if n_grades < 2:
        raise ValueError(f"n_grades must be at least 2, got {n_grades}")
    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, text in enumerate(_read_utf8(path).splitlines(), start=1):
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 4:
            raise DataError.at(path, line, f"expected 4 fields 'MTurk query doc group', got {len(fields)}", text)
        _, query, doc, group = fields
        if not group.isdigit() or int(group) < 1:
            raise DataError.at(path, line, "group must be a positive integer", group)
        if (query, doc) in seen:
            raise DataError.at(path, line, f"document listed twice for query {query!r} "
                               f"(first on line {seen[query, doc]})", doc)
        seen[query, doc] = line
        rows.append((query, doc, int(group)))
    if not rows:
        raise DataError.at(path, None, "no qrel lines")
    table = pd.DataFrame(rows, columns=["topic", "item", "group"])
    # position of each doc's group among its query's distinct groups (1 = best)
    position = table.groupby("topic")["group"].rank(method="dense").astype(int)
    n_groups = table.groupby("topic")["group"].transform("nunique")
    table["grade"] = (n_grades - 1 - np.floor(n_grades * (position - 1) / n_groups)).astype(np.int64)
    return table[TRUTH_COLUMNS].reset_index(drop=True)
