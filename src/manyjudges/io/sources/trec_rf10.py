"""Parse ``trec-rf10-data.txt``, the TREC 2010 Relevance Feedback track crowd judgments.

The file (Buckley, Lease, Smucker, TREC 2010) is a TSV with the header
``topicID, workerID, docID, gold, label``; ``label`` is the judge's judgment
(2 highly relevant, 1 relevant, 0 non-relevant, -2 broken link), ``gold`` the
NIST judgment of the (topic, doc) pair (2, 1, 0; -1 = no NIST judgment; -2 =
a deliberately planted broken link). See ``docs/data.md``; the rules shared
by the graded parsers are in :mod:`manyjudges.io.sources`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.core.natural_order import natural_positions
from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike, _check_header, _data_lines, _GradeCollector, _tab_fields
from manyjudges.io.tables.grades import GradedData

__all__ = ["CROWD_REPORT_NOTE", "parse_trec_rf10", "trec_rf10_labels"]

#: The data caveat the crowd report prints under a dataset with ``source: trec_rf10``.
CROWD_REPORT_NOTE = (
    "**Standing in for CS-TREC2011.** The TREC 2011 Crowdsourcing track set of Niu et al. is not public; "
    "these TREC 2010 RF track crowd ratings, from which it was built, stand in: ratings 0/1/2 become "
    "preferences by eq (5); NIST gold (0/1/2) is the truth; each topic is scored on the gold-labelled "
    "documents the crowd judged. Only trends and the ranking of methods compare with the paper's values."
)

_TREC_HEADER = ["topicID", "workerID", "docID", "gold", "label"]
_TREC_LABELS = {"0": 0, "1": 1, "2": 2}
_TREC_BROKEN = "-2"
_TREC_GOLD = {"-2": None, "-1": None, "0": 0, "1": 1, "2": 2}


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
        item under each topic), judge = ``workerID``, label = the judge's
        0/1/2. Rows are dropped, in this order of precedence:

        - ``label == -2`` (the judge reported a broken link): not a grade;
          counted in ``dropped["broken_link"]``.
        - a repeated (topic, judge, doc): the first remaining row in file
          order is kept, later ones counted in ``dropped["duplicate"]``
          (same label) or ``dropped["duplicate_conflict"]`` (another label).
          The published file has 1,570 repeated rows (a judge judged the
          same pair two or three times); 1,345 remain after the broken-link
          rows are gone: 1,097 repeat the kept label, 248 differ from it.

        Crowd labels on pairs whose gold is -2 (URLs planted as broken links
        for quality control, which a judge nonetheless graded 0/1/2) are
        kept: they are what the judge said.

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
    grades, broken, gold_of = _read_judgments(path, lines[1:])
    return GradedData(
        grades=grades.frame(path),
        n_classes=3,
        label_names=["0", "1", "2"],
        truth=_truth_table(gold_of),
        dropped={"broken_link": broken, **grades.counts()},
    )


def _read_judgments(
    path: Path, lines: list[tuple[int, str]]
) -> tuple[_GradeCollector, int, dict[tuple[str, str], tuple[str, int]]]:
    """Read (the grades, how many broken-link rows, each (topic, doc)'s gold and its first line) of the data lines.

    Each line is checked (see :func:`parse_trec_rf10`).
    """
    grades = _GradeCollector()
    broken = 0
    gold_of: dict[tuple[str, str], tuple[str, int]] = {}
    for number, text in lines:
        topic, judge, doc, gold, label = _tab_fields(path, number, text, _TREC_HEADER)
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
        grades.add(f"{topic}:{doc}", judge, _TREC_LABELS[label])
    return grades, broken, gold_of


def _truth_table(gold_of: dict[tuple[str, str], tuple[str, int]]) -> pd.DataFrame:
    """Return ``topic, item, grade``: the (topic, doc) pairs whose gold is 0, 1 or 2.

    In natural order of topic then doc.
    """
    truth_rows = [
        (topic, doc, grade)
        for (topic, doc), (gold, _) in gold_of.items()
        if (grade := _TREC_GOLD[gold]) is not None
    ]
    topic_rank = natural_positions(t for t, _, _ in truth_rows)
    doc_rank = natural_positions(d for _, d, _ in truth_rows)
    truth_rows.sort(key=lambda row: (topic_rank[row[0]], doc_rank[row[1]]))
    columns = list(zip(*truth_rows)) if truth_rows else [(), (), ()]
    return pd.DataFrame(
        {
            "topic": pd.Series(columns[0], dtype=str),
            "item": pd.Series(columns[1], dtype=str),
            "grade": np.asarray(columns[2], dtype=np.int64),
        }
    )


def trec_rf10_labels(path: PathLike) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the crowd labels and NIST's labels as truth-inference tables.

    They are (labels ``item, judge, label``, truth ``item, truth``), item = ``<topic>:<doc>`` as in
    :func:`parse_trec_rf10`'s grades; NIST labels of documents no judge judged are left out (they
    cannot be inferred).
    """
    graded = parse_trec_rf10(path)
    assert graded.truth is not None  # parse_trec_rf10 always gives NIST's labels
    labels = graded.grades
    truth = pd.DataFrame({"item": graded.truth["topic"].astype(str) + ":" + graded.truth["item"].astype(str),
                          "truth": graded.truth["grade"].to_numpy()})
    return labels, truth[truth["item"].isin(set(labels["item"]))].reset_index(drop=True)

