"""Tests for the grades table: trec_rf10, adultcontent3 and snow2008 parsers, writer, reader."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges.download import mirror_path, pinned_files
from manyjudges.io import grades as grades_module
from manyjudges.io.errors import DataError
from manyjudges.io.grades import (
    ADULTCONTENT3_CATEGORIES,
    GRADES_COLUMNS,
    SNOW2008_TASKS,
    TRUTH_COLUMNS,
    GradedData,
    parse_adultcontent3,
    parse_snow2008,
    parse_trec_rf10,
    read_grades,
    write_grades,
)

DATA = Path(__file__).parent / "data" / "grades"
TREC_HEADER = "topicID\tworkerID\tdocID\tgold\tlabel\n"
SNOW_HEADER = "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
AFFECT = ("anger", "disgust", "fear", "joy", "sadness", "surprise")


def assert_located(err: pytest.ExceptionInfo, path: Path, line: int | None, value: object) -> None:
    """The message names the file, the 1-based line (if any) and the value."""
    message = str(err.value)
    assert path.name in message
    assert err.value.path == str(path)
    if line is None:
        assert err.value.line is None
    else:
        assert err.value.line == line
        assert f"line {line}" in message
    assert err.value.value == value
    assert repr(value) in message


def assert_grades(data: GradedData) -> None:
    g = data.grades
    assert list(g.columns) == GRADES_COLUMNS
    assert g["label"].dtype == np.int64
    assert all(isinstance(v, str) for col in ("item", "judge") for v in g[col])
    assert g["label"].between(0, data.n_labels - 1).all()
    assert not g.duplicated(["item", "judge"]).any()
    assert len(data.label_names) == data.n_labels


def rows(df: pd.DataFrame) -> list[list]:
    return df.values.tolist()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# hand-made fixtures


def test_trec_fixture() -> None:
    data = parse_trec_rf10(DATA / "tiny_trec_rf10.txt")
    assert_grades(data)
    assert (data.n_labels, data.label_names) == (3, ["0", "1", "2"])
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


def test_adultcontent3_fixture() -> None:
    data = parse_adultcontent3(DATA / "tiny_adult_labels.txt", DATA / "tiny_adult_categories.txt")
    assert_grades(data)
    assert (data.n_labels, data.label_names) == (4, ["G", "P", "R", "X"])
    assert data.truth is None
    assert rows(data.grades) == [
        ["http://a.example", "wA", 0],
        ["http://a.example", "wB", 0],
        ["http://a.example", "wC", 2],
        ["http://b.example", "wA", 1],
        ["http://b.example", "wB", 3],
    ]
    assert data.dropped == {"category_B": 1, "duplicate": 1, "duplicate_conflict": 1}


def test_snow_wordsim_fixture() -> None:
    data = parse_snow2008(DATA / "tiny_snow_wordsim.tsv", "wordsim")
    assert_grades(data)
    assert data.n_labels == 11
    assert data.label_names == [str(v) for v in range(11)]
    assert rows(data.grades) == [
        ["car auto", "A1", 0],
        ["car auto", "A2", 3],
        ["cat dog", "A1", 10],
        ["cat dog", "A2", 7],
    ]
    assert data.dropped == {"duplicate": 0, "duplicate_conflict": 0}
    assert data.truth is None


def test_snow_affect_bins_fixture() -> None:
    data = parse_snow2008(DATA / "tiny_snow_anger.tsv", "anger")
    assert data.label_names == ["0-19", "20-39", "40-59", "60-79", "80-100"]
    # orig_ids are digit strings: numeric order 1, 2, 3, 4, 10
    assert rows(data.grades) == [
        ["1", "A1", 2], ["1", "A2", 2],
        ["2", "A1", 1], ["2", "A2", 1],
        ["3", "A1", 3], ["3", "A2", 3],
        ["4", "A1", 4], ["4", "A2", 4],
        ["10", "A1", 0], ["10", "A2", 0],
    ]


def test_snow_valence_bins_fixture() -> None:
    data = parse_snow2008(DATA / "tiny_snow_valence.tsv", "valence")
    assert data.label_names == ["-100..-61", "-60..-21", "-20..19", "20..59", "60..100"]
    by_item = data.grades.groupby("item")["label"].apply(list).to_dict()
    assert by_item == {"10": [0, 0], "2": [1, 1], "1": [2, 2], "3": [3, 3], "4": [4, 4]}


def test_snow_every_task_bins_its_whole_range(tmp_path: Path) -> None:
    for task in SNOW2008_TASKS:
        low, high = (0, 10) if task == "wordsim" else (-100, 100) if task == "valence" else (0, 100)
        lines = [f"h\tW\t{v}\t{v}\t0\n" for v in range(low, high + 1)]
        data = parse_snow2008(write(tmp_path / f"{task}.tsv", SNOW_HEADER + "".join(lines)), task)
        labels = data.grades.set_index("item")["label"]
        labels = [int(labels[str(v)]) for v in range(low, high + 1)]
        assert labels == sorted(labels) and labels[0] == 0 and labels[-1] == data.n_labels - 1
        counts = np.bincount(labels)
        if task == "wordsim":
            assert data.n_labels == 11 and (counts == 1).all()
        else:
            # equal width; the last bin also holds the top of the range
            width = (high - low) // 5
            assert data.n_labels == 5 and counts.tolist() == [width] * 4 + [width + 1]


def test_snow_unknown_task_lists_supported() -> None:
    with pytest.raises(ValueError, match="unknown snow2008 task 'rte'") as err:
        parse_snow2008(DATA / "tiny_snow_anger.tsv", "rte")
    for task in SNOW2008_TASKS:
        assert task in str(err.value)
    assert not isinstance(err.value, DataError)


def test_snow_duplicates_keep_first(tmp_path: Path) -> None:
    text = SNOW_HEADER + "h\tA1\t5\t30\t0\nh\tA1\t5\t35\t0\nh\tA1\t5\t90\t0\n"
    data = parse_snow2008(write(tmp_path / "anger.tsv", text), "anger")
    assert rows(data.grades) == [["5", "A1", 1]]
    assert data.dropped == {"duplicate": 1, "duplicate_conflict": 1}


def test_crlf_and_trailing_blank_lines(tmp_path: Path) -> None:
    text = (DATA / "tiny_trec_rf10.txt").read_text().rstrip("\n").replace("\n", "\r\n") + "\r\n\r\n  \n"
    data = parse_trec_rf10(write(tmp_path / "crlf.txt", text))
    expected = parse_trec_rf10(DATA / "tiny_trec_rf10.txt")
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
    path = write(tmp_path / "trec.txt", "topic\tworker\tdoc\tgold\tlabel\n7\tw1\td\t-1\t1\n")
    with pytest.raises(DataError, match="header must be") as err:
        parse_trec_rf10(path)
    assert_located(err, path, 1, "topic\tworker\tdoc\tgold\tlabel")

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


def test_adult_unknown_category(tmp_path: Path) -> None:
    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\nw2\thttp://a\tPG\n")
    with pytest.raises(DataError, match="unknown category") as err:
        parse_adultcontent3(labels, DATA / "tiny_adult_categories.txt")
    assert_located(err, labels, 2, "PG")

    # B is only accepted when categories.txt lists it
    cats = write(tmp_path / "categories.txt", "G\nP\nR\nX\n")
    labels = write(tmp_path / "labels.txt", "w1\thttp://a\tG\nw2\thttp://a\tB\n")
    with pytest.raises(DataError, match="unknown category") as err:
        parse_adultcontent3(labels, cats)
    assert_located(err, labels, 2, "B")


def test_adult_bad_rows(tmp_path: Path) -> None:
    cats = DATA / "tiny_adult_categories.txt"
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
    labels = DATA / "tiny_adult_labels.txt"
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


@pytest.mark.parametrize(
    ("task", "response", "reason"),
    [
        ("anger", "101", "anger response must be in 0..100"),
        ("anger", "-1", "anger response must be in 0..100"),
        ("valence", "-101", "valence response must be in -100..100"),
        ("wordsim", "11", "wordsim response must be in 0..10"),
        ("joy", "12.5", "joy response must be an integer"),
        ("fear", "high", "fear response must be an integer"),
    ],
)
def test_snow_bad_response(tmp_path: Path, task: str, response: str, reason: str) -> None:
    path = write(tmp_path / f"{task}.tsv", SNOW_HEADER + "h\tA1\t1\t0\t0\n" + f"h\tA2\t1\t{response}\t0\n")
    with pytest.raises(DataError, match=reason) as err:
        parse_snow2008(path, task)
    assert_located(err, path, 3, response)


def test_snow_bad_header_and_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "anger.tsv", "worker\titem\tresponse\nA1\t1\t5\n")
    with pytest.raises(DataError, match="header must be") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 1, "worker\titem\tresponse")

    path = write(tmp_path / "anger.tsv", SNOW_HEADER + "h\tA1\t1\t5\t0\th\n")
    with pytest.raises(DataError, match="expected 5 tab-separated fields, got 6") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 2, "h\tA1\t1\t5\t0\th")

    path = write(tmp_path / "anger.tsv", "")
    with pytest.raises(DataError, match="header must be") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 1, "(empty file)")


# --------------------------------------------------------------------------
# canonical table: write and read


def test_round_trip(tmp_path: Path) -> None:
    for data in (
        parse_trec_rf10(DATA / "tiny_trec_rf10.txt"),
        parse_adultcontent3(DATA / "tiny_adult_labels.txt", DATA / "tiny_adult_categories.txt"),
        parse_snow2008(DATA / "tiny_snow_valence.tsv", "valence"),
    ):
        out = tmp_path / "out"
        write_grades(data, out / "grades.tsv", out / "grades.meta.yaml")
        back = read_grades(out / "grades.tsv", out / "grades.meta.yaml")
        pd.testing.assert_frame_equal(back.grades, data.grades)
        assert back.n_labels == data.n_labels
        assert back.label_names == data.label_names
        assert back.dropped == data.dropped
        assert back.truth is None
        assert sorted(p.name for p in out.iterdir()) == ["grades.meta.yaml", "grades.tsv"]


def test_written_files_are_exact_and_deterministic(tmp_path: Path) -> None:
    data = parse_trec_rf10(DATA / "tiny_trec_rf10.txt")
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
    good = parse_snow2008(DATA / "tiny_snow_wordsim.tsv", "wordsim")
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
    old = parse_snow2008(DATA / "tiny_snow_wordsim.tsv", "wordsim")
    write_grades(old, tmp_path / "g.tsv", tmp_path / "g.yaml")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def disk_full(df: pd.DataFrame, path: object) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(grades_module, "write_table", disk_full)
    new = parse_snow2008(DATA / "tiny_snow_anger.tsv", "anger")
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
    path = write(tmp_path / "g.tsv", "item\tworker\tlabel\na\tw1\t0\n")
    with pytest.raises(DataError, match="header must be") as err:
        read_grades(path, meta)
    assert_located(err, path, 1, "item\tworker\tlabel")

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


# --------------------------------------------------------------------------
# the real published files (shared mirror)


def pinned(dataset: str, mirror: Path) -> dict[str, Path]:
    """The dataset's pinned files in the mirror, by file name (size and sha256 checked)."""
    out = {}
    for row in pinned_files(dataset).itertuples():
        path = mirror_path(row.repo_path, mirror)
        payload = path.read_bytes()
        assert len(payload) == row.bytes
        assert hashlib.sha256(payload).hexdigest() == row.sha256
        out[path.name] = path
    return out


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
    # 206 (topic, doc) pairs and 4 workers have only broken-link labels
    assert g["item"].nunique() == 20_232 - 206
    assert g["judge"].nunique() == 766 - 4
    assert g["item"].str.split(":").str[0].nunique() == 100

    truth = data.truth
    assert len(truth) == 3_277 and truth["topic"].nunique() == 100
    assert truth["grade"].value_counts().sort_index().tolist() == [1_501, 863, 913]
    assert not truth.duplicated(["topic", "item"]).any()
    # 2 gold pairs were only ever reported as broken links
    assert len(set(truth["topic"] + ":" + truth["item"]) & set(g["item"])) == 3_275


