"""Running the pipeline in a scratch directory, and comparing two runs' tables."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"


def snakemake_env() -> dict[str, str]:
    """The test's environment, with the test plug-ins importable (the library is the one installed, or the
    one PYTHONPATH already names)."""
    path = [str(REPO / "tests" / "plugins"), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(path))}
    env.pop("MANYJUDGES_MIRROR", None)
    return env


def run(workdir: Path, *args: str, check: bool = True, cores: int | None = 2) -> subprocess.CompletedProcess:
    """``snakemake --directory workdir --cores N args...`` (no ``--cores`` when None, e.g. with a
    cluster profile); on failure (when checked) the output's tail."""
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(workdir), *(["--cores", str(cores)] if cores else []), *args],
                          capture_output=True, text=True, env=snakemake_env(), cwd=workdir)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def make_workdir(path: Path, config: dict) -> Path:
    """A scratch run directory whose config/config.yaml is ``config``."""
    (path / "config").mkdir(parents=True)
    (path / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return path


def offline_workdir(path: Path, edit=None) -> Path:
    """A copy of the repository's tiny offline config (.test) in ``path``; ``edit(config)`` may change it."""
    shutil.copytree(REPO / ".test" / "config", path / "config")
    shutil.copytree(REPO / ".test" / "data", path / "data", ignore=shutil.ignore_patterns("processed", "raw"))
    if edit is not None:
        config = yaml.safe_load(TEST_CONFIG.read_text())
        edit(config)
        (path / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return path


def output_files(workdir: Path) -> list[Path]:
    """Every file a run wrote (tables, figures, the report, processed data), relative to its directory."""
    return sorted(p.relative_to(workdir) for top in ("results", "data/processed")
                  for p in (workdir / top).rglob("*") if p.is_file())


def result_files(workdir: Path) -> list[Path]:
    """Every table and report of a run, relative to its directory."""
    files = sorted(p.relative_to(workdir) for p in (workdir / "results").rglob("*") if p.suffix in (".tsv", ".md"))
    files += sorted(p.relative_to(workdir) for p in (workdir / "data" / "processed").rglob("*.tsv"))
    return files


def comparable(path: Path) -> bytes:
    """A result file's bytes with measured seconds masked (runtime tables, truth accuracy tables' last
    column, the report's timing rows)."""
    data = path.read_bytes()
    if path.name.endswith("runtime.tsv") or (path.name == "accuracy.tsv" and path.parent.parent.name == "truth"):
        data = re.sub(rb"\t[0-9.e-]+\n", b"\n", data)
    if path.name == "REPRODUCTION.md":
        data = re.sub(rb"\| [0-9.]+ s \|\n", b"| t |\n", data)
    return data


def table_differences(produced: Path, expected: Path, rtol: float = 1e-4, atol: float = 1e-7) -> str | None:
    """None when two result tables have the same text cell for cell, numbers equal to ``rtol`` (relative)
    or ``atol``; else the first difference, in words. Measured seconds are masked (``comparable``)."""
    ours, theirs = comparable(produced).decode().splitlines(), comparable(expected).decode().splitlines()
    if len(ours) != len(theirs):
        return f"{len(ours)} lines, expected {len(theirs)}"
    for number, (a_line, b_line) in enumerate(zip(ours, theirs), 1):
        a_cells, b_cells = a_line.split("\t"), b_line.split("\t")
        if len(a_cells) != len(b_cells):
            return f"line {number}: {a_line!r}, expected {b_line!r}"
        for a, b in zip(a_cells, b_cells):
            if a == b:
                continue
            try:
                x, y = float(a), float(b)
            except ValueError:
                return f"line {number}: {a!r}, expected {b!r}"
            if not abs(x - y) <= atol + rtol * abs(y):
                return f"line {number}: {a!r}, expected {b!r}"
    return None
