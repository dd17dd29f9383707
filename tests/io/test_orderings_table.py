"""Tests for the canonical orderings table helpers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from io_helpers import DATA, assert_located

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.engine.errors import DataError
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.orderings import _ORDERINGS_COLUMNS, orderings_to_rank_matrices, read_orderings

HEADER = "set_id\tjudge\titem\trank\n"
GOOD_SET = "s\ta\t1\t1\ns\ta\t2\t2\ns\tb\t1\t2\ns\tb\t2\t1\n"


def test_read_fixture_types_and_order() -> None:
    df = read_orderings(DATA / "tiny_orderings.tsv")
    assert list(df.columns) == _ORDERINGS_COLUMNS
    assert df["rank"].dtype == np.int64
    assert all(isinstance(v, str) for col in _ORDERINGS_COLUMNS[:3] for v in df[col])
    assert df["item"].iloc[0] == "10"
    assert len(df) == 12


def test_rank_matrices_sorting_and_ties() -> None:
    matrices = orderings_to_rank_matrices(read_orderings(DATA / "tiny_orderings.tsv"))
    assert list(matrices) == ["s0", "s1"]
    judges, items, ranks = matrices["s1"]
    assert judges == ["j1", "j2"]  # sorted (the file has j2 first): any row order, the same matrix
    assert items == ["2", "9", "10"]  # numeric ids sorted numerically
    assert ranks.dtype == np.float64
    np.testing.assert_array_equal(ranks, [[1, 1, 3], [2, 3, 1]])
    judges, items, ranks = matrices["s0"]
    assert judges == ["a", "b", "c"]
    assert items == ["x", "y"]
    np.testing.assert_array_equal(ranks, [[1, 1], [2, 1], [1, 2]])


def test_natural_sort_mixed_is_lexicographic() -> None:
    assert natural_sort(["10", "9", "a"]) == ["10", "9", "a"]
    assert natural_sort(["10", "9", "1"]) == ["1", "9", "10"]


def test_rank_matrices_reject_incomplete_frame() -> None:
    df = pd.DataFrame(
        {"set_id": ["s"] * 3, "judge": ["a", "a", "b"], "item": ["1", "2", "1"], "rank": [1, 2, 1]}
    )
    with pytest.raises(DataError, match="'b'"):
        orderings_to_rank_matrices(df)


def test_write_read_roundtrip(tmp_path: Path) -> None:
    df = read_orderings(DATA / "tiny_orderings.tsv")
    out = tmp_path / "sub" / "orderings.tsv"
    write_table(df, out)
    assert out.read_text() == (DATA / "tiny_orderings.tsv").read_text()
    pd.testing.assert_frame_equal(read_orderings(out), df)
    assert [p.name for p in out.parent.iterdir()] == ["orderings.tsv"]


def test_write_table_failure_leaves_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "orderings.tsv"
    out.write_text("old\n")

    def half_write(self: pd.DataFrame, handle, **kwargs) -> None:
        handle.write("set_id\tjud")
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_write)
    with pytest.raises(OSError, match="disk full"):
        write_table(pd.DataFrame({"a": [1]}), out)
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["orderings.tsv"]


# (file name, body, line, value, words in the reason)
BAD_TABLES = [
    ("bad_header.tsv", "set\tjudge\titem\trank\n" + GOOD_SET, 1, "set\tjudge\titem\trank", "header"),
    ("empty.tsv", "", 1, "(empty file)", "header"),
    ("only_header.tsv", HEADER, 1, "set_id\tjudge\titem\trank", "no data"),
    ("fields.tsv", HEADER + GOOD_SET + "s\tc\t1\n", 6, "s\tc\t1", "fields"),
    ("rank_text.tsv", HEADER + GOOD_SET.replace("b\t2\t1", "b\t2\tfirst"), 5, "first", "positive integer"),
    ("rank_zero.tsv", HEADER + GOOD_SET.replace("a\t2\t2", "a\t2\t0"), 3, "0", "positive integer"),
    ("rank_neg.tsv", HEADER + GOOD_SET.replace("a\t2\t2", "a\t2\t-2"), 3, "-2", "positive integer"),
    ("rank_float.tsv", HEADER + GOOD_SET.replace("a\t2\t2", "a\t2\t2.5"), 3, "2.5", "positive integer"),
    ("rank_empty.tsv", HEADER + GOOD_SET.replace("a\t2\t2", "a\t2\t"), 3, "", "positive integer"),
    ("empty_item.tsv", HEADER + GOOD_SET.replace("a\t2\t2", "a\t\t2"), 3, "", "empty item"),
    ("dup_item.tsv", HEADER + GOOD_SET + "s\tb\t1\t2\n", 6, "1", "twice"),
    ("missing_column.tsv", "set_id\tjudge\trank\ns\ta\t1\n", 1, "set_id\tjudge\trank", "missing column(s) item"),
    ("extra_item.tsv", HEADER + GOOD_SET + "s\tb\t3\t3\n", 6, "3", "does not rank"),
    ("missing_item.tsv", HEADER + "s\ta\t1\t1\ns\ta\t2\t2\ns\tb\t1\t1\n", 4, "b", "does not rank"),
    ("one_judge.tsv", HEADER + GOOD_SET + "t\ta\t1\t1\nt\ta\t2\t2\n", 6, "t", "at least 2 judges"),
    ("one_item.tsv", HEADER + GOOD_SET + "t\ta\t1\t1\nt\tb\t1\t1\n", 6, "t", "at least 2 items"),
]


@pytest.mark.parametrize(("name", "body", "line", "value", "reason"), BAD_TABLES, ids=[b[0] for b in BAD_TABLES])
def test_bad_tables_raise_located_errors(
    tmp_path: Path, name: str, body: str, line: int, value: str, reason: str
) -> None:
    path = tmp_path / name
    path.write_text(body)
    with pytest.raises(DataError) as err:
        read_orderings(path)
    assert_located(err, path, line, value)
    assert reason in str(err.value)


def test_data_error_is_value_error() -> None:
    assert issubclass(DataError, ValueError)


def test_column_order_is_free(tmp_path: Path) -> None:
    """Columns in another order read as the canonical table (the header order was an error before)."""
    canonical = read_orderings(write_text(tmp_path / "a.tsv", HEADER + GOOD_SET))
    swapped = "judge\tset_id\titem\trank\n" + "".join(
        f"{j}\t{s}\t{i}\t{r}\n" for s, j, i, r in (line.split("\t") for line in GOOD_SET.splitlines()))
    pd.testing.assert_frame_equal(read_orderings(write_text(tmp_path / "b.tsv", swapped)), canonical)


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
