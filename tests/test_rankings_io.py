"""Tests for the rankings table: search-result and CLEF parsers, reader, lists."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges.download import fetch, pinned_files, raw_filename
from manyjudges.io.errors import DataError
from manyjudges.io.rankings import (
    CLEF_QUERY_IDS,
    RANKINGS_COLUMNS,
    parse_clef_runs,
    parse_search_results,
    rankings_to_lists,
    read_rankings,
)
from manyjudges.io.tables import write_table

DATA = Path(__file__).parent / "data"
MIRROR = Path(__file__).resolve().parents[2] / "shared/data/mirror"
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason="shared data mirror not present")
SECS = "zhiweiuk/secs/6f7fc9009c0c84da923ffc891a12bb4632b60cac"
HEADER = "list_set\tlist_id\titem\trank\n"


def assert_located(err: pytest.ExceptionInfo, path: Path, line: int | None, value: object) -> None:
    """The message names the file, the 1-based line (if any) and the value."""
    message = str(err.value)
    assert path.name in message
    assert err.value.path == str(path)
    if line is None:
        assert err.value.line is None
        assert ", line " not in message
    else:
        assert err.value.line == line
        assert f"line {line}" in message
    assert err.value.value == value
    assert repr(value) in message


def assert_table(df: pd.DataFrame) -> None:
    assert list(df.columns) == RANKINGS_COLUMNS
    assert df["rank"].dtype == np.int64
    assert all(isinstance(v, str) for col in RANKINGS_COLUMNS[:3] for v in df[col])


# --------------------------------------------------------------------------
# search results


def test_search_fixture_keeps_repeats() -> None:
    df = parse_search_results(DATA / "tiny_search.txt")
    assert_table(df)
    assert df.values.tolist() == [
        ["tiny_search", "alpha", "http://a.example/1", 1],
        ["tiny_search", "alpha", "http://a.example/2", 2],
        ["tiny_search", "alpha", "http://a.example/1", 3],
        ["tiny_search", "alpha", "http://a.example/3", 4],
        ["tiny_search", "beta query", "http://b.example/x", 1],
        ["tiny_search", "beta query", "http://a.example/2", 2],
    ]


def test_search_engine_override_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "results.txt"
    path.write_bytes(b"# q1 \r\n  http://x/1  \r\n\r\n \t \r\nhttp://x/2\r\n")
    df = parse_search_results(path, engine="bing")
    assert df.values.tolist() == [["bing", "q1", "http://x/1", 1], ["bing", "q1", "http://x/2", 2]]
    with pytest.raises(ValueError, match="engine"):
        parse_search_results(path, engine="")


@pytest.mark.parametrize(
    ("text", "line", "value", "reason"),
    [
        ("\nhttp://x/0\n#q\nhttp://x/1\n", 2, "http://x/0", "before any '#query'"),
        ("#q\nhttp://x/1\n#\nhttp://x/2\n", 3, "#", "empty query"),
        ("#q\nhttp://x/1\n#  \t\nhttp://x/2\n", 3, "#  \t", "empty query"),
        ("#q\nhttp://x/1\n\n#r\nhttp://x/2\n#q\nhttp://x/3\n", 6, "q", "first on line 1"),
        ("#q\n\n#r\nhttp://x/1\n", 1, "q", "no URLs"),
        ("#q\nhttp://x/1\n\n#r\n\n", 4, "r", "no URLs"),
        ("", 1, "(empty file)", "empty file"),
        ("\n  \n\n", 1, "(empty file)", "empty file"),
    ],
    ids=[
        "url-before-query",
        "empty-query",
        "blank-query",
        "duplicate-query",
        "query-without-urls",
        "last-query-without-urls",
        "empty-file",
        "blank-file",
    ],
)
def test_search_errors(tmp_path: Path, text: str, line: int, value: str, reason: str) -> None:
    path = tmp_path / "google.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=reason) as err:
        parse_search_results(path)
    assert_located(err, path, line, value)


# --------------------------------------------------------------------------
# CLEF runs


def write_clef(
    folder: Path, team: str, lines: list[str] | None = None, newline: str = "\n"
) -> Path:
    """A CLEF-like run file: 66 lines of 3 doc ids ``<team>-<line>-<pos>``."""
    folder.mkdir(parents=True, exist_ok=True)
    if lines is None:
        lines = [" ".join(f"{team}-{i}-{k}" for k in (1, 2, 3)) for i in range(1, 67)]
    path = folder / f"TOP20_{team}_EN.dat"
    path.write_bytes(("".join(line + newline for line in lines)).encode())
    return path


def test_clef_query_ids() -> None:
    assert len(CLEF_QUERY_IDS) == 66
    assert CLEF_QUERY_IDS[0] == "q01" and CLEF_QUERY_IDS[-1] == "q67"
    assert "q62" not in CLEF_QUERY_IDS
    assert CLEF_QUERY_IDS[60:62] == ("q61", "q63")


def test_clef_parse(tmp_path: Path) -> None:
    lines = [" ".join(f"d{i}-{k}" for k in (1, 2, 3)) for i in range(1, 67)]
    lines[0] = "dA  dB\tdA"  # repeated id and mixed whitespace: every occurrence kept
    lines[61] = "  only-one  "  # fewer ids are kept as they are; line 62 is query 63
    alpha = write_clef(tmp_path, "Alpha", lines, newline="\r\n")
    beta = write_clef(tmp_path, "Team_B.2")
    df = parse_clef_runs([beta, alpha])
    assert_table(df)
    assert len(df) == 2 * 66 * 3 - 2
    assert list(dict.fromkeys(df["list_set"])) == list(CLEF_QUERY_IDS)
    first = df[df["list_set"] == "q01"]
    assert first.values.tolist() == [
        ["q01", "Team_B.2", "Team_B.2-1-1", 1],
        ["q01", "Team_B.2", "Team_B.2-1-2", 2],
        ["q01", "Team_B.2", "Team_B.2-1-3", 3],
        ["q01", "Alpha", "dA", 1],
        ["q01", "Alpha", "dB", 2],
        ["q01", "Alpha", "dA", 3],
    ]
    lists = rankings_to_lists(df)
    assert lists["q63"] == {"Team_B.2": ["Team_B.2-62-1", "Team_B.2-62-2", "Team_B.2-62-3"],
                            "Alpha": ["only-one"]}
    assert lists["q61"]["Alpha"] == ["d61-1", "d61-2", "d61-3"]
    assert lists["q67"]["Alpha"] == ["d66-1", "d66-2", "d66-3"]
    # a single path is accepted too
    assert parse_clef_runs(alpha)["list_id"].unique().tolist() == ["Alpha"]


@pytest.mark.parametrize(
    "name", ["TOP20_EN.dat", "TOP20_X_FR.dat", "top20_X_EN.dat", "TOP20_X_EN.dat.bak", "X.dat"]
)
def test_clef_bad_file_name(tmp_path: Path, name: str) -> None:
    good = write_clef(tmp_path, "Good")
    path = tmp_path / name
    path.write_bytes(good.read_bytes())
    with pytest.raises(DataError, match="TOP20_<team>_EN.dat") as err:
        parse_clef_runs([good, path])
    assert_located(err, path, None, name)


@pytest.mark.parametrize(
    ("index", "text"), [(0, ""), (29, "   "), (65, "\t")], ids=["first", "middle", "last"]
)
def test_clef_empty_line(tmp_path: Path, index: int, text: str) -> None:
    lines = [f"d{i}" for i in range(1, 67)]
    lines[index] = text
    path = write_clef(tmp_path, "T", lines)
    with pytest.raises(DataError, match="empty line") as err:
        parse_clef_runs([path])
    assert_located(err, path, index + 1, text)


def test_clef_trailing_blank_line_is_empty_line(tmp_path: Path) -> None:
    path = write_clef(tmp_path, "T", [f"d{i}" for i in range(1, 67)] + [""])
    with pytest.raises(DataError, match="empty line") as err:
        parse_clef_runs([path])
    assert_located(err, path, 67, "")


@pytest.mark.parametrize("count", [0, 1, 65, 67])
def test_clef_wrong_line_count(tmp_path: Path, count: int) -> None:
    good = write_clef(tmp_path / "a", "Good")
    path = write_clef(tmp_path / "b", "Short", [f"d{i}" for i in range(count)])
    with pytest.raises(DataError, match="expected 66 lines") as err:
        parse_clef_runs([good, path])
    assert_located(err, path, None, count)
    assert f"got: {count}" in str(err.value)


def test_clef_duplicate_team(tmp_path: Path) -> None:
    first = write_clef(tmp_path / "a", "Same")
    second = write_clef(tmp_path / "b", "Same")
    with pytest.raises(DataError, match="team appears in two files") as err:
        parse_clef_runs([first, second])
    assert_located(err, second, None, "Same")
    assert str(first) in str(err.value)


def test_clef_no_files() -> None:
    with pytest.raises(ValueError, match="no CLEF run files"):
        parse_clef_runs([])


# --------------------------------------------------------------------------
# reading and writing the table


def test_read_fixture_and_lists() -> None:
    df = read_rankings(DATA / "tiny_rankings.tsv")
    assert_table(df)
    assert len(df) == 6
    assert df["item"].tolist() == ["d2", "d1", "d1", "d3", "d1", "z"]  # file order
    assert rankings_to_lists(df) == {
        "s1": {"teamB": ["d1", "d2"], "teamA": ["d1", "d3", "d1"]},
        "s0": {"teamA": ["z"]},
    }
    assert list(rankings_to_lists(df)) == ["s1", "s0"]
    assert list(rankings_to_lists(df)["s1"]) == ["teamB", "teamA"]


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
         "header must be"),
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
        "extra-column",
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


# --------------------------------------------------------------------------
# the real published files (shared mirror)


def test_pinned_rows() -> None:
    search = pinned_files("search_top25")
    assert sorted(raw_filename(p) for p in search["repo_path"]) == ["bing.txt", "google.txt"]
    clef = pinned_files("clef_ehealth_top20")
    names = [raw_filename(p) for p in clef["repo_path"]]
    assert len(names) == 12 and all(n.startswith("TOP20_") and n.endswith("_EN.dat") for n in names)
    assert "ReadMe.txt" not in names
    for table in (search, clef):
        assert list(table.columns) == ["dataset", "repo_path", "bytes", "sha256"]
        assert table["repo_path"].str.startswith(SECS + "/").all()
        assert table["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()


def fetch_dataset(dataset: str, dest: Path) -> list[Path]:
    """Fetch a dataset's pinned files from the mirror (sha256 checked)."""
    paths = []
    for row in pinned_files(dataset).itertuples():
        path = fetch(row.repo_path, row.sha256, dest / raw_filename(row.repo_path), mirror=MIRROR)
        assert path.stat().st_size == row.bytes
        assert hashlib.sha256(path.read_bytes()).hexdigest() == row.sha256
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def search_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not MIRROR.is_dir():
        pytest.skip("shared data mirror not present")
    paths = fetch_dataset("search_top25", tmp_path_factory.mktemp("search"))
    return {p.stem: p for p in paths}


