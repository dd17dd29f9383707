"""The tiny offline config (.test) end to end, on a clean clone: every family, a failed job's log,
a run killed mid-way and resumed, the Snakemake report and lint."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from .runner import REPO, SNAKEMAKE, comparable, offline_workdir, output_files, run, snakemake_env


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory) -> Path:
    work = offline_workdir(tmp_path_factory.mktemp("offline"))
    run(work)
    return work


def test_every_family_writes_its_tables_and_figures(offline_run):
    results = offline_run / "results"
    for dataset in ("sim_tiny", "own_orderings"):
        ed = pd.read_csv(results / f"orderings/{dataset}/ed_by_noise.tsv", sep="\t")
        assert list(ed.columns) == ["noise_ratio", "method", "ed_mean", "ed_sd", "replicates"]
        assert set(ed["method"]) == {"ac_tau", "frespa"} and set(ed["noise_ratio"]) == {0, 0.5}
        agg = pd.read_csv(results / f"consensus/{dataset}/aggregators.tsv", sep="\t")
        assert set(agg["aggregator"]) == {"borda", "rank_sum", "condorcet_fuse"}
    for dataset, judges in (("sim_small", 5), ("own_grades", 4)):
        loglik = pd.read_csv(results / f"graded/{dataset}/loglik_by_judge.tsv", sep="\t")
        assert list(loglik.columns) == ["judge", "method", "protocol", "loglik", "n_items"]
        assert loglik.groupby("method")["judge"].nunique().eq(judges).all()
    for dataset in ("sim_crowd_tiny", "own_preferences"):
        metrics = pd.read_csv(results / f"crowd/{dataset}/ranking_metrics.tsv", sep="\t")
        assert set(metrics["method"]) == {"crowdagg_ndcg", "crowdagg_ndcg_eq", "borda"}
        assert (results / f"figures/crowd/{dataset}/table2.png").stat().st_size > 1000
    assert (results / "crowd/sim_crowd_tiny/robustness.tsv").exists()
    assert (results / "consensus/sensitivity/sensitivity.tsv").exists()
    board = pd.read_csv(results / "arena/sim_arena_tiny/leaderboard.tsv", sep="\t")
    assert set(board["method"]) == {"bradley_terry"} and len(board) == 4 and board["ci_low"].notna().all()
    assert set(pd.read_csv(results / "arena/sim_arena_tiny/judges.tsv", sep="\t")["judge"]) == {"biased", "fair"}
    assert (results / "figures/arena/sim_arena_tiny/leaderboard.png").stat().st_size > 1000
    report = (results / "REPRODUCTION.md").read_text()
    for dataset in ("sim_tiny", "own_orderings", "sim_small", "own_grades", "sim_crowd_tiny", "own_preferences",
                    "sim_arena_tiny"):
        assert f"`{dataset}`" in report
    # Table 1 under the other reading of the noise experiment, and its row in "Readings"
    other = pd.read_csv(results / "orderings/sim_tiny/readings/judges_only/ed_by_noise.tsv", sep="\t")
    assert other[["noise_ratio", "method"]].equals(
        pd.read_csv(results / "orderings/sim_tiny/ed_by_noise.tsv", sep="\t")[["noise_ratio", "method"]])
    assert "## Readings" in report
    assert "| ED under noise: the orderings it averages over | `orderings.ed_over` |" in report
    # the fidelity scoreboard comes right after the header, before the families' sections
    assert report.index("## Fidelity scoreboard") < report.index("## Kim, Zhai, Han") < report.index("## Wilbur")
    board = report.split("## Fidelity scoreboard\n", 1)[1].split("\n## ", 1)[0]
    assert "| Kim, Zhai, Han (ECIR 2010), Table 1 | `sim_tiny` | simulated | 4 | " in board
    assert "| Kim, Zhai, Han (ECIR 2010), Table 1 | `own_orderings` | real stand-in (your own data) | 4 | " in board
    assert "| Wilbur and Kim (BMC Bioinformatics 2011), Table 2 | `sim_small` | simulated | 10 | " in board
    assert "Table 2 on `own_grades` (real stand-in (your own data))" in board  # no paper values beside it
    assert report.index("## Fidelity scoreboard") < report.index("## Readings") < report.index("## Kim, Zhai, Han")


def test_each_job_log_holds_its_progress(offline_run):
    log = (offline_run / "logs/graded/sim_small/m4/0.log").read_text()
    assert "held-out judges" in log


def test_a_failed_job_leaves_its_traceback_in_its_log(tmp_path):
    # the grades table exists (so the config check passes) but one label is out of range
    def bad_grades(config):
        config.pop("orderings"), config.pop("consensus"), config.pop("crowd")
        config["graded"]["datasets"].pop("sim_small")

    work = offline_workdir(tmp_path / "failing", bad_grades)
    grades = work / "data/grades.tsv"
    lines = grades.read_text().splitlines()
    assert lines[5].startswith("d1\tj0\t")
    lines[5] = "d1\tj0\t7"
    grades.write_text("\n".join(lines) + "\n")
    proc = run(work, check=False)
    assert proc.returncode != 0
    log = (work / "logs/parse/own_grades.log").read_text()
    assert "Traceback (most recent call last)" in log
    assert "data/grades.tsv, line 6: label must be an integer in 0..2 (n_labels = 3): '7'" in log
    assert not (work / "data/processed/own_grades/grades.tsv").exists()


FAMILIES = ("graded", "truth", "arena")


def test_a_killed_run_resumes_to_the_same_tables(offline_run, tmp_path):
    """SIGKILL to Snakemake and its jobs mid-run; --unlock; the rerun finishes what was left: the same files
    as an uninterrupted run, its tables byte for byte (measured seconds aside): a resumed run, and so any
    second run, reproduces the first. The same config, asked for the outputs of three
    of the families (graded, truth, arena: a third of the jobs), compared with the whole offline run's."""
    targets = [rel for rel in output_files(offline_run)
               if rel.parts[0] == "results" and (rel.parts[1] in FAMILIES or rel.parts[1:3] in
                                                 [("figures", family) for family in FAMILIES])]
    assert len(targets) > 25
    work = offline_workdir(tmp_path / "killed")
    proc = subprocess.Popen([*SNAKEMAKE, "--directory", str(work), "--cores", "2", *map(str, targets)], cwd=work,
                            env=snakemake_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while len(list((work / "results").rglob("*.tsv"))) < 5:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no results after 300 s"
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not all((work / rel).exists() for rel in targets)  # it really stopped half-way
    locked = run(work, *map(str, targets), check=False)
    assert locked.returncode != 0 and "LockException" in locked.stdout + locked.stderr
    run(work, "--unlock")
    run(work, *map(str, targets))
    assert output_files(work) == sorted(targets + [rel for rel in output_files(work) if rel.parts[0] == "data"])
    for rel in output_files(work):
        if rel.suffix == ".tsv":
            assert comparable(work / rel) == comparable(offline_run / rel), rel


def test_the_snakemake_report_builds(offline_run):
    run(offline_run, "--report", "results/report.html")
    html = (offline_run / "results/report.html").read_text(errors="replace")
    assert len(html) > 100_000 and "REPRODUCTION.md" in html


def test_the_workflow_is_lint_clean():
    proc = subprocess.run([*SNAKEMAKE, "--lint"], capture_output=True, text=True, cwd=REPO, env=snakemake_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr
