"""The default config (config/config.yaml) from scratch gives the tables it always gave.

``expected/default/`` holds every results-contract table of a default run made before the
jobs were batched and the methods sped up (measured seconds left out): the same tables, byte
for byte, are expected from the current code. A deliberate change of a result replaces the
expected file in the same commit, and says why.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .runner import REPO, comparable, run

EXPECTED = Path(__file__).parent / "expected" / "default"

pytestmark = pytest.mark.integration


def test_default_config_reproduces_every_table(tmp_path):
    shutil.copytree(REPO / "config", tmp_path / "config")
    run(tmp_path, "-q")
    expected = sorted(p.relative_to(EXPECTED) for p in EXPECTED.rglob("*.tsv"))
    produced = sorted(p.relative_to(tmp_path / "results") for p in (tmp_path / "results").glob("*/*/*.tsv")
                      if p.name != "runtime.tsv")
    assert produced == expected
    different = [str(rel) for rel in expected
                 if comparable(tmp_path / "results" / rel) != comparable(EXPECTED / rel)]
    assert not different, f"tables that changed: {different}"
