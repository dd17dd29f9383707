"""The numbers a verdicts table may carry beside its five columns: ``p_b`` and answer features ``NAME_a, NAME_b``."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from manyjudges.io.engine.columnar import ExtraColumnsWarning
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, extra_columns, feature_names, read_verdicts

HEADER = "prompt\tmodel_a\tmodel_b\twinner\tlength_a\tturn\tp_b\tlength_b\tbold_a\n"


def _write(tmp_path, rows: str, header: str = HEADER):
    path = tmp_path / "verdicts.tsv"
    path.write_text(header + rows, encoding="utf-8")
    return path


def test_extra_columns_are_p_b_and_feature_pairs_in_header_order():
    header = HEADER.rstrip("\n").split("\t")
    assert extra_columns(header) == ["length_a", "p_b", "length_b"]  # bold_a has no bold_b; model_a is a model
    assert feature_names(header) == ["length"]
    assert feature_names(pd.DataFrame(columns=["model_a", "model_b", "x_a", "x_b", "y_b", "y_a"])) == ["x", "y"]


def test_read_verdicts_keeps_the_extras_as_numbers(tmp_path):
    path = _write(tmp_path, "p1\tx\ty\tmodel_a\t120\t1\t0.25\t80\t2\np2\ty\tx\ttie\t3.5\t1\t1\t0\t0\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_verdicts(path, extras=True)
    assert list(frame.columns) == [*VERDICT_COLUMNS, "length_a", "p_b", "length_b"]
    np.testing.assert_array_equal(frame["length_a"], [120.0, 3.5])
    np.testing.assert_array_equal(frame["p_b"], [0.25, 1.0])
    np.testing.assert_array_equal(frame["length_b"], [80.0, 0.0])
    ignored = [str(w.message) for w in caught if issubclass(w.category, ExtraColumnsWarning)]
    assert len(ignored) == 1 and "'turn'" in ignored[0] and "'bold_a'" in ignored[0] and "'p_b'" not in ignored[0]


def test_without_extras_the_table_is_the_five_columns(tmp_path):
    path = _write(tmp_path, "p1\tx\ty\tmodel_a\t120\t1\t0.25\t80\t2\n")
    with pytest.warns(ExtraColumnsWarning, match="p_b"):
        frame = read_verdicts(path)
    assert list(frame.columns) == VERDICT_COLUMNS


def test_extras_follow_the_duplicates_rule(tmp_path):
    path = _write(tmp_path, "p1\tx\ty\tmodel_a\t1\t1\t0.1\t2\t0\np1\tx\ty\tmodel_b\t3\t1\t0.9\t4\t0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtraColumnsWarning)
        last = read_verdicts(path, "last", extras=True)
    assert last["winner"].tolist() == ["model_b"]
    assert last["p_b"].tolist() == [0.9] and last["length_a"].tolist() == [3.0]


@pytest.mark.parametrize(("fields", "column", "value"), [
    ("1\t1\t1.5\t2\t0", "p_b", "1.5"), ("1\t1\t-0.1\t2\t0", "p_b", "-0.1"), ("1\t1\tnan\t2\t0", "p_b", "nan"),
])
def test_a_bad_extra_names_file_line_and_value(tmp_path, fields, column, value):
    path = _write(tmp_path, f"p1\tx\ty\tmodel_a\t1\t1\t0.5\t2\t0\np2\tx\ty\tmodel_a\t{fields}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtraColumnsWarning)
        with pytest.raises(DataError, match=f"verdicts.tsv.*line 3.*{column}") as raised:
            read_verdicts(path, extras=True)
    assert repr(value) in str(raised.value) or value in str(raised.value)


def test_write_verdicts_keeps_the_extras_and_they_read_back(tmp_path):
    from manyjudges.io.tables.verdicts import write_verdicts

    frame = pd.DataFrame({"prompt": ["p1", "p2"], "judge": ["j", "j"], "model_a": ["x", "y"], "model_b": ["y", "x"],
                          "winner": ["model_a", "tie"], "note": ["a", "b"], "length_a": [10.0, 2.5],
                          "length_b": [3.0, 4.0], "p_b": [0.2, 0.5]})
    write_verdicts(frame, tmp_path / "out.tsv")
    back = read_verdicts(tmp_path / "out.tsv", extras=True)
    assert list(back.columns) == [*VERDICT_COLUMNS, "length_a", "length_b", "p_b"]
    pd.testing.assert_frame_equal(back, frame.drop(columns="note"))


@pytest.mark.parametrize("bad", ["long", "", "inf"])
def test_a_pair_that_is_not_numbers_is_no_feature(tmp_path, bad):
    # Chatbot Arena's conversation_a, conversation_b are text: left out with a warning, as before extras
    path = _write(tmp_path, f"p1\tx\ty\tmodel_a\t1\t1\t0.5\t2\t0\np2\tx\ty\tmodel_a\t{bad}\t1\t0.5\t2\t0\n")
    with pytest.warns(ExtraColumnsWarning, match=r"'length_a', 'length_b' \(not numbers"):
        frame = read_verdicts(path, extras=True)
    assert list(frame.columns) == [*VERDICT_COLUMNS, "p_b"]
    text = tmp_path / "arena.tsv"
    text.write_text("model_a\tmodel_b\twinner\tconversation_a\tconversation_b\nx\ty\ttie\thi there\thello\n")
    with pytest.warns(ExtraColumnsWarning, match="conversation_a"):
        assert list(read_verdicts(text, extras=True).columns) == VERDICT_COLUMNS
