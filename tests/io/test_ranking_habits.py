"""Column habits and duplicate rules of the orderings and rankings readers, and the readers against
pandas' own parse of the same files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from io_helpers import DATA, assert_located, write

from manyjudges.io.engine.checks import _DUPLICATES_HINT
from manyjudges.io.engine.columnar import ExtraColumnsWarning
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.orderings import _ORDERINGS_COLUMNS, read_orderings
from manyjudges.io.tables.rankings import _RANKINGS_COLUMNS, read_rankings

PANEL = [("s1", "a", "x", "1"), ("s1", "a", "y", "2"), ("s1", "b", "x", "2"), ("s1", "b", "y", "1"),
         ("10", "a", "7", "1"), ("10", "a", "07", "1"), ("10", "b", "7", "2"), ("10", "b", "07", "1")]
LISTS = [("g", "google", "a", "1"), ("g", "google", "b", "2"), ("g", "bing", "b", "1"), ("g", "bing", "a", "3"),
         ("h", "google", "a", "1")]


def table(header: list[str], rows, sep: str = "\t", order: list[int] | None = None) -> str:
    order = order or list(range(len(header)))
    lines = [sep.join(header[i] for i in order)] + [sep.join(row[i] for i in order) for row in rows]
    return "\n".join(lines) + "\n"


def test_orderings_judge_task_order_extra_and_csv(tmp_path: Path) -> None:
    canonical = read_orderings(write(tmp_path / "c.tsv", table(_ORDERINGS_COLUMNS, PANEL)))
    variants = {
        "worker.tsv": table(["set_id", "worker", "item", "rank"], PANEL),
        "task.tsv": table(["set_id", "judge", "task", "rank"], PANEL),
        "order.tsv": table(["set_id", "worker", "task", "rank"], PANEL, order=[3, 2, 0, 1]),
        "bom.csv": "\ufeff" + table(_ORDERINGS_COLUMNS, PANEL, sep=","),
    }
    for name, text in variants.items():
        pd.testing.assert_frame_equal(read_orderings(write(tmp_path / name, text)), canonical)
    extra = [row + ("note",) for row in PANEL]
    with pytest.warns(ExtraColumnsWarning, match="'comment'"):
        df = read_orderings(write(tmp_path / "extra.tsv", table([*_ORDERINGS_COLUMNS, "comment"], extra,
                                                                 order=[4, 0, 1, 2, 3])))
    pd.testing.assert_frame_equal(df, canonical)


def test_rankings_task_order_extra_and_csv(tmp_path: Path) -> None:
    canonical = read_rankings(write(tmp_path / "c.tsv", table(_RANKINGS_COLUMNS, LISTS)))
    pd.testing.assert_frame_equal(
        read_rankings(write(tmp_path / "t.csv",
                            table(["list_set", "list_id", "task", "rank"], LISTS, ",", [2, 3, 1, 0]))),
        canonical)
    with pytest.warns(ExtraColumnsWarning, match="'engine_url'"):
        df = read_rankings(write(tmp_path / "x.tsv", table([*_RANKINGS_COLUMNS, "engine_url"],
                                                           [row + ("u",) for row in LISTS])))
    pd.testing.assert_frame_equal(df, canonical)


@pytest.mark.parametrize("path", [DATA / "tiny_orderings.tsv", DATA / "tiny_rankings.tsv"],
                         ids=["orderings", "rankings"])
def test_readers_match_pandas_parse(path: Path) -> None:
    """Values, dtypes and ids as pandas reads the file with every column a string (ids verbatim)."""
    reader = read_orderings if "orderings" in path.name else read_rankings
    got = reader(path)
    expected = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    expected["rank"] = expected["rank"].astype(np.int64)
    pd.testing.assert_frame_equal(got, expected)
    assert got["rank"].dtype == np.int64
    assert all(str(got[c].dtype) == "str" for c in got.columns[:3])
    assert list(np.asarray(got.attrs["lines"])) == list(range(2, len(got) + 2))


def test_readers_match_pandas_parse_of_odd_ids(tmp_path: Path) -> None:
    """Leading zeros, spaces inside ids, quoted commas (CSV) stay as given; blank lines are skipped."""
    rows = [("s 1", "j,1", "007", "1"), ("s 1", "j,1", "7", "2"), ("s 1", "j2", "7", "1"), ("s 1", "j2", "007", "1")]
    body = "set_id,judge,item,rank\n" + "\n".join(",".join(f'"{v}"' if "," in v else v for v in r) for r in rows)
    path = write(tmp_path / "odd.csv", body.replace("\n", "\n\n", 1) + "\n")
    got = read_orderings(path)
    expected = pd.read_csv(path, sep=",", dtype=str, keep_default_na=False, skip_blank_lines=True)
    expected["rank"] = expected["rank"].astype(np.int64)
    pd.testing.assert_frame_equal(got, expected)
    assert list(np.asarray(got.attrs["lines"])) == [3, 4, 5, 6]


REPEAT = PANEL[:4] + [("s1", "a", "x", "2"), ("s1", "a", "y", "1")]  # judge a gives the set again, reversed


def test_orderings_duplicates_rules(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.tsv", table(_ORDERINGS_COLUMNS, REPEAT))
    with pytest.raises(DataError) as err:
        read_orderings(path)
    assert_located(err, path, 6, "x")
    assert "twice for judge 'a' in set 's1' (first on line 2)" in str(err.value)
    assert _DUPLICATES_HINT in str(err.value)
    first = read_orderings(path, duplicates="first")
    assert first["rank"].tolist() == [1, 2, 2, 1]
    assert list(first.attrs["lines"]) == [2, 3, 4, 5]
    last = read_orderings(path, duplicates="last")
    assert last[["judge", "item", "rank"]].values.tolist() == [["b", "x", 2], ["b", "y", 1], ["a", "x", 2],
                                                               ["a", "y", 1]]
    assert list(last.attrs["lines"]) == [4, 5, 6, 7]
    with pytest.raises(ValueError, match="keep' makes no sense"):
        read_orderings(path, duplicates="keep")
    with pytest.raises(ValueError, match="must be one of error, first, last"):
        read_orderings(path, duplicates="all")


def test_orderings_dropped_repeat_with_bad_rank_is_not_checked(tmp_path: Path) -> None:
    rows = [("s1", "a", "x", "first"), *PANEL[:4]]
    path = write(tmp_path / "fix.tsv", table(_ORDERINGS_COLUMNS, rows))
    assert read_orderings(path, duplicates="last")["rank"].tolist() == [1, 2, 2, 1]
    with pytest.raises(DataError, match="rank must be a positive integer"):
        read_orderings(path, duplicates="first")


def test_rankings_duplicates_rules(tmp_path: Path) -> None:
    rows = LISTS + [("g", "bing", "c", "01")]  # position 1 of bing again ("01" is rank 1)
    path = write(tmp_path / "dup.tsv", table(_RANKINGS_COLUMNS, rows))
    with pytest.raises(DataError) as err:
        read_rankings(path)
    assert_located(err, path, 7, "c")
    assert "position 1 of list 'bing' in set 'g' already holds item 'b' (line 4)" in str(err.value)
    assert _DUPLICATES_HINT in str(err.value)
    assert read_rankings(path, duplicates="first")["item"].tolist() == ["a", "b", "b", "a", "a"]
    last = read_rankings(path, duplicates="last")
    assert last["item"].tolist() == ["a", "b", "a", "a", "c"]
    assert list(last.attrs["lines"]) == [2, 3, 5, 6, 7]
    with pytest.raises(ValueError, match="keep' makes no sense"):
        read_rankings(path, duplicates="keep")


def test_large_table_reads_columnwise(tmp_path: Path) -> None:
    """A table of 200 sets x 20 judges x 10 items reads back exactly (and fast: no per-row loop)."""
    rng = np.random.default_rng(0)
    sets, judges, items = np.meshgrid(np.arange(200), np.arange(20), np.arange(10), indexing="ij")
    ranks = np.argsort(rng.random((200, 20, 10)), axis=2) + 1
    frame = pd.DataFrame({"set_id": [f"s{s}" for s in sets.ravel()], "judge": [f"j{j}" for j in judges.ravel()],
                          "item": [str(i) for i in items.ravel()], "rank": ranks.ravel().astype(np.int64)})
    frame = frame.astype({"set_id": str, "judge": str, "item": str})
    path = tmp_path / "big.tsv"
    frame.to_csv(path, sep="\t", index=False)
    pd.testing.assert_frame_equal(read_orderings(path), frame)
