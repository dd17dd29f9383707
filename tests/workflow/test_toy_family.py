"""A family outside the library, found by its one declaration: the toy family of tests/toy_family (its
``Family``, named by the entry point ``toy`` of the group ``manyjudges.families``) runs through
``build_method``, the command and the pipeline, with no line of manyjudges changed for it.

The tests put a dist-info folder holding the toy's entry point (read from its pyproject.toml) on the
path, as ``pip install tests/toy_family`` would, instead of installing it."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from manyjudges.families import BUILT_IN, ENTRY_POINT_GROUP, families
from tests.workflow.runner import offline_workdir

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "tests" / "toy_family"
SCORES = TOY / "data" / "scores.tsv"


def installed(site: Path, entry_points: dict[str, str]) -> Path:
    """``site`` holding a dist-info folder with these entry points of the group manyjudges.families."""
    info = site / "manyjudges_toy-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: manyjudges-toy\nVersion: 0.1.0\n")
    lines = [f"{name} = {value}" for name, value in entry_points.items()]
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n" + "\n".join(lines) + "\n")
    return site


def toy_entry_points() -> dict[str, str]:
    """The toy's own declaration, from its pyproject.toml."""
    project = tomllib.loads((TOY / "pyproject.toml").read_text())["project"]
    return project["entry-points"][ENTRY_POINT_GROUP]


@pytest.fixture
def toy_site(tmp_path, monkeypatch):
    """The toy family installed for this process (and the paths for a subprocess's PYTHONPATH)."""
    site = installed(tmp_path / "site", toy_entry_points())
    for path in (TOY, site):
        monkeypatch.syspath_prepend(str(path))
    families.cache_clear()
    yield [str(site), str(TOY)]
    families.cache_clear()


def env_with(paths: list[str]) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(REPO / "src")])}
    env.pop("MANYJUDGES_MIRROR", None)
    return env


def test_the_toy_family_is_found_by_its_entry_point(toy_site):
    from sklearn.base import clone

    from manyjudges import build_method, family_registry

    assert list(families()) == [*(f.name for f in BUILT_IN), "toy"]
    assert list(family_registry("toy")) == ["mean", "median"]
    method = build_method("toy", "mean", trim=0.2)
    assert repr(clone(method)) == "ItemMean(trim=0.2)"
    with pytest.raises(ValueError, match="trim"):
        build_method("toy", "mean", trim=0.7)


def test_the_command_runs_the_toy_family(toy_site, tmp_path):
    def manyjudges(*args):
        return subprocess.run([sys.executable, "-m", "manyjudges", *args], capture_output=True, text=True,
                              env=env_with(toy_site), cwd=tmp_path)

    done = manyjudges("toy", str(SCORES), "--method", "mean", "-o", "scores.tsv")
    assert done.returncode == 0, done.stderr
    ours = pd.read_csv(tmp_path / "scores.tsv", sep="\t", dtype={"item": str}).set_index("item")["score"]
    expected = pd.read_csv(SCORES, sep="\t", dtype={"item": str}).groupby("item")["score"].mean()
    pd.testing.assert_series_equal(ours.sort_index(), expected.sort_index(), check_names=False)
    listed = manyjudges("methods", "toy")
    assert listed.returncode == 0 and "median" in listed.stdout
    help_text = manyjudges("--help").stdout
    assert "toy" in help_text
    bad = manyjudges("toy", str(SCORES), "--method", "mode")
    assert bad.returncode == 2 and "unknown toy method 'mode'" in bad.stderr


def toy_config(config: dict, methods: dict) -> None:
    """The .test config with the toy family's section in place of the built-in families' sections."""
    for family in BUILT_IN:
        config.pop(family.name, None)
    panel = {"source": "table", "path": str(SCORES), "description": "eight scores of three items"}
    config["toy"] = {"datasets": {"panel": panel}, "methods": methods}


def test_the_pipeline_runs_the_toy_family(toy_site, tmp_path):
    workdir = offline_workdir(tmp_path / "run", lambda c: toy_config(c, {"mean": {}, "trimmed": {
        "method": "mean", "params": {"trim": 0.34}}, "median": {}}))
    env = env_with(toy_site)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
                           str(workdir), "--cores", "1"], capture_output=True, text=True, env=env, cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    median = pd.read_csv(workdir / "results/toy/panel/median.tsv", sep="\t", dtype={"item": str})
    assert median.to_dict("list") == {"item": ["d1", "d10", "d2"], "score": [2.0, 1.0, 4.0]}
    report = (workdir / "results" / "REPRODUCTION.md").read_text()
    assert "## Toy family: one score per item" in report
    assert "| d1 | 4.000 | 2.000 | 2.000 |" in report  # mean, trimmed (one score of three off each end), median


@pytest.mark.parametrize("methods, messages", [
    ({"mean": {"params": {"trim": 0.9}}}, ["config: toy.methods.mean",
                                           "trim must be a number in [0, 0.5)"]),  # registry
    ({}, ["config: toy.datasets ['panel'] are configured but toy.methods is empty"]),  # the family's own check
])
def test_a_toy_config_mistake_stops_before_any_job(toy_site, tmp_path, methods, messages):
    workdir = offline_workdir(tmp_path / "run", lambda c: toy_config(c, methods))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
                           str(workdir), "--cores", "1", "-n"], capture_output=True, text=True,
                          env=env_with(toy_site), cwd=workdir)
    assert proc.returncode != 0
    assert all(message in proc.stderr + proc.stdout for message in messages)


@pytest.mark.parametrize("entry, message", [
    ({"truth": "manyjudges_toy:FAMILY"}, "a family named 'truth' exists already"),
    ({"other": "manyjudges_toy:FAMILY"}, "must name a manyjudges.families.Family called 'other'"),
    ({"toy": "manyjudges_toy:registry"}, "must name a manyjudges.families.Family called 'toy'"),
    ({"toy": "manyjudges_toy_missing:FAMILY"}, "cannot load it: ModuleNotFoundError"),
])
def test_a_bad_plugin_declaration_names_its_entry_point(tmp_path, monkeypatch, entry, message):
    monkeypatch.syspath_prepend(str(TOY))
    monkeypatch.syspath_prepend(str(installed(tmp_path / "site", entry)))
    families.cache_clear()
    try:
        with pytest.raises(ValueError, match=message) as err:
            families()
        assert f"group {ENTRY_POINT_GROUP}" in str(err.value)
    finally:
        families.cache_clear()


@pytest.mark.parametrize("fields, message", [
    ({"name": "my-family"}, "must be a Python identifier"),
    ({"commands": "manyjudges_toy.commands.add_commands"}, "commands must be 'module:function'"),
    ({"config_check": "manyjudges_toy.check_config"}, "config_check must be 'module:function'"),
])
def test_a_family_declaration_is_checked_when_made(fields, message):
    from manyjudges.families import Family

    declared = {"name": "toy", "package": "manyjudges_toy", "summary": "s",
                "commands": "manyjudges_toy.commands:add_commands", **fields}
    with pytest.raises(ValueError, match=message):
        Family(**declared)


def test_the_list_of_families_is_read_only():
    with pytest.raises(TypeError):
        families()["toy"] = BUILT_IN[0]  # type: ignore[index]
