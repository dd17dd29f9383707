"""Tests for the canonical preferences and truth tables (readers and their errors)."""
from __future__ import annotations

import pytest

from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.truth import read_truth


def test_read_preferences_and_truth_errors(tmp_path):
    good = tmp_path / "p.tsv"
    good.write_text("topic\tjudge\tleft\tright\toutcome\nt\tw\ta\tb\tleft\nt\tw\tb\tc\ttie\n")
    assert read_preferences(good)["outcome"].tolist() == ["left", "tie"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("topic\tjudge\tleft\tright\toutcome\nt\tw\ta\tb\tleft\nt\tw\ta\tb\twins\n")
    with pytest.raises(DataError, match="outcome must be left, right or tie") as err:
        read_preferences(bad)
    assert err.value.line == 3 and err.value.value == "wins"
    same = tmp_path / "same.tsv"
    same.write_text("topic\tjudge\tleft\tright\toutcome\nt\tw\ta\ta\tleft\n")
    with pytest.raises(DataError, match="same item"):
        read_preferences(same)
    truth = tmp_path / "truth.tsv"
    truth.write_text("topic\titem\tgrade\nt\ta\t2\nt\ta\t1\n")
    with pytest.raises(DataError, match="graded twice") as err:
        read_truth(truth)
    assert err.value.line == 3
    truth.write_text("topic\titem\tgrade\nt\ta\t-1\n")
    with pytest.raises(DataError, match="non-negative integer"):
        read_truth(truth)
