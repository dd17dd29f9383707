"""The pipeline through profiles/slurm on a real (one-node) SLURM cluster gives the local run's results.

profiles/slurm/local_cluster.sh starts the cluster (Debian, root: it installs slurm-wlm and munge
with apt-get when they are missing). The tiny offline config .test/config/config.yaml then runs
twice: through `--profile profiles/slurm` (every job of a rule that is not local submitted with
sbatch) and locally with
`--cores 2`. Every file under results/ and data/processed/ must be byte-identical, measured
seconds masked. The test command leaves it out; run it with `python -m pytest -m cluster`.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .runner import REPO, TEST_CONFIG, comparable, offline_workdir, output_files, run

SCRIPT = REPO / "profiles" / "slurm" / "local_cluster.sh"
PROFILE = REPO / "profiles" / "slurm"

pytestmark = pytest.mark.cluster


def last_lines(proc: subprocess.CompletedProcess, n: int = 15) -> str:
    return "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-n:])


@pytest.fixture(scope="module")
def cluster():
    """A running local SLURM cluster; stopped again afterwards if it was not running before."""
    if not TEST_CONFIG.is_file():
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


def test_slurm_profile_gives_the_local_results(cluster, tmp_path):
    on_slurm = offline_workdir(tmp_path / "slurm")
    proc = run(on_slurm, "--profile", str(PROFILE), "--slurm-keep-successful-logs", cores=None)
    log = proc.stdout + proc.stderr

    # every job of a rule that is not local went through sbatch (gathering, figures, the report
    # and `all` ran where Snakemake runs), and SLURM ran each one to completion
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", log)
    batch_jobs = re.findall(r"^rule \w+:$", log, flags=re.M)
    local_jobs = re.findall(r"^localrule \w+:$", log, flags=re.M)
    assert len(submitted) == len(batch_jobs) > 0 and len(local_jobs) > 1, log[-3000:]
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    queue = subprocess.run(["squeue", "--states=all", "--noheader", "--name", run_id, "--format=%i %T"],
                           capture_output=True, text=True, check=True).stdout
    states = dict(line.split() for line in queue.splitlines())
    assert sorted(states) == sorted(submitted)
    assert set(states.values()) == {"COMPLETED"}
    job_logs = {p.stem for p in (on_slurm / ".snakemake" / "slurm_logs").rglob("*.log")}
    assert job_logs == set(submitted)

    local = offline_workdir(tmp_path / "local")
    run(local)

    files = output_files(local)
    assert output_files(on_slurm) == files and len(files) > 20
    for rel in files:
        assert comparable(on_slurm / rel) == comparable(local / rel), rel
