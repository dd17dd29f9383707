"""The pipeline through profiles/slurm on a real (one-node) SLURM cluster gives the local run's results.

profiles/slurm/local_cluster.sh starts the cluster (Debian, root: it installs slurm-wlm and munge
with apt-get when they are missing). The tiny offline config .test/config/config.yaml then runs
twice: through `--profile profiles/slurm` (every job submitted with sbatch) and locally with
`--cores 2`. Every file under results/ and data/processed/ must be byte-identical, measured
seconds masked. Deselect with `-m "not cluster"`.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "profiles" / "slurm" / "local_cluster.sh"
PROFILE = REPO / "profiles" / "slurm"
TEST_DIR = REPO / ".test"
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")]

pytestmark = pytest.mark.cluster


def last_lines(proc: subprocess.CompletedProcess, n: int = 15) -> str:
    return "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-n:])


@pytest.fixture(scope="module")
def cluster():
    """A running local SLURM cluster; stopped again afterwards if it was not running before."""
    if not (TEST_DIR / "config" / "config.yaml").is_file():
        pytest.skip(".test/config/config.yaml not found: no tiny config to run on the cluster")
    if os.geteuid() != 0:
        pytest.skip("needs root: local_cluster.sh installs slurm-wlm and munge and starts the SLURM daemons")
    if not Path("/etc/debian_version").is_file() or shutil.which("apt-get") is None:
        pytest.skip("needs a Debian-like system with apt-get (local_cluster.sh installs SLURM from the distribution)")
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed (pip install snakemake-executor-plugin-slurm)")
    was_running = subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True, text=True).returncode == 0
    try:
        start = subprocess.run(["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        pytest.skip("profiles/slurm/local_cluster.sh start did not finish within 15 minutes")
    if start.returncode != 0:
        pytest.skip(f"profiles/slurm/local_cluster.sh start failed (exit {start.returncode}):\n{last_lines(start)}")
    yield
    if not was_running:
        subprocess.run(["bash", str(SCRIPT), "stop"], capture_output=True, text=True)


def workdir(path: Path) -> Path:
    """A copy of .test (its config and input tables), without outputs of earlier runs there."""
    shutil.copytree(TEST_DIR, path, ignore=shutil.ignore_patterns(
        ".snakemake", "results", "logs", "benchmarks", "processed"))
    return path


def snakemake(work: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "tests" / "plugins")])}
    env.pop("MANYJUDGES_MIRROR", None)
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(work), *args],
                          capture_output=True, text=True, env=env, cwd=work, timeout=3600)
    if proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout + proc.stderr


def masked(rel: Path, data: bytes) -> bytes:
    """Measured seconds out, as in test_pipeline.py::test_two_runs_give_byte_identical_tables."""
    if rel.name.endswith("runtime.tsv"):  # measured seconds: only the methods must agree
        data = re.sub(rb"\t[0-9.e-]+\n", b"\n", data)
    if rel.name == "REPRODUCTION.md":  # the running-time tables are measurements too
        data = re.sub(rb"\| [0-9.]+ s \|\n", b"| t |\n", data)
    return data


def outputs(work: Path) -> list[Path]:
    return sorted(p.relative_to(work) for top in ("results", "data/processed")
                  for p in (work / top).rglob("*") if p.is_file())


def test_slurm_profile_gives_the_local_results(cluster, tmp_path):
    on_slurm = workdir(tmp_path / "slurm")
    log = snakemake(on_slurm, "--profile", str(PROFILE), "--slurm-keep-successful-logs")

    # every job but the target rule `all` went through sbatch, and SLURM ran each one to completion
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", log)
    total = int(re.search(r"^total\s+(\d+)\s*$", log, flags=re.M).group(1))
    assert len(submitted) == total - 1 > 0, log[-3000:]
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    queue = subprocess.run(["squeue", "--states=all", "--noheader", "--name", run_id, "--format=%i %T"],
                           capture_output=True, text=True, check=True).stdout
    states = dict(line.split() for line in queue.splitlines())
    assert sorted(states) == sorted(submitted)
    assert set(states.values()) == {"COMPLETED"}
    job_logs = {p.stem for p in (on_slurm / ".snakemake" / "slurm_logs").rglob("*.log")}
    assert job_logs == set(submitted)

    local = workdir(tmp_path / "local")
    snakemake(local, "--cores", "2")

    files = outputs(local)
    assert outputs(on_slurm) == files and len(files) > 20
    for rel in files:
        assert masked(rel, (on_slurm / rel).read_bytes()) == masked(rel, (local / rel).read_bytes()), rel
