"""Truth inference at scale: `manyjudges truth infer` end to end on 1M, 10M and 100M simulated labels.

For each size a simulated labels table of spark-crowd's binary shape (items x 10 labels, 2 classes,
1,000 judges of one-coin accuracy U(0.55, 0.95); ``manyjudges.truth.simulate.write_simulated_labels``)
is written once, then, in the same run:

- ``pandas.read_csv`` of the file (C engine; its default parse, which reads these integer ids as
  int64, and with ``dtype=str``, which keeps ids as text as ours does), seconds and the child's
  peak RSS;
- ``manyjudges truth infer FILE --method M --truth TRUTH -o OUT`` for majority vote, Wawa, one-coin and
  full Dawid-Skene, each in a fresh process: wall seconds, peak RSS (the child's ru_maxrss),
  accuracy; then the same steps in another fresh process, timed one by one (import, read the
  labels, read the truth, fit, write the labels table).

    python benchmarks/truth_scale.py --sizes 1e6 1e7 1e8 --work /tmp/scale -o benchmarks/runs/truth_scale.tsv

Files are kept in ``--work`` (1.4 GB for 1e8 labels) and reused when present. Peak RSS is read from
``resource.getrusage(RUSAGE_CHILDREN)`` of a one-child wrapper, so each figure is its own process's.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

METHODS = ("majority_vote", "wawa", "one_coin_dawid_skene", "dawid_skene")

#: runs one command and prints its wall seconds and peak RSS (MB) as JSON on the last line
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(proc.stdout[-2000:]); print(proc.stderr[-4000:])
print(json.dumps({"rc": proc.returncode, "wall": wall, "peak_mb": peak}))
"""

_STEPS = """
import json, sys, time
start = time.perf_counter()
from manyjudges.io.labels import read_crowd_labels, read_truth
from manyjudges.io.table_text import write_table
from manyjudges.truth.results import fit_method, labels_table
from manyjudges.truth.registry import make_truth_estimator
seconds = {"import_s": time.perf_counter() - start}
def step(name, fn):
    t = time.perf_counter(); out = fn(); seconds[name] = time.perf_counter() - t; return out
data = step("read_s", lambda: read_crowd_labels(sys.argv[1]))
truth = step("truth_s", lambda: read_truth(sys.argv[2], labels=data))
estimator, _ = step("fit_s", lambda: fit_method(make_truth_estimator(sys.argv[3]), data))
step("write_s", lambda: write_table(labels_table(estimator), sys.argv[4]))
print(json.dumps(seconds))
"""

_PANDAS = """
import sys, time, pandas as pd
dtype = str if sys.argv[2] == "str" else None
start = time.perf_counter(); table = pd.read_csv(sys.argv[1], sep="\\t", dtype=dtype)
print(len(table), time.perf_counter() - start)
"""


def measured(command: list[str]) -> tuple[dict, str]:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7, 1e8], help="labels per table")
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--work", default="benchmarks/runs/scale", help="folder for the generated tables")
    parser.add_argument("-o", "--output", default="benchmarks/runs/truth_scale.tsv")
    args = parser.parse_args()
    from manyjudges.truth.simulate import write_simulated_labels

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        n_labels = int(size)
        labels, truth = work / f"labels_{n_labels}.tsv", work / f"truth_{n_labels}.tsv"
        if not labels.exists():
            start = time.perf_counter()
            write_simulated_labels(labels, truth, n_items=n_labels // 10, labels_per_item=10, seed=0)
            print(f"wrote {labels} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        for dtype in ("inferred", "str"):  # pandas' default parse (integers here), and ids kept as text as ours
            peer, text = measured([sys.executable, "-c", _PANDAS, str(labels), dtype])
            rows.append({"labels": n_labels, "tool": f"pandas.read_csv ({dtype})", "method": "-",
                         "wall_s": round(peer["wall"], 2), "read_s": round(float(text.split()[1]), 2),
                         "peak_mb": round(peer["peak_mb"])})
            print(rows[-1], file=sys.stderr)
        for method in args.methods:
            out = work / f"out_{method}_{n_labels}.tsv"
            result, text = measured([sys.executable, "-m", "manyjudges", "truth", "infer", str(labels),
                                     "--method", method, "--truth", str(truth), "-o", str(out)])
            found = re.search(r"accuracy ([0-9.]+)", text)
            steps, steps_text = measured([sys.executable, "-c", _STEPS, str(labels), str(truth), method, str(out)])
            split = json.loads(steps_text.strip().splitlines()[0]) if steps["rc"] == 0 else {}
            rows.append({"labels": n_labels, "tool": "manyjudges truth", "method": method,
                         "wall_s": round(result["wall"], 2),
                         **{k: round(v, 2) for k, v in split.items()},
                         "peak_mb": round(result["peak_mb"]),
                         "accuracy": float(found.group(1)) if found else None})
            if result["rc"] != 0:
                rows[-1]["accuracy"] = f"failed: {text.strip().splitlines()[-1][:200]}"
            print(rows[-1], file=sys.stderr)
    table = pd.DataFrame(rows)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.output, sep="\t", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