@pytest.fixture(scope="module")
def clef_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    if not MIRROR.is_dir():
        pytest.skip("shared data mirror not present")
    return fetch_dataset("clef_ehealth_top20", tmp_path_factory.mktemp("clef"))


QUERIES = ["007_films", "James_Bond_films", "Bond_films", "007_movies", "James_Bond_movies",
           "Bond_movies"]


@needs_mirror
def test_real_google(search_files: dict[str, Path]) -> None:
    df = parse_search_results(search_files["google"])
    assert_table(df)
    assert (df["list_set"] == "google").all()
    sizes = df.groupby("list_id", sort=False).size()
    assert sizes.index.tolist() == QUERIES
    assert sizes.tolist() == [25] * 6
    lists = rankings_to_lists(df)["google"]
    assert lists["007_films"][0] == "https://en.wikipedia.org/wiki/List_of_James_Bond_films"


@needs_mirror
def test_real_bing(search_files: dict[str, Path]) -> None:
    df = parse_search_results(search_files["bing"])
    sizes = df.groupby("list_id", sort=False).size()
    assert sizes.index.tolist() == QUERIES
    # one Bing list has 26 URLs as published
    assert sizes.to_dict() == {q: 26 if q == "007_movies" else 25 for q in QUERIES}


def repeated(df: pd.DataFrame) -> dict[tuple[str, str, str], list[int]]:
    """(list_set, list_id, item) -> ranks, for items that occur twice or more in a list."""
    positions: dict[tuple[str, str, str], list[int]] = {}
    for row in df.itertuples():
        positions.setdefault((row.list_set, row.list_id, row.item), []).append(row.rank)
    return {key: ranks for key, ranks in positions.items() if len(ranks) > 1}


