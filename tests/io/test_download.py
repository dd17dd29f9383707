"""Tests for pinned-file fetching (no network: mirror or a patched urlopen)."""

from __future__ import annotations

import hashlib
import io
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from io_helpers import MIRROR, needs_mirror

from manyjudges.io.engine.errors import DataError
from manyjudges.pipeline import download
from manyjudges.pipeline.download import (
    ChecksumError,
    DownloadError,
    _mirror_path,
    _pinned_files,
    _raw_filename,
    _upstream_url,
    fetch,
)


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MANYJUDGES_MIRROR", raising=False)


@pytest.fixture
def skate_file() -> tuple[str, str, int]:
    row = _pinned_files("skate").iloc[0]
    return row["repo_path"], row["sha256"], int(row["bytes"])


def test_pinned_files_and_names() -> None:
    skate = _pinned_files("skate")
    assert list(skate.columns) == ["dataset", "repo_path", "bytes", "sha256"]
    assert len(skate) == 48
    assert (skate["dataset"] == "skate").all()
    assert skate["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    repo_path = skate["repo_path"].iloc[0]
    assert _raw_filename(repo_path) == "00006-00000001.toc"
    url = _upstream_url(repo_path)
    assert url.startswith("https://raw.githubusercontent.com/fleverest/PrefLib-Data/")
    assert "00006%20-%20skate/00006-00000001.toc" in url
    assert " " not in url


def test_unknown_dataset_lists_known() -> None:
    with pytest.raises(ValueError, match="unknown dataset 'nope'") as err:
        _pinned_files("nope")
    for known in ("breakfast", "dots", "puzzle", "skate"):
        assert known in str(err.value)


@needs_mirror
def test_fetch_from_mirror(tmp_path: Path, skate_file: tuple[str, str, int]) -> None:
    repo_path, sha, size = skate_file
    dest = tmp_path / "raw" / "skate" / _raw_filename(repo_path)
    assert fetch(repo_path, sha, dest, mirror=MIRROR) == dest
    assert dest.stat().st_size == size
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha
    assert dest.read_bytes() == _mirror_path(repo_path, MIRROR).read_bytes()
    assert [p.name for p in dest.parent.iterdir()] == [dest.name]


@needs_mirror
def test_wrong_checksum_leaves_nothing(tmp_path: Path, skate_file: tuple[str, str, int]) -> None:
    repo_path, sha, _ = skate_file
    dest = tmp_path / "00006-00000001.toc"
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as err:
        fetch(repo_path, wrong, dest, mirror=MIRROR)
    message = str(err.value)
    assert dest.name in message and wrong in message and sha in message
    assert isinstance(err.value, DataError)
    assert not dest.exists()
    assert list(tmp_path.iterdir()) == []


@needs_mirror
def test_env_mirror_is_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, skate_file: tuple[str, str, int]
) -> None:
    repo_path, sha, _ = skate_file

    def no_network(*args, **kwargs):
        raise AssertionError("must not touch the network")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.setenv("MANYJUDGES_MIRROR", str(MIRROR))
    dest = fetch(repo_path, sha, tmp_path / "a.toc")
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha


@needs_mirror
def test_mirror_argument_wins_over_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, skate_file: tuple[str, str, int]
) -> None:
    repo_path, sha, _ = skate_file
    monkeypatch.setenv("MANYJUDGES_MIRROR", str(tmp_path / "not-a-mirror"))
    dest = fetch(repo_path, sha, tmp_path / "a.toc", mirror=MIRROR)
    assert dest.exists()


def test_missing_mirror_file(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    dest = tmp_path / "out" / "f.txt"
    with pytest.raises(DownloadError, match="mirror file not found") as err:
        fetch("o/r/c/some dir/f.txt", "0" * 64, dest, mirror=mirror)
    assert str(mirror / "o" / "r" / "c" / "some dir" / "f.txt") in str(err.value)
    assert not dest.exists()


def test_unreachable_url_suggests_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def offline(url, *args, **kwargs):
        seen.append(url)
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    dest = tmp_path / "f.txt"
    with pytest.raises(DownloadError) as err:
        fetch("o/r/c/some dir/f.txt", "0" * 64, dest)
    message = str(err.value)
    assert "https://raw.githubusercontent.com/o/r/c/some%20dir/f.txt" in message
    assert "mirror" in message and "MANYJUDGES_MIRROR" in message
    assert seen == ["https://raw.githubusercontent.com/o/r/c/some%20dir/f.txt"]
    assert list(tmp_path.iterdir()) == []


def test_timeout_is_a_download_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(url, *args, **kwargs):
        raise TimeoutError("timed out")

    monkeypatch.setattr(urllib.request, "urlopen", slow)
    with pytest.raises(DownloadError, match="mirror"):
        fetch("o/r/c/f.txt", "0" * 64, tmp_path / "f.txt", timeout=1)
    assert list(tmp_path.iterdir()) == []


def test_download_verifies_checksum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = b"hello\n"
    sha = hashlib.sha256(payload).hexdigest()
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(payload))
    dest = fetch("o/r/c/f.txt", sha.upper(), tmp_path / "f.txt")
    assert dest.read_bytes() == payload
    with pytest.raises(ChecksumError):
        fetch("o/r/c/f.txt", "1" * 64, tmp_path / "g.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_module_exports() -> None:
    assert download._MIRROR_ENV == "MANYJUDGES_MIRROR"
