"""Shared helpers of the io tests: fixture paths, the located-error check, pinned mirror files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges.io.tables.grades import _GRADES_COLUMNS, GradedData
from manyjudges.io.tables.rankings import _RANKINGS_COLUMNS
from manyjudges.pipeline.download import _mirror_path, _pinned_files

TESTS = Path(__file__).resolve().parents[1]
#: tests/data (the hand-made fixtures).
DATA = TESTS / "data"
#: The shared mirror of the pinned raw files, beside the repository.
MIRROR = TESTS.parents[1] / "shared" / "data" / "mirror"
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason="shared data mirror not present")


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


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def rows(df: pd.DataFrame) -> list[list]:
    return df.values.tolist()


def assert_grades(data: GradedData) -> None:
    g = data.grades
    assert list(g.columns) == _GRADES_COLUMNS
    assert g["label"].dtype == np.int64
    assert all(isinstance(v, str) for col in ("item", "judge") for v in g[col])
    assert g["label"].between(0, data.n_classes - 1).all()
    assert not g.duplicated(["item", "judge"]).any()
    assert len(data.label_names) == data.n_classes


def pinned(dataset: str, mirror: Path) -> dict[str, Path]:
    """The dataset's pinned files in the mirror, by file name (size and sha256 checked)."""
    out = {}
    for row in _pinned_files(dataset).itertuples():
        path = _mirror_path(row.repo_path, mirror)
        payload = path.read_bytes()
        assert len(payload) == row.bytes
        assert hashlib.sha256(payload).hexdigest() == row.sha256
        out[path.name] = path
    return out


def assert_rankings(df: pd.DataFrame) -> None:
    """``df`` is a rankings table: its columns, str ids and int64 ranks."""
    assert list(df.columns) == _RANKINGS_COLUMNS
    assert df["rank"].dtype == np.int64
    assert all(isinstance(v, str) for col in _RANKINGS_COLUMNS[:3] for v in df[col])


def repeated(df: pd.DataFrame) -> dict[tuple[str, str, str], list[int]]:
    """(list_set, list_id, item) -> ranks, for items that occur twice or more in a list."""
    positions: dict[tuple[str, str, str], list[int]] = {}
    for row in df.itertuples():
        positions.setdefault((row.list_set, row.list_id, row.item), []).append(row.rank)
    return {key: ranks for key, ranks in positions.items() if len(ranks) > 1}
