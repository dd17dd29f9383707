"""Tests for the search-results parser (google.txt, bing.txt -> rankings table)."""

from __future__ import annotations

from pathlib import Path

import pytest
from io_helpers import DATA, assert_located, assert_rankings, needs_mirror, repeated

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.search_results import parse_search_results
from manyjudges.io.tables.rankings import rankings_to_lists


def test_search_fixture_keeps_repeats() -> None:
    df = parse_search_results(DATA / "tiny_search.txt")
    assert_rankings(df)
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
# the real published files (shared mirror)


QUERIES = ["007_films", "James_Bond_films", "Bond_films", "007_movies", "James_Bond_movies",
           "Bond_movies"]


@needs_mirror
def test_real_google(search_files: dict[str, Path]) -> None:
    df = parse_search_results(search_files["google"])
    assert_rankings(df)
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
