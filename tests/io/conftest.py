"""Fixtures of the io tests: pinned raw files fetched from the shared mirror."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # io_helpers, whatever the import mode

from io_helpers import MIRROR  # noqa: E402

from manyjudges.pipeline.download import _pinned_files, _raw_filename, fetch  # noqa: E402


def fetch_dataset(dataset: str, dest: Path) -> list[Path]:
    """Fetch a dataset's pinned files from the mirror (sha256 checked)."""
    paths = []
    for row in _pinned_files(dataset).itertuples():
        path = fetch(row.repo_path, row.sha256, dest / _raw_filename(row.repo_path), mirror=MIRROR)
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
