"""CPU time of the paper config's ordering ED jobs and of one crowd robustness job, old code vs new.

    python -m benchmarks.speed.scorers [--mirror DIR] [--baseline-rev REV | --baseline-src DIR]
        [--out benchmarks/results] [--draws 2] [--timeout 300] [--mem-gb 6] [--quick]

*Old* is the library at ``--baseline-rev`` (default: the commit before the distinct-orderings
and robustness-cache changes), exported with ``git archive`` into a temporary folder, or a
``src`` folder given by ``--baseline-src``; *new* is this checkout's ``src``. Every measurement
runs in a fresh child process (``python this_script --child``) with ``PYTHONPATH`` set to one of
the two, ``OPENBLAS_NUM_THREADS=1`` (as the pipeline's jobs), an address-space limit
(``--mem-gb``) and a timeout (``--timeout``): a child that runs out of either is recorded as
``timeout`` / ``error``. Times are CPU seconds of the child (``time.process_time``), excluding its
imports and the parsing of the data.

Orderings: the PrefLib sets of config/paper.yaml (skate, breakfast, dots, puzzle), read from
the data mirror (``--mirror``, default ``$MANYJUDGES_MIRROR``) by the library's parser; for each
method (ac_tau ... rba_sp, frespa, consensus with default parameters) and noise ratio 0 and 1
(ratio 1 doubles the gold orderings: the dearest draw), the macro-averaged ED of ``--draws``
noise draws (one at ratio 0) exactly as an ``ed_noise`` job computes it. Reported: CPU seconds
per draw, and the largest absolute difference between the old and new leave-one-out terms
(every judge of every set and draw). The old consensus scorer cannot run dots or puzzle whole (its
leave-one-out builds one DAG per pair of the ~800 x 1600 orderings: gigabytes); it is also timed on
the first ``--subsample`` judges of each set.

Crowd: mirex2005 (parsed from the mirror), ``robustness_part`` with the 9 methods of the paper
config's ``crowd.robustness``, 20 replicates, for each ``--robustness-jobs`` kind:ratio; the CPU
seconds of the whole job and the largest absolute difference between the two tables' values.

Crowd per-method jobs: trec_rf10 (parsed from the mirror), ``aggregate_dataset`` of each
``--trec-methods`` method (``*_eq``: the method with ``skill: false``) over its 100 topics; the
CPU seconds and the largest absolute difference between the old and new scores.

Writes ``<out>/scorer_speed.tsv`` and ``<out>/scorer_speed.md`` (with the settings, versions,
machine and total wall time).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
NEW_SRC = REPO / "src"
BASELINE_REV = "4bc9b83"
DATASETS = ("skate", "breakfast", "dots", "puzzle")
METHODS = ("ac_tau", "ac_sp", "wca_tau", "wca_sp", "rba_tau", "rba_sp", "frespa", "consensus")
ROBUSTNESS_METHODS = ("crowdagg_ndcg", "crowdagg_rbp", "condorcet_fuse", "greedy_order", "bradley_terry", "mpm",
                      "crowd_bt", "em_elo_rating", "borda")
SEED = 20100328
COLUMNS = ("job", "dataset", "method", "noise_ratio", "draws", "old_cpu_s", "new_cpu_s", "speedup", "max_abs_diff",
           "old_status", "new_status", "notes")


# --------------------------------------------------------------------------- child side

def _orderings_panels(dataset: str, mirror: str) -> dict:
    from manyjudges.io.sources.preflib import parse_preflib_files
    from manyjudges.orderings.experiment import panels_from_table
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    paths = [_mirror_path(p, mirror) for p in _pinned_files(dataset)["repo_path"]
             if p.endswith((".soc", ".toc", ".soi", ".toi"))]
    return panels_from_table(parse_preflib_files(paths))


def _child_orderings(task: dict, out: Path) -> dict:
    from manyjudges.orderings.evaluation import leave_one_out_differences
    from manyjudges.orderings.experiment import noise_for
    from manyjudges.orderings.registry import make_ordering_scorer

    panels = _orderings_panels(task["dataset"], task["mirror"])
    if task.get("judges"):
        panels = {set_id: humans[: task["judges"]] for set_id, humans in panels.items()}
    scorer = make_ordering_scorer(task["method"], {})
    ratio, draws = task["ratio"], (1 if task["ratio"] == 0 else task["draws"])
    terms, eds = [], []
    start = time.process_time()
    for rep in range(draws):
        per_set = []
        for set_id, humans in panels.items():
            noise = noise_for(SEED, task["dataset"], ratio, rep, set_id, *humans.shape)
            per_set.append(leave_one_out_differences(scorer, humans, noise))
        eds.append(float(np.mean([t.mean() for t in per_set])))
        terms.append(np.concatenate(per_set))
    seconds = time.process_time() - start
    np.save(out, np.concatenate(terms))
    return {"cpu_s": seconds / draws, "draws": draws, "ed": float(np.mean(eds))}


def _child_robustness(task: dict, out: Path) -> dict:
    from manyjudges.crowd.data import load_crowd_dataset, parse_crowd_source, write_crowd_dataset
    from manyjudges.crowd.experiment import robustness_part
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = {Path(p).name: _mirror_path(p, task["mirror"]) for p in _pinned_files("mirex2005")["repo_path"]}
    judgments, truth = parse_crowd_source("mirex2005", files, {"n_grades": 5})
    with tempfile.TemporaryDirectory() as tmp:
        write_crowd_dataset(judgments, truth, tmp)
        dataset = load_crowd_dataset(tmp)
    methods = {m: {"method": m, "params": {}} for m in ROBUSTNESS_METHODS}
    start = time.process_time()
    table = robustness_part(dataset, methods, task["spammer"], task["ratio"], task["replicates"], SEED, "mirex2005",
                            relevant_grade=3)
    seconds = time.process_time() - start
    np.save(out, table["value"].to_numpy(dtype=float))
    keys = (table["replicate"].astype(str) + "|" + table["method"] + "|" + table["metric"]).tolist()
    return {"cpu_s": seconds, "draws": task["replicates"], "keys": keys}


def _child_crowd_method(task: dict, out: Path) -> dict:
    from manyjudges.crowd.data import load_crowd_dataset, parse_crowd_source, write_crowd_dataset
    from manyjudges.crowd.experiment import aggregate_dataset
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = {Path(p).name: _mirror_path(p, task["mirror"]) for p in _pinned_files("trec_rf10")["repo_path"]}
    judgments, truth = parse_crowd_source("trec_rf10", files, {})
    with tempfile.TemporaryDirectory() as tmp:
        write_crowd_dataset(judgments, truth, tmp)
        dataset = load_crowd_dataset(tmp)
    method, params = task["method"], {}
    if method.endswith("_eq") and not method.startswith("crowdagg"):
        method, params = method[: -len("_eq")], {"skill": False}
    start = time.process_time()
    rankings, _, _ = aggregate_dataset(dataset, task["method"], {"method": method, "params": params})
    seconds = time.process_time() - start
    np.save(out, rankings["score"].to_numpy(dtype=float))
    keys = (rankings["topic"].astype(str) + "|" + rankings["item"].astype(str)).tolist()
    return {"cpu_s": seconds, "draws": 1, "keys": keys}


CHILDREN = {"orderings": _child_orderings, "robustness": _child_robustness, "crowd_method": _child_crowd_method}


def child_main(task_json: str, out: str) -> None:
    task = json.loads(task_json)
    fn = CHILDREN[task["job"]]
    print(json.dumps(fn(task, Path(out))))


# --------------------------------------------------------------------------- parent side

def export_baseline(rev: str, into: Path) -> Path:
    """``git archive REV src`` of this repository, unpacked under ``into``; returns its src folder."""
    archive = into / "baseline.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run_child(src: Path, task: dict, out: Path, timeout: float, mem_gb: float) -> dict:
    """One measurement in a fresh interpreter importing the library from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}

    def limit() -> None:
        limit_bytes = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    cmd = [sys.executable, __file__, "--child", json.dumps(task), str(out)]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=limit if mem_gb else None)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "notes": f"killed after {timeout:g} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode:d}"])[-1]
        return {"status": "error", "notes": last[:200]}
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}


