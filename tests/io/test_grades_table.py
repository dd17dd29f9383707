"""Tests for the canonical grades table: writer, reader and the metadata sidecar."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from io_helpers import DATA, assert_located, write

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.adultcontent3 import parse_adultcontent3
from manyjudges.io.sources.snow2008 import parse_snow2008
from manyjudges.io.sources.trec_rf10 import parse_trec_rf10
from manyjudges.io.tables import grades as grades_module
from manyjudges.io.tables.grades import GradedData, read_grades, write_grades

GRADES = DATA / "grades"


def test_round_trip(tmp_path: Path) -> None:
    for data in (
        parse_trec_rf10(GRADES / "tiny_trec_rf10.txt"),
        parse_adultcontent3(GRADES / "tiny_adult_labels.txt", GRADES / "tiny_adult_categories.txt"),
        parse_snow2008(GRADES / "tiny_snow_valence.tsv", "valence"),
    ):
        out = tmp_path / "out"
        write_grades(data, out / "grades.tsv", out / "grades.meta.yaml")
        back = read_grades(out / "grades.tsv", out / "grades.meta.yaml")
        pd.testing.assert_frame_equal(back.grades, data.grades)
        assert back.n_classes == data.n_classes
        assert back.label_names == data.label_names
        assert back.dropped == data.dropped
        assert back.truth is None
        assert sorted(p.name for p in out.iterdir()) == ["grades.meta.yaml", "grades.tsv"]


def test_written_files_are_exact_and_deterministic(tmp_path: Path) -> None:
    data = parse_trec_rf10(GRADES / "tiny_trec_rf10.txt")
    write_grades(data, tmp_path / "g.tsv", tmp_path / "g.yaml")
    assert (tmp_path / "g.tsv").read_text().splitlines()[:3] == [
        "item\tjudge\tlabel",
        "12:docA\tw10\t1",
        "12:docX\tw3\t0",
    ]
    meta = (tmp_path / "g.yaml").read_text()
    assert meta == (
        "n_labels: 3\n"
        "label_names:\n- '0'\n- '1'\n- '2'\n"
        "dropped:\n  broken_link: 3\n  duplicate: 1\n  duplicate_conflict: 1\n"
    )
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    write_grades(data, tmp_path / "g.tsv", tmp_path / "g.yaml")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == first


def test_write_rejects_bad_data_and_leaves_nothing(tmp_path: Path) -> None:
    good = parse_snow2008(GRADES / "tiny_snow_wordsim.tsv", "wordsim")
    bad_label = GradedData(good.grades.assign(label=good.grades["label"] + 1), 11, good.label_names)
    with pytest.raises(ValueError, match="label 11 outside 0..10"):
        write_grades(bad_label, tmp_path / "g.tsv", tmp_path / "g.yaml")
    repeated = GradedData(pd.concat([good.grades, good.grades.iloc[:1]]), 11, good.label_names)
    with pytest.raises(ValueError, match="twice"):
        write_grades(repeated, tmp_path / "g.tsv", tmp_path / "g.yaml")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="label_names has 2 names"):
        GradedData(good.grades, 11, ["a", "b"])


def test_write_failure_keeps_old_files_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = parse_snow2008(GRADES / "tiny_snow_wordsim.tsv", "wordsim")
    write_grades(old, tmp_path / "g.tsv", tmp_path / "g.yaml")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def disk_full(df: pd.DataFrame, path: object) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(grades_module, "write_table", disk_full)
    new = parse_snow2008(GRADES / "tiny_snow_anger.tsv", "anger")
    with pytest.raises(OSError, match="no space"):
        write_grades(new, tmp_path / "g.tsv", tmp_path / "g.yaml")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


META = "n_labels: 3\nlabel_names: ['0', '1', '2']\n"


@pytest.mark.parametrize(
    ("body", "line", "value", "reason"),
    [
        ("a\tw1\t0\na\tw2\t3\n", 3, "3", "label must be an integer in 0..2"),
        ("a\tw1\t0\na\tw2\t-1\n", 3, "-1", "label must be an integer in 0..2"),
        ("a\tw1\t0\na\tw2\tx\n", 3, "x", "label must be an integer"),
        ("a\tw1\t0\nb\tw1\t1\na\tw1\t2\n", 4, "a", "grades item 'a' twice \\(first on line 2\\)"),
        ("a\tw1\t0\na\tw2\n", 3, "a\tw2", "expected 3 tab-separated fields, got 2"),
        ("a\tw1\t0\n\tw2\t1\n", 3, "", "empty item"),
    ],
)
def test_read_bad_rows(tmp_path: Path, body: str, line: int, value: str, reason: str) -> None:
    meta = write(tmp_path / "g.yaml", META)
    path = write(tmp_path / "g.tsv", "item\tjudge\tlabel\n" + body)
    with pytest.raises(DataError, match=reason) as err:
        read_grades(path, meta)
    assert_located(err, path, line, value)


def test_read_bad_header_and_empty(tmp_path: Path) -> None:
    meta = write(tmp_path / "g.yaml", META)
    path = write(tmp_path / "g.tsv", "item\tworker\tlabel\na\tw1\t0\n")  # worker reads as judge
    assert read_grades(path, meta).grades["judge"].tolist() == ["w1"]
    path = write(tmp_path / "g.tsv", "item\tgrader\tlabel\na\tw1\t0\n")
    with pytest.raises(DataError, match="header must be.*missing column\\(s\\) judge") as err:
        read_grades(path, meta)
    assert_located(err, path, 1, "item\tgrader\tlabel")

    path = write(tmp_path / "g.tsv", "")
    with pytest.raises(DataError, match="header must be") as err:
        read_grades(path, meta)
    assert_located(err, path, 1, "(empty file)")

    path = write(tmp_path / "g.tsv", "item\tjudge\tlabel\n")
    with pytest.raises(DataError, match="no data rows") as err:
        read_grades(path, meta)
    assert_located(err, path, 1, "item\tjudge\tlabel")


@pytest.mark.parametrize(
    ("meta", "line", "value", "reason"),
    [
        ("n_labels: 3\nlabel_names: ['0', '1']\n", 2, ["0", "1"], "label_names must be 3 distinct"),
        ("n_labels: 3\nlabel_names: [0, 1, 2]\n", 2, [0, 1, 2], "list of non-empty strings"),
        ("n_labels: 0\nlabel_names: []\n", 1, 0, "n_labels must be a positive integer"),
        (META + "source: trec\n", 3, "source", "unknown key"),
        (META + "dropped:\n  duplicate: -1\n", 4, {"duplicate": -1}, "non-negative"),
        ("label_names: ['0']\n", None, "n_labels", "missing key"),
        ("", 1, "(empty file)", "empty metadata file"),
        ("n_labels: [3\n", 2, None, "not valid YAML"),
    ],
)
def test_read_bad_meta(tmp_path: Path, meta: str, line: int | None, value: object, reason: str) -> None:
    grades = write(tmp_path / "g.tsv", "item\tjudge\tlabel\na\tw1\t0\n")
    path = write(tmp_path / "g.yaml", meta)
    with pytest.raises(DataError, match=reason) as err:
        read_grades(grades, path)
    if value is None:  # a YAML syntax error: the value is the parser's message
        assert path.name in str(err.value) and err.value.line == line
    else:
        assert_located(err, path, line, value)
