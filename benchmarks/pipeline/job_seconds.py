"""Where a pipeline run's time went: job-seconds per rule and dataset, the critical path, the overhead.

Reads one run's Snakemake log (``<workdir>/.snakemake/log/*.snakemake.log``, the newest
complete one unless ``--log`` names another) and the rules' ``benchmark:`` files it lists, and writes

- ``<out>/<name>_by_rule.{tsv,md}``: jobs and job-seconds per rule and dataset, largest first;
- ``<out>/<name>_critical_path.{tsv,md}``: the chain of dependent jobs with the largest summed
  duration (no run on any number of cores can be shorter than it);
- a summary (in both markdown headers): wall time, cores, jobs, total job-seconds, the critical path,
  the lower bound ``max(critical path, job-seconds / cores)`` and the rest of the wall time, which is
  Snakemake's own scheduling and the gaps between jobs (the overhead).

A job's seconds are its benchmark file's ``s`` (the rule's script process, start to end) when the
rule has one, otherwise the time between its start and finish lines in the log (1 s resolution).
``cpu_time`` is the benchmark's CPU seconds (user + system) and is empty for jobs without a benchmark.

    python -m benchmarks.pipeline.job_seconds RUN_DIR [--name default_after] [--out benchmarks/results]
"""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from benchmarks.harness.timing import write_tables

BENCHMARKS = Path(__file__).resolve().parents[1]

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
RULE = re.compile(r"^(?:local)?rule (\w+):$")
FINISHED = re.compile(r"^Finished job(?:id)?:? (\d+)")
FIELD = re.compile(r"^    (\w+): (.*)$")
#: wildcards that name the data set a job works on, in order of preference
DATASET_WILDCARDS = ("dataset", "crowd_dataset", "graded_sim", "crowd_sim", "sim_dataset", "raw_dataset")


@dataclass
class Job:
    """One job of the log: its rule, fields (input, output, wildcards, benchmark ...), start and end."""

    jobid: int
    rule: str
    start: datetime
    fields: dict[str, str] = field(default_factory=dict)
    end: datetime | None = None

    def files(self, key: str) -> list[str]:
        return [f.strip() for f in self.fields.get(key, "").split(",") if f.strip()]

    @property
    def dataset(self) -> str:
        wildcards = dict(w.strip().split("=", 1) for w in self.files("wildcards") if "=" in w)
        for name in DATASET_WILDCARDS:
            if name in wildcards:
                return wildcards[name]
        return "-"


def _stamp(text: str) -> datetime:
    return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")


def parse_log(path: Path) -> tuple[list[Job], int, float | None]:
    """The jobs of a Snakemake log, the cores it was given, and its elapsed seconds (None if unfinished)."""
    blocks: list[tuple[str, datetime, dict[str, str]]] = []
    finished: dict[int, datetime] = {}
    cores, elapsed = 1, None
    stamp: datetime | None = None
    fields: dict[str, str] | None = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if m := STAMP.match(line):
            stamp, fields = _stamp(m.group(1)), None
        elif (m := RULE.match(line)) and stamp is not None:
            fields = {}
            blocks.append((m.group(1), stamp, fields))
        elif (m := FIELD.match(line)) and fields is not None:
            fields[m.group(1)] = m.group(2)
        elif (m := FINISHED.match(line)) and stamp is not None:
            finished[int(m.group(1))] = stamp
        elif line.startswith("Provided cores:"):
            cores = int(line.split(":")[1])
        elif line.startswith("Elapsed time:"):
            h, mnt, s = line.split(":", 1)[1].strip().split(":")
            elapsed = int(h) * 3600 + int(mnt) * 60 + float(s)
    jobs = {}
    for rule, start, block in blocks:
        if "jobid" in block:
            jobid = int(block["jobid"])
            jobs[jobid] = Job(jobid, rule, start, block, finished.get(jobid))
    return list(jobs.values()), cores, elapsed


def newest_complete_log(workdir: Path) -> Path:
    logs = sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log"), reverse=True)
    for log in logs:
        if "Elapsed time:" in log.read_text(encoding="utf-8", errors="replace"):
            return log
    raise SystemExit(f"{workdir}: no complete Snakemake log under .snakemake/log (pass --log)")