def compare(old: dict, new: dict, old_out: Path, new_out: Path) -> str:
    if old["status"] != "ok" or new["status"] != "ok":
        return "NA"
    a, b = np.load(old_out), np.load(new_out)
    if a.shape != b.shape or old.get("keys", []) != new.get("keys", []):
        return "MISMATCH(shape)"
    return f"{np.abs(a - b).max(initial=0.0):.3g}"


def fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4g}"


def measure(job: dict, old_src: Path, tmp: Path, args: argparse.Namespace) -> dict:
    tag = "_".join(str(job[k]) for k in sorted(job) if k not in ("mirror",))
    outs = {v: tmp / f"{v}_{tag}.npy" for v in ("old", "new")}
    res = {}
    for version, src in (("old", old_src), ("new", NEW_SRC)):
        res[version] = run_child(src, job, outs[version], args.timeout, args.mem_gb)
        print(f"  {version}: {res[version]}" if res[version]["status"] != "ok" else
              f"  {version}: {res[version]['cpu_s']:.4f} s", flush=True)
    old, new = res["old"], res["new"]
    ok = old["status"] == new["status"] == "ok"
    notes = "; ".join(f"{v}: {res[v]['notes']}" for v in ("old", "new") if res[v].get("notes"))
    if job["job"] == "orderings" and ok:
        notes = (notes + "; " if notes else "") + f"ED {new['ed']:.6f}"
    return {
        "job": job["job"], "dataset": job.get("dataset", "trec_rf10" if job["job"] == "crowd_method" else "mirex2005"),
        "method": job.get("method", f"{job.get('spammer')} (9 methods, {job.get('replicates')} replicates)")
        + (f" (first {job['judges']} judges per set)" if job.get("judges") else ""),
        "noise_ratio": job["ratio"], "draws": new.get("draws", old.get("draws", "")),
        "old_cpu_s": fmt(old.get("cpu_s")), "new_cpu_s": fmt(new.get("cpu_s")),
        "speedup": fmt(old["cpu_s"] / new["cpu_s"]) if ok and new["cpu_s"] > 0 else "",
        "max_abs_diff": compare(old, new, outs["old"], outs["new"]),
        "old_status": old["status"], "new_status": new["status"], "notes": notes,
    }


