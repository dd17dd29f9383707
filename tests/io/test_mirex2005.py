"""Tests for the mirex2005 parser (Latin-1 MTurk CSV + qrel -> preferences and truth)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.mirex2005 import parse_mirex2005

MIREX = "julian-urbano/sigir2010-crowdsourcing/ac8f16f22ccdda027571e73f0b0e17e200134cf4/data"


HEADER = '"HITId","WorkerId","Input.query","Input.docA","Input.docB","Answer.comment","Answer.radio"\n'


def write_mirex(tmp_path: Path, rows: list[str], qrel: str | None = None) -> tuple[Path, Path]:
    csv_path = tmp_path / "judgments.csv"
    csv_path.write_bytes((HEADER + "".join(rows)).encode("latin-1"))
    qrel_path = tmp_path / "MTurk.qrel"
    qrel_path.write_text(qrel if qrel is not None else
                         "MTurk\tq1\tq1\t1\nMTurk\tq1\tdA\t2\nMTurk\tq1\tdB\t3\nMTurk\tq1\tdC\t3\n")
    return csv_path, qrel_path


def test_mirror_file_parses(mirror):
    data = parse_mirex2005(mirror / MIREX / "judgments.csv", mirror / MIREX / "MTurk.qrel")
    prefs, truth = data.preferences, data.truth
    assert len(prefs) == 2805 and data.dropped == {"empty_answer": 5}
    assert prefs["topic"].nunique() == 11 and prefs["judge"].nunique() == 79
    assert prefs["outcome"].value_counts().to_dict() == {"tie": 1405, "right": 823, "left": 577}
    assert len(truth) == 118 and truth["grade"].between(0, 4).all()
    # every query's best group gets grade 4, and each query's grades follow its groups (group 1 = best)
    assert (truth.groupby("topic")["grade"].max() == 4).all()
    groups = pd.read_csv(mirror / MIREX / "MTurk.qrel", sep="\t", header=None, names=["s", "topic", "item", "group"],
                         dtype={"topic": str, "item": str})
    both = truth.merge(groups, on=["topic", "item"])
    assert len(both) == 118
    for _, rows in both.groupby("topic"):
        rows = rows.sort_values("group")
        assert rows["grade"].is_monotonic_decreasing


def test_latin1_text_and_quoted_commas_parse(tmp_path):
    rows = ['1,"w1","q1","dA","dB","très bien, merci","a"\n',
            '2,"w2","q1","dB","dC","multi\nline é","s"\n',
            '3,"w3","q1","dA","dC","","b"\n',
            '4,"w4","q1","dA","dC","",""\n']
    data = parse_mirex2005(*write_mirex(tmp_path, rows))
    assert data.preferences.values.tolist() == [["q1", "w1", "dA", "dB", "left"], ["q1", "w2", "dB", "dC", "tie"],
                                                ["q1", "w3", "dA", "dC", "right"]]
    assert data.dropped == {"empty_answer": 1}


def test_qrel_groups_become_grades(tmp_path):
    # 3 distinct groups in 5 grades: positions 1, 2, 3 -> 4 - floor(5 (p - 1) / 3) = 4, 3, 1
    data = parse_mirex2005(*write_mirex(tmp_path, ['1,"w1","q1","dA","dB","","a"\n']))
    assert dict(zip(data.truth["item"], data.truth["grade"])) == {"q1": 4, "dA": 3, "dB": 1, "dC": 1}


@pytest.mark.parametrize("row, message, line", [
    ('1,"w1","q1","dA","dB","","x"\n', "Answer.radio must be a, b, s or empty", 3),
    ('1,"w1","q1","dA","dZ","","a"\n', "no entry in MTurk.qrel", 3),
    ('1,"w1","q1","dA","dA","","a"\n', "same document", 3),
    ('1,"","q1","dA","dB","","a"\n', "empty WorkerId", 3),
    ('1,"w1","q1","dA","dB","a"\n', "expected 7 fields", 3),
])
def test_bad_rows_name_file_line_and_value(tmp_path, row, message, line):
    rows = ['1,"w0","q1","dA","dB","","a"\n', row]
    with pytest.raises(DataError, match=message) as err:
        parse_mirex2005(*write_mirex(tmp_path, rows))
    assert err.value.line == line and "judgments.csv" in str(err.value)


def test_bad_row_after_a_multiline_field_gets_its_own_line(tmp_path):
    rows = ['1,"w0","q1","dA","dB","two\nlines","a"\n', '2,"w1","q1","dA","dB","","?"\n']
    with pytest.raises(DataError) as err:
        parse_mirex2005(*write_mirex(tmp_path, rows))
    assert err.value.line == 4 and err.value.value == "?"


def test_bad_qrel_lines(tmp_path):
    with pytest.raises(DataError, match="group must be a positive integer") as err:
        parse_mirex2005(*write_mirex(tmp_path, [], "MTurk\tq1\tq1\t1\nMTurk\tq1\tdA\tzero\n"))
    assert err.value.line == 2
    with pytest.raises(DataError, match="listed twice"):
        parse_mirex2005(*write_mirex(tmp_path, [], "MTurk\tq1\tq1\t1\nMTurk\tq1\tq1\t2\n"))
