#!/usr/bin/env python3
"""Every built-in graded method through ``manyjudges graded evaluate`` with its defaults, on a
simulated crowd panel of 825 judges: wall time, CPU time and peak memory per method.

    python -m benchmarks.speed.graded_crowd_panel [--judges 825] [--items 11040] [--labels-per-item 11]
                                                  [--methods m1 m4 ...] [--old-ref REV --old-methods m4]
                                                  [--timeout 300] [--out benchmarks/results]

The panel: ``manyjudges.truth.simulate.simulate_labels`` with 4 ordered classes (a good judge's
errors fall on a neighbouring class), 11 labels an item from judges drawn with weight
(j + 1)^-1 (``workload_skew`` 1: a few judges label thousands of items, most a few dozen), the
default mix of good, random and biased judges, seed 2010. Each method runs as the command a
user types (one process, whatever BLAS threads it picks): the command's default folds apply
(above 40 judges: 10 outer and 5 inner, said on stderr). ``--old-ref`` runs the command of
another git revision (extracted with ``git archive``) on the same file, one after the other,
stopped after ``--timeout`` seconds.

Writes ``<out>/graded_crowd_panel.{tsv,md}``.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

METHODS = ("m1", "m2", "m3", "m23", "m4", "m5", "dawid_skene", "m4_learned")
COLUMNS = ("code", "method", "judges", "labels", "wall_s", "cpu_s", "peak_rss_mb", "total_loglik", "status")


def write_panel(path: Path, judges: int, items: int, labels_per_item: int, seed: int) -> int:
    """The simulated grades table (item, judge, label) at ``path``; returns the number of labels.

    Simulated in a child process: Linux reports a child's peak memory as at least its parent's at
    the fork, so the parent that starts the timed commands must stay small."""
    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); "
            "from manyjudges.truth.simulate import simulate_labels; "
            "labels, _, _ = simulate_labels(np.random.default_rng(int(sys.argv[6])), n_items=int(sys.argv[4]), "
            "n_judges=int(sys.argv[3]), labels_per_item=int(sys.argv[5]), n_classes=4, ordinal=True, "
            "workload_skew=1.0); "
            "labels.rename(columns={'worker': 'judge'}).to_csv(sys.argv[2], sep='\\t', index=False); "
            "print(len(labels))")
    out = subprocess.run([sys.executable, "-c", code, str(REPO / "src"), str(path), str(judges), str(items),
                          str(labels_per_item), str(seed)], check=True, capture_output=True, text=True).stdout
    return int(out.split()[-1])


def run_command(src: Path, grades: Path, method: str, out: Path, timeout: float) -> dict:
    """``manyjudges graded evaluate GRADES --method M`` on the code in ``src``: wall and CPU seconds,
    peak RSS (os.wait4's ru_maxrss of the child), the total held-out log probability."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "manyjudges", "graded", "evaluate", str(grades), "--method", method,
                             "-o", str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    status = "ok"
    deadline = start + timeout
    while True:
        pid, code, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, code, usage = os.wait4(proc.pid, 0)
            status = f"stopped after {timeout:.0f} s"
            break
        time.sleep(0.05)
    wall = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    if status == "ok" and code != 0:
        status = (err.strip().splitlines() or [f"exit {code}"])[-1]
    total = ""
    if status == "ok":  # the method's rows' loglik column, summed (no pandas here: the parent stays small)
        lines = [line.split("\t") for line in out.read_text().splitlines()]
        header = lines[0]
        rows = [dict(zip(header, line)) for line in lines[1:]]
        total = f"{sum(float(r['loglik']) for r in rows if r['method'] == method):.3f}"
    return {"wall_s": f"{wall:.1f}", "cpu_s": f"{usage.ru_utime + usage.ru_stime:.1f}",
            "peak_rss_mb": f"{usage.ru_maxrss / 1024:.0f}", "total_loglik": total, "status": status}


def old_source(ref: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src/manyjudges"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judges", type=int, default=825)
    ap.add_argument("--items", type=int, default=11040)
    ap.add_argument("--labels-per-item", type=int, default=11)
    ap.add_argument("--seed", type=int, default=2010)
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--old-ref", help="also run this git revision's command (e.g. the commit before the folds)")
    ap.add_argument("--old-methods", nargs="+", default=["m1", "m4"], choices=METHODS)
    ap.add_argument("--timeout", type=float, default=300.0, help="stop a run after this many seconds (300)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    args = ap.parse_args(argv)
    from benchmarks.harness.timing import write_tables

    rows = []
    with tempfile.TemporaryDirectory(prefix="graded_crowd_") as tmp:
        tmp = Path(tmp)
        grades = tmp / "grades.tsv"
        n_labels = write_panel(grades, args.judges, args.items, args.labels_per_item, args.seed)
        codes = [("current", REPO / "src", args.methods)]
        if args.old_ref:
            codes.append((args.old_ref, old_source(args.old_ref, tmp / "old"), args.old_methods))
        for method in METHODS:
            for code, src, methods in codes:
                if method not in methods:
                    continue
                result = run_command(src, grades, method, tmp / f"{code}_{method}.tsv", args.timeout)
                rows.append({"code": code, "method": method, "judges": args.judges, "labels": n_labels, **result})
                print("\t".join(str(rows[-1][c]) for c in COLUMNS), flush=True)
    meta = [f"simulated panel: {args.judges} judges, {args.items} items, {args.labels_per_item} labels an item "
            f"({n_labels} labels), K = 4 ordered, workload_skew 1, seed {args.seed}",
            "each row: `manyjudges graded evaluate grades.tsv --method M` with its defaults, one process; wall_s "
            "and cpu_s (user + system) in seconds, peak_rss_mb the process's peak resident memory",
            f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}"]
    tsv, md = write_tables(rows, COLUMNS, args.out, "graded_crowd_panel",
                           "Graded methods on a simulated 825-judge crowd panel", meta)
    print(f"wrote {tsv} and {md}")


if __name__ == "__main__":
    main()