def git_commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "src"], capture_output=True,
                           text=True).stdout.strip()
    return done.stdout.strip() + (" (src has uncommitted changes)" if dirty else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=os.environ.get("MANYJUDGES_MIRROR"),
                    help="data mirror laid out <owner>/<repo>/<commit>/<path> (default $MANYJUDGES_MIRROR)")
    ap.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of the old code (git archive)")
    ap.add_argument("--baseline-src", help="a src folder of the old code instead of --baseline-rev")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    ap.add_argument("--draws", type=int, default=2, help="noise draws per (dataset, method) at ratio 1")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--robustness-jobs", default="random:0,random:0.5,malicious:1",
                    help="kind:ratio of the robustness jobs to time (empty: none)")
    ap.add_argument("--trec-methods", default="mpm,mpm_eq,em_elo_rating,em_elo_rating_eq,crowd_bt",
                    help="crowd methods whose per-method job on trec_rf10 is timed (empty: none)")
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--subsample", type=int, default=200,
                    help="also time consensus on dots/puzzle with the first N judges per set (0: no)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per child")
    ap.add_argument("--mem-gb", type=float, default=6.0, help="address-space limit per child (0: none)")
    ap.add_argument("--quick", action="store_true", help="1 draw, 2 replicates, one robustness job")
    args = ap.parse_args()
    if not args.mirror:
        ap.error("no data mirror: give --mirror DIR or set MANYJUDGES_MIRROR")
    if args.quick:
        args.draws, args.replicates, args.robustness_jobs, args.trec_methods = 1, 2, "random:0.5", "em_elo_rating"
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old_src = Path(args.baseline_src) if args.baseline_src else export_baseline(args.baseline_rev, tmp)
        for dataset in filter(None, args.datasets.split(",")):
            for method in filter(None, args.methods.split(",")):
                for ratio in (0.0, 1.0):
                    print(f"{dataset} {method} noise {ratio:g}", flush=True)
                    job = {"job": "orderings", "dataset": dataset, "method": method, "ratio": ratio,
                           "draws": args.draws, "mirror": args.mirror}
                    rows.append(measure(job, old_src, tmp, args))
                    if method == "consensus" and args.subsample and dataset in ("dots", "puzzle"):
                        print(f"{dataset} {method} noise {ratio:g}, first {args.subsample} judges", flush=True)
                        rows.append(measure({**job, "judges": args.subsample}, old_src, tmp, args))
        for method in filter(None, args.trec_methods.split(",")):
            print(f"trec_rf10 {method}", flush=True)
            job = {"job": "crowd_method", "method": method, "ratio": "", "mirror": args.mirror}
            rows.append(measure(job, old_src, tmp, args))
        for spec in filter(None, args.robustness_jobs.split(",")):
            kind, ratio = spec.split(":")
            print(f"robustness {kind} {ratio}", flush=True)
            job = {"job": "robustness", "spammer": kind, "ratio": float(ratio), "replicates": args.replicates,
                   "mirror": args.mirror}
            rows.append(measure(job, old_src, tmp, args))
    import numpy
    import scipy

    meta = [
        f"old: {args.baseline_src or 'git ' + args.baseline_rev}; new: {git_commit()}",
        "CPU seconds (time.process_time) of a fresh child per row, imports and data parsing excluded, "
        "OPENBLAS_NUM_THREADS=1; orderings: per noise draw (all sets of the dataset); robustness: the whole job",
        f"draws at noise 1: {args.draws}; robustness replicates: {args.replicates}; timeout {args.timeout:g} s, "
        f"memory {args.mem_gb:g} GB per child",
        f"python {platform.python_version()}, numpy {numpy.__version__}, scipy {scipy.__version__}; "
        f"{platform.machine()}, {os.cpu_count()} CPUs (shared), {platform.platform()}",
        f"total wall time {time.perf_counter() - started:.0f} s",
    ]
    from benchmarks.harness.timing import write_tables

    tsv, md = write_tables(rows, COLUMNS, Path(args.out), "scorer_speed", "Scorer and robustness speed: old vs new",
                           meta)
    print(f"wrote {tsv} and {md}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3])
    else:
        main()
