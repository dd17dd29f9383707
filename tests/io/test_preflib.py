"""Tests for the PrefLib .soc/.toc parser."""

from __future__ import annotations

from pathlib import Path

import pytest
from io_helpers import DATA, MIRROR, assert_located

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.preflib import parse_preflib, parse_preflib_files
from manyjudges.io.tables.orderings import _ORDERINGS_COLUMNS, orderings_to_rank_matrices

PREFLIB = MIRROR / "fleverest" / "PrefLib-Data" / "e70f12c3f1ee0dfa6f7974618522df0aa4ce9d91" / "datasets"

HEADER = "# DATA TYPE: {kind}\n# NUMBER ALTERNATIVES: 3\n"


def test_tiny_soc_count_expansion() -> None:
    df = parse_preflib(DATA / "tiny.soc")
    assert list(df.columns) == _ORDERINGS_COLUMNS
    assert (df["set_id"] == "tiny").all()
    assert df["rank"].dtype == "int64"
    assert list(dict.fromkeys(df["judge"])) == ["v1", "v2", "v3", "v4"]
    assert len(df) == 4 * 3
    v1 = df[df["judge"] == "v1"].set_index("item")["rank"].to_dict()
    v2 = df[df["judge"] == "v2"].set_index("item")["rank"].to_dict()
    assert v1 == v2 == {"1": 1, "2": 2, "3": 3}
    v3 = df[df["judge"] == "v3"].set_index("item")["rank"].to_dict()
    assert v3 == {"3": 1, "1": 2, "2": 3}


def test_tiny_ties_competition_ranks_and_padding() -> None:
    df = parse_preflib(DATA / "tiny_ties.toc", set_id="custom")
    assert (df["set_id"] == "custom").all()
    judges = list(dict.fromkeys(df["judge"]))
    assert judges == [f"v{i:02d}" for i in range(1, 13)]
    ranks = df.set_index(["judge", "item"])["rank"]
    assert [ranks[("v10", str(i))] for i in range(1, 5)] == [1, 2, 2, 4]
    assert [ranks[("v11", str(i))] for i in range(1, 5)] == [1, 1, 1, 1]
    assert [ranks[("v12", str(i))] for i in range(1, 5)] == [4, 3, 2, 1]
    _, items, matrix = orderings_to_rank_matrices(df)["custom"]
    assert items == ["1", "2", "3", "4"]
    assert matrix.shape == (12, 4)


def test_data_type_from_header_when_extension_unknown(tmp_path: Path) -> None:
    path = tmp_path / "orders.txt"
    path.write_text(HEADER.format(kind="toc") + "1: {1,2},3\n1: 3,2,1\n")
    df = parse_preflib(path)
    assert df["rank"].tolist() == [1, 1, 3, 1, 2, 3]


def test_parse_preflib_files_concatenates(tmp_path: Path) -> None:
    df = parse_preflib_files([DATA / "tiny.soc", DATA / "tiny_ties.toc"])
    assert list(dict.fromkeys(df["set_id"])) == ["tiny", "tiny_ties"]
    assert len(df) == 4 * 3 + 12 * 4
    other = tmp_path / "tiny.toc"
    other.write_text(HEADER.format(kind="toc") + "2: 1,2,3\n")
    with pytest.raises(DataError, match="tiny"):
        parse_preflib_files([DATA / "tiny.soc", other])