def job_table(jobs: list[Job], workdir: Path) -> pd.DataFrame:
    """One row per job: rule, dataset, seconds, cpu_time (benchmark), start, end."""
    rows = []
    for job in jobs:
        seconds = cpu = None
        bench = job.fields.get("benchmark")
        if bench and (workdir / bench).exists():
            last = pd.read_csv(workdir / bench, sep="\t").iloc[-1]
            seconds, cpu = float(last["s"]), float(last["cpu_time"])
        if seconds is None and job.end is not None:
            seconds = (job.end - job.start).total_seconds()
        rows.append({"jobid": job.jobid, "rule": job.rule, "dataset": job.dataset, "seconds": seconds,
                     "cpu_time": cpu, "start": job.start, "end": job.end,
                     "label": " ".join(job.files("wildcards")) or "-"})
    return pd.DataFrame(rows)


def critical_path(jobs: list[Job], seconds: dict[int, float]) -> list[Job]:
    """The chain of jobs (each needing an output of the one before) with the largest summed seconds."""
    producer = {out: job for job in jobs for out in job.files("output")}
    order = sorted(jobs, key=lambda j: j.start)
    best: dict[int, tuple[float, int | None]] = {}
    for job in order:
        parents = {producer[f].jobid for f in job.files("input") if f in producer}
        prev = max(parents, key=lambda p: best[p][0], default=None) if parents else None
        base = best[prev][0] if prev is not None and prev in best else 0.0
        best[job.jobid] = (base + (seconds.get(job.jobid) or 0.0), prev)
    if not best:
        return []
    by_id = {j.jobid: j for j in jobs}
    node: int | None = max(best, key=lambda i: best[i][0])
    chain = []
    while node is not None:
        chain.append(by_id[node])
        node = best[node][1]
    return chain[::-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path,
                    help="the run's working directory (holds .snakemake/ and the rules' benchmark files)")
    ap.add_argument("--log", type=Path, help="a Snakemake log (default: the newest complete one of the run)")
    ap.add_argument("--name", default="run", help="file name stem of the tables (default: run)")
    ap.add_argument("--out", type=Path, default=BENCHMARKS / "results",
                    help="output directory (default benchmarks/results)")
    args = ap.parse_args(argv)
    log = args.log or newest_complete_log(args.run_dir)
    jobs, cores, elapsed = parse_log(log)
    if not jobs:
        raise SystemExit(f"{log}: no jobs found (was the run started with -q?)")
    table = job_table(jobs, args.run_dir)
    starts, ends = table["start"].min(), table["end"].dropna().max()
    wall = elapsed if elapsed is not None else (ends - starts).total_seconds()
    chain = critical_path(jobs, dict(zip(table["jobid"], table["seconds"])))
    path_seconds = float(table.set_index("jobid").loc[[j.jobid for j in chain], "seconds"].sum())
    total = float(table["seconds"].sum())
    bound = max(path_seconds, total / cores)
    summary = [
        f"log: {log.name} ({args.run_dir})",
        f"wall: {wall:.0f} s on {cores} cores; {len(table)} jobs",
        f"job-seconds: {total:.0f} (CPU {table['cpu_time'].sum():.0f} s in the {table['cpu_time'].notna().sum()} "
        "jobs with a benchmark file)",
        f"critical path: {path_seconds:.0f} s over {len(chain)} jobs",
        f"lower bound max(critical path, job-seconds / cores): {bound:.0f} s; the rest of the wall time, "
        f"{wall - bound:.0f} s ({(wall - bound) / wall:.0%}), is scheduling, job start-up gaps and idle cores",
    ]
    by_rule = (table.groupby(["rule", "dataset"], as_index=False)
               .agg(jobs=("jobid", "size"), job_seconds=("seconds", "sum"), max_job_seconds=("seconds", "max"),
                    cpu_seconds=("cpu_time", "sum"))
               .sort_values("job_seconds", ascending=False))
    by_rule["share"] = (by_rule["job_seconds"] / total).map("{:.1%}".format)
    for col in ("job_seconds", "max_job_seconds", "cpu_seconds"):
        by_rule[col] = by_rule[col].map("{:.1f}".format)
    path_rows = [{"step": i, "rule": j.rule, "wildcards": " ".join(j.files("wildcards")) or "-",
                  "seconds": f"{table.loc[table['jobid'] == j.jobid, 'seconds'].iloc[0]:.1f}"}
                 for i, j in enumerate(chain, 1)]
    write_tables(by_rule.to_dict("records"), list(by_rule.columns), args.out, f"{args.name}_by_rule",
                 f"Job-seconds per rule and dataset: {args.name}", summary)
    write_tables(path_rows, ["step", "rule", "wildcards", "seconds"], args.out, f"{args.name}_critical_path",
                 f"Critical path: {args.name}", summary)
    print("\n".join(summary))
    print(by_rule.head(15).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
