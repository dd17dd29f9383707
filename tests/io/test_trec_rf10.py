"""Tests for the trec_rf10 parser (TREC 2010 RF track crowd judgments)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from io_helpers import DATA, assert_grades, assert_located, pinned, rows, write

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.trec_rf10 import parse_trec_rf10
from manyjudges.io.tables.truth import TRUTH_COLUMNS

GRADES = DATA / "grades"
TREC_HEADER = "topicID\tworkerID\tdocID\tgold\tlabel\n"


def test_trec_fixture() -> None:
    data = parse_trec_rf10(GRADES / "tiny_trec_rf10.txt")
    assert_grades(data)
    assert (data.n_classes, data.label_names) == (3, ["0", "1", "2"])
    # items sorted lexicographically (not all digit strings), judges too;
    # w2 on 7:docA: -2 dropped, then 1 kept, then 2 dropped as a conflict
    assert rows(data.grades) == [
        ["12:docA", "w10", 1],
        ["12:docX", "w3", 0],
        ["3:docC", "w1", 2],
        ["7:docA", "w1", 0],
        ["7:docA", "w2", 1],
        ["7:docB", "w1", 2],
        ["7:docB", "w2", 1],
    ]
    assert data.dropped == {"broken_link": 3, "duplicate": 1, "duplicate_conflict": 1}
    assert list(data.truth.columns) == TRUTH_COLUMNS
    assert data.truth["grade"].dtype == np.int64
    # topics are digit strings: numeric order; gold -1 and -2 are not truth
    assert rows(data.truth) == [["3", "docC", 1], ["7", "docA", 2], ["12", "docA", 0]]


def test_crlf_and_trailing_blank_lines(tmp_path: Path) -> None:
    text = (GRADES / "tiny_trec_rf10.txt").read_text().rstrip("\n").replace("\n", "\r\n") + "\r\n\r\n  \n"
    data = parse_trec_rf10(write(tmp_path / "crlf.txt", text))
    expected = parse_trec_rf10(GRADES / "tiny_trec_rf10.txt")
    pd.testing.assert_frame_equal(data.grades, expected.grades)
    assert data.dropped == expected.dropped


# --------------------------------------------------------------------------
# bad raw inputs


@pytest.mark.parametrize(
    ("body", "line", "value", "reason"),
    [
        ("7\tw1\td\t-1\t1\n7\tw2\td\t-1\t3\n", 3, "3", "label must be one of -2, 0, 1, 2"),
        ("7\tw1\td\t-1\t-1\n", 2, "-1", "label must be one of"),
        ("7\tw1\td\t-1\t1\n7\tw2\te\t5\t1\n", 3, "5", "gold must be one of"),
        ("7\tw1\td\t-1\t1\n7\tw2\td\t1\t1\n", 3, "1", "differs from '-1' on line 2"),
        ("7\tw1\td\t-1\t1\n7\tw2\td\t-1\n", 3, "7\tw2\td\t-1", "expected 5 tab-separated fields, got 4"),
        ("7\tw1\td\t-1\t1\n7\t\td\t-1\t1\n", 3, "7\t\td\t-1\t1", "empty workerID"),
        ("7\tw1\td\t-1\t1\n\n7\tw2\td\t-1\t1\n", 3, "", "blank line in the middle"),
    ],
)
def test_trec_bad_rows(tmp_path: Path, body: str, line: int, value: str, reason: str) -> None:
    path = write(tmp_path / "trec.txt", TREC_HEADER + body)
    with pytest.raises(DataError, match=reason) as err:
        parse_trec_rf10(path)
    assert_located(err, path, line, value)


def test_trec_bad_header_and_empty(tmp_path: Path) -> None:
    path = write(tmp_path / "trec.txt", "topic\tjudge\tdoc\tgold\tlabel\n7\tw1\td\t-1\t1\n")
    with pytest.raises(DataError, match="header must be") as err:
        parse_trec_rf10(path)
    assert_located(err, path, 1, "topic\tjudge\tdoc\tgold\tlabel")

    empty = write(tmp_path / "empty.txt", "")
    with pytest.raises(DataError, match="header must be") as err:
        parse_trec_rf10(empty)
    assert_located(err, empty, 1, "(empty file)")

    header_only = write(tmp_path / "header.txt", TREC_HEADER + "\n")
    with pytest.raises(DataError, match="no data rows") as err:
        parse_trec_rf10(header_only)
    assert_located(err, header_only, 1, TREC_HEADER.rstrip("\n"))

    broken_only = write(tmp_path / "broken.txt", TREC_HEADER + "7\tw1\td\t-1\t-2\n")
    with pytest.raises(DataError, match="no grades left") as err:
        parse_trec_rf10(broken_only)
    assert broken_only.name in str(err.value)


# --------------------------------------------------------------------------
# the real published file (shared mirror)


def test_trec_rf10_real(mirror: Path) -> None:
    files = pinned("trec_rf10", mirror)
    assert sorted(files) == ["trec-rf10-data.txt", "trec-rf10-readme.txt"]
    path = files["trec-rf10-data.txt"]
    data = parse_trec_rf10(path)
    assert_grades(data)
    g = data.grades

    # the published counts, on the raw rows
    raw = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    assert len(raw) == 98_453
    assert raw["topicID"].nunique() == 100 and raw["workerID"].nunique() == 766
    assert len(raw[["topicID", "docID"]].drop_duplicates()) == 20_232
    # every raw row is a grade or a counted drop
    assert data.dropped == {"broken_link": 6_670, "duplicate": 1_097, "duplicate_conflict": 248}
    assert len(g) + sum(data.dropped.values()) == 98_453
    assert len(g) == 90_438
    assert g["label"].value_counts().sort_index().tolist() == [30_465, 35_341, 24_632]
    # 206 (topic, doc) pairs and 4 judges have only broken-link labels
    assert g["item"].nunique() == 20_232 - 206
    assert g["judge"].nunique() == 766 - 4
    assert g["item"].str.split(":").str[0].nunique() == 100

    truth = data.truth
    assert len(truth) == 3_277 and truth["topic"].nunique() == 100
    assert truth["grade"].value_counts().sort_index().tolist() == [1_501, 863, 913]
    assert not truth.duplicated(["topic", "item"]).any()
    # 2 gold pairs were only ever reported as broken links
    assert len(set(truth["topic"] + ":" + truth["item"]) & set(g["item"])) == 3_275