@needs_mirror
def test_real_search_repeated_urls(search_files: dict[str, Path]) -> None:
    thrillist = "https://www.thrillist.com/entertainment/nation/best-james-bond-movies-list-ranked"
    assert repeated(parse_search_results(search_files["google"])) == {
        ("google", "James_Bond_films", thrillist): [9, 19],
        ("google", "Bond_films", thrillist): [10, 22],
        ("google", "007_movies", thrillist): [7, 21],
    }
    assert repeated(parse_search_results(search_files["bing"])) == {
        ("bing", "Bond_films", "https://www.filmsite.org/bondfilms-ranked.html"): [5, 12],
        ("bing", "James_Bond_movies", "https://www.thejamesbonddossier.com/james-bond-films.htm"):
            [3, 10],
    }


@needs_mirror
def test_real_clef(clef_files: list[Path]) -> None:
    df = parse_clef_runs(clef_files)
    assert_table(df)
    teams = ["CUNI", "ECNU", "FDUSGInfo", "GRIUM", "KISTI", "KUCS", "LIMSI", "Miracl",
             "TeamHCMUS", "UBML", "USST", "YorkU"]
    assert list(dict.fromkeys(df["list_set"])) == list(CLEF_QUERY_IDS)
    assert sorted(df["list_id"].unique()) == sorted(teams)
    sizes = df.groupby(["list_set", "list_id"]).size()
    assert len(sizes) == 66 * 12
    assert (sizes == 20).all()
    assert len(df) == 66 * 12 * 20
    assert repeated(df) == {}
    lists = rankings_to_lists(df)
    assert len(lists) == 66 and all(len(runs) == 12 for runs in lists.values())
    assert lists["q01"]["CUNI"][:2] == ["nhslo3844_12_006778", "nhslo3844_12_006773"]
    # FDUSGInfo's corrupted ids are kept verbatim, and only FDUSGInfo has them
    corrupted = df[df["item"].str.match(r"F[a-z.\-]")]
    assert set(corrupted["list_id"]) == {"FDUSGInfo"}
    assert len(corrupted) == 171
    assert "Ftret4575_12_000267" in lists["q01"]["FDUSGInfo"]


@needs_mirror
def test_real_files_match_mirror(search_files: dict[str, Path], clef_files: list[Path]) -> None:
    for path in [*search_files.values(), *clef_files]:
        source = next(MIRROR.joinpath(SECS).rglob(path.name))
        assert path.read_bytes() == source.read_bytes()
