"""Bytes that are not UTF-8, in any reader: a DataError naming the file, the line and the bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from io_helpers import assert_located

from manyjudges.graded.data import parse_graded_source
from manyjudges.io.engine.errors import DataError, _not_utf8
from manyjudges.io.sources import (
    parse_adultcontent3,
    parse_clef_runs,
    parse_mirex2005,
    parse_preflib,
    parse_search_results,
    parse_snow2008,
    parse_trec_rf10,
)
from manyjudges.io.tables.grades import read_grades, read_grades_table
from manyjudges.io.tables.labels import read_labels
from manyjudges.io.tables.labels import read_truth as read_label_truth
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.truth import read_truth

BAD = b"caf\xe9"  # Latin-1 e-acute: not UTF-8


def lines(path: Path, *rows: bytes) -> Path:
    path.write_bytes(b"".join(row + b"\n" for row in rows))
    return path


def ok_grades(tmp_path: Path) -> Path:
    return lines(tmp_path / "grades.tsv", b"item\tjudge\tlabel", b"a\tj1\t0", b"a\tj2\t1")


# each case: (file name, its lines with BAD on line 3, how to read it)
CASES = {
    "orderings.soc": ([b"# DATA TYPE: soc", b"# NUMBER ALTERNATIVES: 2", b"# TITLE: " + BAD, b"1: 1,2"],
                      parse_preflib),
    "google.txt": ([b"#q", b"http://a.example/1", b"http://" + BAD], parse_search_results),
    "TOP20_team_EN.dat": ([b"d1 d2"] * 2 + [BAD] + [b"d1 d2"] * 63, parse_clef_runs),
    "trec-rf10-data.txt": ([b"topicID\tworkerID\tdocID\tgold\tlabel", b"1\tw1\td1\t1\t1", b"1\tw2\t" + BAD + b"\t1\t1"],
                           parse_trec_rf10),
    "labels.txt": ([b"w1\tu1\tG", b"w2\tu1\tP", b"w3\t" + BAD + b"\tG"],
                   lambda p: parse_adultcontent3(p, lines(p.with_name("categories.txt"), b"G", b"P", b"R", b"X"))),
    "categories.txt": ([b"G", b"P", BAD, b"R", b"X"],
                       lambda p: parse_adultcontent3(lines(p.with_name("labels.txt"), b"w1\tu1\tG"), p)),
    "anger.standardized.tsv": ([b"!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold", b"a1\tw1\t1\t10\t5",
                                b"a2\t" + BAD + b"\t1\t20\t5"], lambda p: parse_snow2008(p, "anger")),
    "MTurk.qrel": ([b"MTurk q1 d1 1", b"MTurk q1 d2 2", b"MTurk q1 " + BAD + b" 3"],
                   lambda p: parse_mirex2005(lines(p.with_name("judgments.csv"), b"WorkerId"), p)),
    "grades.yaml": ([b"n_labels: 2", b"label_names:", b"- " + BAD, b"- b"],
                    lambda p: read_grades(ok_grades(p.parent), p)),
    "table.tsv": ([b"item\tjudge\tlabel", b"a\tj1\t0", b"a\t" + BAD + b"\t1"],
                  lambda p: parse_graded_source("table", {p.name: p}, {"n_classes": 2})),
    "ratings.tsv": ([b"item\tjudge\tlabel", b"t:a\tj1\t0", b"t:a\t" + BAD + b"\t1"],
                    lambda p: read_grades_table(p, 2)),
    "truth.tsv": ([b"topic\titem\tgrade", b"t\ta\t1", b"t\t" + BAD + b"\t0"], read_truth),
    "preferences.tsv": ([b"topic\tjudge\tleft\tright\toutcome", b"t\tw\ta\tb\tleft", b"t\tw\ta\t" + BAD + b"\tleft"],
                        read_preferences),
    "labels.csv": ([b"item,judge,label", b"a,w1,0", b"a," + BAD + b",1"], read_labels),
    "label_truth.tsv": ([b"item\ttruth", b"a\t0", BAD + b"\t1"], read_label_truth),
}


@pytest.mark.parametrize("name", list(CASES))
def test_non_utf8_bytes_name_file_line_and_bytes(tmp_path: Path, name: str) -> None:
    rows, read = CASES[name]
    path = lines(tmp_path / name, *rows)
    with pytest.raises(DataError) as err:
        read(path)
    assert_located(err, path, 3, rows[2])  # the bad line's bytes (each row is short)
    assert BAD in err.value.value and "not UTF-8" in str(err.value)


def test_the_bytes_shown_are_those_around_the_bad_one(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_bytes(b"first line\r\n" + b"x" * 50 + b"\xff\xfe" + b"y" * 50 + b"\r\nlast\n")
    err = _not_utf8(path)
    assert (err.line, err.value) == (2, b"x" * 20 + b"\xff\xfe" + b"y" * 19)
    assert str(err) == f"{path}, line 2: bytes that are not UTF-8 (save the file as UTF-8): {err.value!r}"
