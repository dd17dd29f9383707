"""Tests for the adultcontent3 parser (AdultContent3-HCOMP2010 labels and categories)."""

from __future__ import annotations

from pathlib import Path

import pytest
from io_helpers import DATA, assert_grades, assert_located, pinned, rows, write

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.adultcontent3 import _ADULTCONTENT3_CATEGORIES, parse_adultcontent3

GRADES = DATA / "grades"


def test_adultcontent3_fixture() -> None:
    data = parse_adultcontent3(GRADES / "tiny_adult_labels.txt", GRADES / "tiny_adult_categories.txt")
    assert_grades(data)
    assert (data.n_classes, data.label_names) == (4, ["G", "P", "R", "X"])
    assert data.truth is None
    assert rows(data.grades) == [
        ["http://a.example", "wA", 0],
        ["http://a.example", "wB", 0],
        ["http://a.example", "wC", 2],
        ["http://b.example", "wA", 1],
        ["http://b.example", "wB", 3],
    ]
    assert data.dropped == {"category_B": 1, "duplicate": 1, "duplicate_conflict": 1}


# --------------------------------------------------------------------------
# bad raw inputs


def test_adult_unknown_category(tmp_path: Path) -> None:
    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\nw2\thttp://a\tPG\n")
    with pytest.raises(DataError, match="unknown category") as err:
        parse_adultcontent3(labels, GRADES / "tiny_adult_categories.txt")
    assert_located(err, labels, 2, "PG")

    # B is only accepted when categories.txt lists it
    cats = write(tmp_path / "categories.txt", "G\nP\nR\nX\n")
    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\nw2\thttp://a\tB\n")
    with pytest.raises(DataError, match="unknown category") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, labels, 2, "B")


def test_adult_bad_rows(tmp_path: Path) -> None:
    cats = GRADES / "tiny_adult_categories.txt"
    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\nw2\thttp://a\n")
    with pytest.raises(DataError, match="expected 3 tab-separated fields, got 2") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, labels, 2, "w2\thttp://a")

    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\n\nw2\thttp://a\tX\n")
    with pytest.raises(DataError, match="blank line") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, labels, 2, "")

    labels = write(tmp_path / "labels.txt", "\n\n")
    with pytest.raises(DataError, match="no labels") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, labels, 1, "(empty file)")


def test_adult_bad_categories_file(tmp_path: Path) -> None:
    labels = GRADES / "tiny_adult_labels.txt"
    cats = write(tmp_path / "categories.txt", "G\nP\nQ\nR\nX\n")
    with pytest.raises(DataError, match="unknown category") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, cats, 3, "Q")

    cats = write(tmp_path / "categories.txt", "G\nP\nR\nG\nX\n")
    with pytest.raises(DataError, match="listed twice \\(first on line 1\\)") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, cats, 4, "G")

    cats = write(tmp_path / "categories.txt", "G\nP\nR\nB\n")
    with pytest.raises(DataError, match="missing") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, cats, None, ["X"])


# --------------------------------------------------------------------------
# the real published files (shared mirror)


def test_adultcontent3_real(mirror: Path) -> None:
    files = pinned("adultcontent3", mirror)
    assert sorted(files) == ["categories.txt", "labels.txt"]
    assert files["categories.txt"].read_text().split() == [*_ADULTCONTENT3_CATEGORIES, "B"]
    data = parse_adultcontent3(files["labels.txt"], files["categories.txt"])
    assert_grades(data)
    g = data.grades
    # 44,373 raw labels = 34,768 grades + 737 'B' + 8,868 repeated (judge, url) rows
    assert data.dropped == {"category_B": 737, "duplicate": 6_084, "duplicate_conflict": 2_784}
    assert len(g) + sum(data.dropped.values()) == 44_373
    assert len(g) == 34_768
    assert g["item"].nunique() == 496 and g["judge"].nunique() == 338
    assert g["label"].value_counts().sort_index().tolist() == [11_078, 9_465, 10_574, 3_651]