# (file name, body, line, value, words in the reason)
BAD_FILES = [
    ("no_header.soc", "# DATA TYPE: soc\n1: 1,2,3\n", 2, "1: 1,2,3", "NUMBER ALTERNATIVES"),
    ("bad_header.soc", "# NUMBER ALTERNATIVES: three\n1: 1,2,3\n", 1, "three", "NUMBER ALTERNATIVES"),
    ("zero_header.soc", "# NUMBER ALTERNATIVES: 0\n1: 1,2,3\n", 1, "0", "NUMBER ALTERNATIVES"),
    ("wrong_type.soc", "# DATA TYPE: toc\n# NUMBER ALTERNATIVES: 3\n1: 1,2,3\n", 1, "toc", "DATA TYPE"),
    ("unsupported.toc", "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n1: 1,2,3\n", 1, "soi", "DATA TYPE"),
    ("no_colon.soc", HEADER.format(kind="soc") + "1: 1,2,3\n1 1,2,3\n", 4, "1 1,2,3", "count: order"),
    ("zero_count.soc", HEADER.format(kind="soc") + "0: 1,2,3\n", 3, "0", "positive integer"),
    ("neg_count.soc", HEADER.format(kind="soc") + "-2: 1,2,3\n", 3, "-2", "positive integer"),
    ("text_count.soc", HEADER.format(kind="soc") + "two: 1,2,3\n", 3, "two", "positive integer"),
    ("big_item.soc", HEADER.format(kind="soc") + "1: 1,2,4\n", 3, "4", "1..3"),
    ("zero_item.soc", HEADER.format(kind="soc") + "1: 0,1,2,3\n", 3, "0", "1..3"),
    ("word_item.soc", HEADER.format(kind="soc") + "1: 1,b,3\n", 3, "b", "1..3"),
    ("empty_item.soc", HEADER.format(kind="soc") + "1: 1,,2,3\n", 3, "", "1..3"),
    ("dup_item.soc", HEADER.format(kind="soc") + "1: 1,2,3\n2: 1,2,2\n", 4, "2", "twice"),
    ("dup_in_tie.toc", HEADER.format(kind="toc") + "1: {1,2},1,3\n", 3, "1", "twice"),
    ("incomplete.soc", HEADER.format(kind="soc") + "1: 1,2\n", 3, "1,2", "all 3"),
    ("incomplete.toc", HEADER.format(kind="toc") + "1: {1,3}\n", 3, "{1,3}", "all 3"),
    ("open_brace.toc", HEADER.format(kind="toc") + "1: 1,{2,3\n", 3, "1,{2,3", "unbalanced"),
    ("close_brace.toc", HEADER.format(kind="toc") + "1: 1,2,3}\n", 3, "1,2,3}", "unbalanced"),
    ("nested.toc", HEADER.format(kind="toc") + "1: {1,{2,3}}\n", 3, "{1,{2,3}}", "unbalanced"),
    ("glued.toc", HEADER.format(kind="toc") + "1: 1{2,3}\n", 3, "1{2,3}", "unbalanced"),
    ("tie_in.soc", HEADER.format(kind="soc") + "1: 1,{2,3}\n", 3, "{2,3}", ".soc"),
    ("empty_tie.toc", HEADER.format(kind="toc") + "1: 1,{},2,3\n", 3, "{}", "empty tie"),
    ("no_data.soc", HEADER.format(kind="soc") + "# NUMBER VOTERS: 0\n", 3, "(end of file)", "no data"),
]


@pytest.mark.parametrize(("name", "body", "line", "value", "reason"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_malformed_files_raise_located_errors(
    tmp_path: Path, name: str, body: str, line: int, value: str, reason: str
) -> None:
    path = tmp_path / name
    path.write_text(body)
    with pytest.raises(DataError) as err:
        parse_preflib(path)
    assert_located(err, path, line, value)
    assert reason in str(err.value)


def test_empty_file_has_no_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.soc"
    path.write_text("")
    with pytest.raises(DataError, match="NUMBER ALTERNATIVES") as err:
        parse_preflib(path)
    assert "empty.soc" in str(err.value) and "line 1" in str(err.value)


def test_unknown_type_without_header(tmp_path: Path) -> None:
    path = tmp_path / "orders.txt"
    path.write_text("# NUMBER ALTERNATIVES: 2\n1: 1,2\n")
    with pytest.raises(DataError, match="soc from toc") as err:
        parse_preflib(path)
    assert_located(err, path, 2, "1: 1,2")


@pytest.mark.skipif(not PREFLIB.is_dir(), reason="shared data mirror not present")
def test_real_skate_file() -> None:
    df = parse_preflib(PREFLIB / "00006 - skate" / "00006-00000001.toc")
    assert (df["set_id"] == "00006-00000001").all()
    judges, items, ranks = orderings_to_rank_matrices(df)["00006-00000001"]
    assert judges == [f"v{i}" for i in range(1, 10)]
    assert items == [str(i) for i in range(1, 31)]
    assert ranks.shape == (9, 30)
    # Line 7 of the orders: "...,1,16,{6,20}": items 6 and 20 tie for rank 29.
    v7 = judges.index("v7")
    assert ranks[v7, items.index("6")] == ranks[v7, items.index("20")] == 29
    # Line 8: "...,15,1,{6,13},20,16": 6 and 13 tie for 27, then 20 is 29.
    v8 = judges.index("v8")
    assert ranks[v8, items.index("6")] == ranks[v8, items.index("13")] == 27
    assert ranks[v8, items.index("20")] == 29
    # Every judge puts item 30 first; each row is a competition ranking.
    assert (ranks[:, items.index("30")] == 1).all()
    for row in ranks:
        values = sorted(row)
        assert all(values[i] in (values[i - 1], i + 1) for i in range(1, len(values)))


@pytest.mark.skipif(not PREFLIB.is_dir(), reason="shared data mirror not present")
def test_real_dots_file_expands_counts() -> None:
    path = PREFLIB / "00024 - dots" / "00024-00000001.soc"
    df = parse_preflib(path)
    assert df["judge"].nunique() == 795
    assert df["judge"].iloc[0] == "v001"
    assert len(df) == 795 * 4
    assert set(df.loc[df["judge"] == "v074", "rank"]) == {1, 2, 3, 4}
    first = df[df["judge"] == "v074"].set_index("item")["rank"].to_dict()
    assert first == {"1": 1, "2": 2, "3": 3, "4": 4}
