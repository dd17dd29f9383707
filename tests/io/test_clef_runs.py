"""Tests for the CLEF eHealth 2015 top-20 run parser (-> rankings table)."""

from __future__ import annotations

from pathlib import Path

import pytest
from io_helpers import MIRROR, assert_located, assert_rankings, needs_mirror, repeated

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.clef_runs import _CLEF_QUERY_IDS, parse_clef_runs
from manyjudges.io.tables.rankings import rankings_to_lists
from manyjudges.pipeline.download import _pinned_files, _raw_filename

SECS = "zhiweiuk/secs/6f7fc9009c0c84da923ffc891a12bb4632b60cac"


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
    assert len(_CLEF_QUERY_IDS) == 66
    assert _CLEF_QUERY_IDS[0] == "q01" and _CLEF_QUERY_IDS[-1] == "q67"
    assert "q62" not in _CLEF_QUERY_IDS
    assert _CLEF_QUERY_IDS[60:62] == ("q61", "q63")


def test_clef_parse(tmp_path: Path) -> None:
    lines = [" ".join(f"d{i}-{k}" for k in (1, 2, 3)) for i in range(1, 67)]
    lines[0] = "dA  dB\tdA"  # repeated id and mixed whitespace: every occurrence kept
    lines[61] = "  only-one  "  # fewer ids are kept as they are; line 62 is query 63
    alpha = write_clef(tmp_path, "Alpha", lines, newline="\r\n")
    beta = write_clef(tmp_path, "Team_B.2")
    df = parse_clef_runs([beta, alpha])
    assert_rankings(df)
    assert len(df) == 2 * 66 * 3 - 2
    assert list(dict.fromkeys(df["list_set"])) == list(_CLEF_QUERY_IDS)
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
# the real published files (shared mirror)


def test_pinned_rows() -> None:
    search = _pinned_files("search_top25")
    assert sorted(_raw_filename(p) for p in search["repo_path"]) == ["bing.txt", "google.txt"]
    clef = _pinned_files("clef_ehealth_top20")
    names = [_raw_filename(p) for p in clef["repo_path"]]
    assert len(names) == 12 and all(n.startswith("TOP20_") and n.endswith("_EN.dat") for n in names)
    assert "ReadMe.txt" not in names
    for table in (search, clef):
        assert list(table.columns) == ["dataset", "repo_path", "bytes", "sha256"]
        assert table["repo_path"].str.startswith(SECS + "/").all()
        assert table["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()


@needs_mirror
def test_real_clef(clef_files: list[Path]) -> None:
    df = parse_clef_runs(clef_files)
    assert_rankings(df)
    teams = ["CUNI", "ECNU", "FDUSGInfo", "GRIUM", "KISTI", "KUCS", "LIMSI", "Miracl",
             "TeamHCMUS", "UBML", "USST", "YorkU"]
    assert list(dict.fromkeys(df["list_set"])) == list(_CLEF_QUERY_IDS)
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