def test_adultcontent3_real(mirror: Path) -> None:
    files = pinned("adultcontent3", mirror)
    assert sorted(files) == ["categories.txt", "labels.txt"]
    assert files["categories.txt"].read_text().split() == [*ADULTCONTENT3_CATEGORIES, "B"]
    data = parse_adultcontent3(files["labels.txt"], files["categories.txt"])
    assert_grades(data)
    g = data.grades
    # 44,373 raw labels = 34,768 grades + 737 'B' + 8,868 repeated (worker, url) rows
    assert data.dropped == {"category_B": 737, "duplicate": 6_084, "duplicate_conflict": 2_784}
    assert len(g) + sum(data.dropped.values()) == 44_373
    assert len(g) == 34_768
    assert g["item"].nunique() == 496 and g["judge"].nunique() == 338
    assert g["label"].value_counts().sort_index().tolist() == [11_078, 9_465, 10_574, 3_651]


@pytest.mark.parametrize("task", SNOW2008_TASKS)
def test_snow2008_real(mirror: Path, task: str) -> None:
    files = pinned(f"snow2008_{task}", mirror)
    assert list(files) == [f"{task}.standardized.tsv"]
    data = parse_snow2008(files[f"{task}.standardized.tsv"], task)
    assert_grades(data)
    g = data.grades
    assert data.dropped == {"duplicate": 0, "duplicate_conflict": 0}
    assert (g.groupby("item").size() == 10).all()
    if task == "wordsim":
        assert (g["item"].nunique(), g["judge"].nunique(), data.n_labels) == (30, 10, 11)
        assert sorted(g["label"].unique()) == list(range(11))  # every response 0..10 occurs
    else:
        assert (g["item"].nunique(), g["judge"].nunique(), data.n_labels) == (100, 38, 5)
        assert sorted(g["label"].unique()) == list(range(5))
