"""Tests for the canonical rankings table: reader, writer round trip, nested lists."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from io_helpers import DATA, assert_located, assert_rankings

from manyjudges.io.engine.errors import DataError
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.sources.search_results import parse_search_results
from manyjudges.io.tables.rankings import rankings_to_lists, read_rankings

HEADER = "list_set\tlist_id\titem\trank\n"


def test_read_fixture_and_lists() -> None:
    df = read_rankings(DATA / "tiny_rankings.tsv")
    assert_rankings(df)
    assert len(df) == 6
    assert df["item"].tolist() == ["d2", "d1", "d1", "d3", "d1", "z"]  # file order
    assert rankings_to_lists(df) == {
        "s1": {"teamB": ["d1", "d2"], "teamA": ["d1", "d3", "d1"]},
        "s0": {"teamA": ["z"]},
    }
    # list sets and lists in natural order, whatever the file's (there: s1 before s0, teamB before teamA)
    assert list(rankings_to_lists(df)) == ["s0", "s1"]
    assert list(rankings_to_lists(df)["s1"]) == ["teamA", "teamB"]


def test_round_trip(tmp_path: Path) -> None:
    df = parse_search_results(DATA / "tiny_search.txt")
    odd = pd.DataFrame(
        {"list_set": ["e"], "list_id": ["q"], "item": ['http://x/"quoted",a'], "rank": [1]}
    )
    df = pd.concat([df, odd], ignore_index=True)
    path = tmp_path / "out" / "rankings.tsv"
    write_table(df, path)
    back = read_rankings(path)
    pd.testing.assert_frame_equal(back, df)


@pytest.mark.parametrize(
    ("text", "line", "value", "reason"),
    [
        ("", 1, "(empty file)", "header must be"),
        ("list_id\titem\trank\nq\ta\t1\n", 1, "list_id\titem\trank", "header must be"),
        ("list_set\tlist_id\titem\trank\textra\n", 1, "list_set\tlist_id\titem\trank\textra",
         "no data rows"),
        (HEADER, 1, "list_set\tlist_id\titem\trank", "no data rows"),
        (HEADER + "\n\n", 1, "list_set\tlist_id\titem\trank", "no data rows"),
        (HEADER + "s\tq\ta\t1\ns\tq\tb\n", 3, "s\tq\tb", "expected 4 tab-separated fields"),
        (HEADER + "s\tq\ta\t1\t9\n", 2, "s\tq\ta\t1\t9", "expected 4 tab-separated fields"),
        (HEADER + "s\tq\ta\t1\n\ts\tb\t2\n", 3, "", "empty list_set"),
        (HEADER + "s\t \ta\t1\n", 2, " ", "empty list_id"),
        (HEADER + "s\tq\ta\t1\ns\tq\t\t2\n", 3, "", "empty item"),
        (HEADER + "s\tq\ta\t0\n", 2, "0", "rank must be a positive integer"),
        (HEADER + "s\tq\ta\t1\ns\tq\tb\t2.0\n", 3, "2.0", "rank must be a positive integer"),
        (HEADER + "s\tq\ta\t-1\n", 2, "-1", "rank must be a positive integer"),
        (HEADER + "s\tq\ta\tx\n", 2, "x", "rank must be a positive integer"),
        (HEADER + "s\tq\ta\t1\ns\tr\tb\t1\ns\tq\tc\t1\n", 4, "c",
         "position 1 of list 'q' in set 's' already holds item 'a' \\(line 2\\)"),
    ],
    ids=[
        "empty-file",
        "missing-column",
        "extra-column-no-rows",
        "no-rows",
        "blank-rows-only",
        "short-row",
        "long-row",
        "empty-list-set",
        "blank-list-id",
        "empty-item",
        "rank-zero",
        "rank-float",
        "rank-negative",
        "rank-text",
        "duplicate-position",
    ],
)
@pytest.mark.filterwarnings("ignore::manyjudges.io.engine.columnar.ExtraColumnsWarning")
def test_read_errors(tmp_path: Path, text: str, line: int, value: str, reason: str) -> None:
    path = tmp_path / "bad_rankings.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=reason) as err:
        read_rankings(path)
    assert_located(err, path, line, value)


def test_same_rank_in_other_list_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "r.tsv"
    path.write_text(HEADER + "s\tq\ta\t1\nt\tq\ta\t1\ns\tr\ta\t1\n", encoding="utf-8")
    assert len(read_rankings(path)) == 3


def test_lists_sort_by_rank_and_validate() -> None:
    df = pd.DataFrame(
        {
            "list_set": ["b", "b", "a", "b"],
            "list_id": ["x", "x", "y", "x"],
            "item": ["third", "first", "only", "second"],
            "rank": [10, 1, 1, 2],
        }
    )
    assert rankings_to_lists(df) == {"b": {"x": ["first", "second", "third"]}, "a": {"y": ["only"]}}
    with pytest.raises(DataError, match="lacks columns \\['rank'\\]"):
        rankings_to_lists(df.drop(columns="rank"))
    dup = pd.concat([df, df.iloc[[1]].assign(item="other")], ignore_index=True)
    with pytest.raises(DataError, match="position 1 holds two items \\('first' and 'other'\\)"):
        rankings_to_lists(dup)
