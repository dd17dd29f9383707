"""Truth inference at scale: `manyjudges truth infer` end to end on 1M, 10M and 100M simulated labels.

Two shapes of table, each written once per size (``--shapes``):

- ``integer``: spark-crowd's binary shape (items x 10 labels, 2 classes, 1,000 judges of one-coin
  accuracy U(0.55, 0.95); ``manyjudges.truth.simulate._write_simulated_labels``), integer ids, rows
  sorted by item;
- ``text``: a table as users have it: text ids (items ``doc-<n>``, n drawn without repeats from
  0..3 x items - 1; judges ``w<n>``), rows in random order, items x 10 labels from 10 distinct judges
  of 10,000, 3 classes, each judge right with probability U(0.5, 0.9) and else one of the two other
  classes at random (:func:`write_text_labels`, seed 5).

Then, in the same run, for each table:

- ``pandas.read_csv`` of the file (C engine; its default parse, which reads integer ids as int64 and
  text as pyarrow strings under pandas 3, and with ``dtype=str``, which keeps ids as text as ours
  does), and ``pyarrow.csv.read_csv`` (tab-separated, else its defaults), each in a fresh process: the call's seconds,
  the process's wall seconds (importing included) and its peak RSS;
- ``manyjudges truth infer FILE --method M --truth TRUTH -o OUT`` for majority vote, Wawa, one-coin and
  full Dawid-Skene, each in a fresh process: wall seconds, peak RSS (the child's ru_maxrss),
  accuracy; then the same steps in another fresh process, timed one by one (import, read the
  labels as the command reads them, sorted for the fit unless the method reads rows in file order,
  read the truth, fit, write the labels table).

    python -m benchmarks.speed.truth_scale --sizes 1e6 1e7 1e8 --shapes integer text --work /tmp/scale \
        -o benchmarks/runs/truth_scale.tsv

Files are kept in ``--work`` (1.4 GB for 1e8 integer labels, 2.0 GB for text) and reused when present.
Peak RSS is read from ``resource.getrusage(RUSAGE_CHILDREN)`` of a one-child wrapper, so each figure is
its own process's.
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
from manyjudges.io.tables.labels import read_crowd_labels, read_truth
from manyjudges.io.engine.table_text import write_table
from manyjudges.truth.results import fit_method, labels_table
from manyjudges.truth.registry import make_truth_estimator
seconds = {"import_s": time.perf_counter() - start}
def step(name, fn):
    t = time.perf_counter(); out = fn(); seconds[name] = time.perf_counter() - t; return out
estimator = make_truth_estimator(sys.argv[3])
data = step("read_s", lambda: read_crowd_labels(sys.argv[1], sort=not estimator.uses_row_order()))
truth = step("truth_s", lambda: read_truth(sys.argv[2], labels=data))
estimator, _ = step("fit_s", lambda: fit_method(estimator, data))
step("write_s", lambda: write_table(labels_table(estimator), sys.argv[4]))
print(json.dumps(seconds))
"""

_PANDAS = """
import sys, time, pandas as pd
dtype = str if sys.argv[2] == "str" else None
start = time.perf_counter(); table = pd.read_csv(sys.argv[1], sep="\\t", dtype=dtype)
print(len(table), time.perf_counter() - start)
"""

_PYARROW = """
import sys, time, pyarrow.csv as pacsv
start = time.perf_counter(); table = pacsv.read_csv(sys.argv[1], parse_options=pacsv.ParseOptions(delimiter="\\t"))
print(len(table), time.perf_counter() - start)
"""

#: rows written at a time by write_text_labels
_BLOCK = 10_000_000


def write_text_labels(labels: Path, truth: Path, n_labels: int, seed: int = 5) -> None:
    """Write the ``text`` shape (module docstring): ``labels`` (item, judge, label), ``truth`` (item, truth)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    n_items, per, n_judges = n_labels // 10, 10, 10_000
    item = np.repeat(np.arange(n_items, dtype=np.int64), per)
    judge = (np.repeat(rng.integers(0, n_judges, n_items), per) + np.tile(np.arange(per), n_items)) % n_judges
    truth_class = rng.integers(0, 3, n_items)
    right = rng.random(len(item)) < rng.uniform(0.5, 0.9, n_judges)[judge]
    label = np.where(right, truth_class[item], (truth_class[item] + rng.integers(1, 3, len(item))) % 3)
    rows = rng.permutation(len(item))
    number = rng.permutation(3 * n_items)[:n_items]

    def text(prefix: str, values: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise(pa.scalar(prefix), pc.cast(pa.array(values), pa.string()), "")

    options = pacsv.WriteOptions(delimiter="\t", quoting_style="none", include_header=False)
    with open(labels, "wb") as handle:
        handle.write(b"item\tjudge\tlabel\n")
        for start in range(0, len(rows), _BLOCK):
            part = rows[start:start + _BLOCK]
            pacsv.write_csv(pa.table({"item": text("doc-", number[item[part]]), "judge": text("w", judge[part]),
                                      "label": pa.array(label[part])}), handle, options)
    with open(truth, "wb") as handle:
        handle.write(b"item\ttruth\n")
        pacsv.write_csv(pa.table({"item": text("doc-", number), "truth": pa.array(truth_class)}), handle, options)


def measured(command: list[str]) -> tuple[dict, str]:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


def peer_rows(labels: Path, shape: str, n_labels: int) -> list[dict]:
    """pandas' two parses and pyarrow's of ``labels``, each in a fresh process."""
    out = []
    peers = (("pandas.read_csv (default)", _PANDAS, "default"), ("pandas.read_csv (dtype=str)", _PANDAS, "str"),
             ("pyarrow.csv.read_csv", _PYARROW, "-"))
    for tool, script, arg in peers:
        peer, text = measured([sys.executable, "-c", script, str(labels), arg])
        out.append({"shape": shape, "labels": n_labels, "tool": tool, "method": "-", "wall_s": round(peer["wall"], 2),
                    "read_s": round(float(text.split()[1]), 2), "peak_mb": round(peer["peak_mb"])})
        print(out[-1], file=sys.stderr)
    return out


def run_size(work: Path, shape: str, n_labels: int, methods: list[str]) -> list[dict]:
    """The peers' rows and each method's row for one table (written first when absent)."""
    from manyjudges.truth.simulate import _write_simulated_labels

    tag = "" if shape == "integer" else "text_"
    labels, truth = work / f"{tag}labels_{n_labels}.tsv", work / f"{tag}truth_{n_labels}.tsv"
    if not labels.exists():
        start = time.perf_counter()
        if shape == "integer":
            _write_simulated_labels(labels, truth, n_items=n_labels // 10, labels_per_item=10, seed=0)
        else:
            write_text_labels(labels, truth, n_labels)
        print(f"wrote {labels} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    rows = peer_rows(labels, shape, n_labels)
    for method in methods:
        out = work / f"out_{tag}{method}_{n_labels}.tsv"
        result, text = measured([sys.executable, "-m", "manyjudges", "truth", "infer", str(labels),
                                 "--method", method, "--truth", str(truth), "-o", str(out)])
        found = re.search(r"accuracy ([0-9.]+)", text)
        steps, steps_text = measured([sys.executable, "-c", _STEPS, str(labels), str(truth), method, str(out)])
        split = json.loads(steps_text.strip().splitlines()[0]) if steps["rc"] == 0 else {}
        rows.append({"shape": shape, "labels": n_labels, "tool": "manyjudges truth", "method": method,
                     "wall_s": round(result["wall"], 2), **{k: round(v, 2) for k, v in split.items()},
                     "peak_mb": round(result["peak_mb"]), "accuracy": float(found.group(1)) if found else None})
        if result["rc"] != 0:
            rows[-1]["accuracy"] = f"failed: {text.strip().splitlines()[-1][:200]}"
        print(rows[-1], file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7, 1e8], help="labels per table")
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--shapes", nargs="+", choices=["integer", "text"], default=["integer", "text"])
    parser.add_argument("--work", default="benchmarks/runs/scale", help="folder for the generated tables")
    parser.add_argument("-o", "--output", default="benchmarks/runs/truth_scale.tsv")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for shape in args.shapes:
        for size in args.sizes:
            rows += run_size(work, shape, int(size), args.methods)
    write_rows(rows, args.output)


def write_rows(rows: list[dict], output: str) -> None:
    """Write ``rows`` as a TSV at ``output`` (its folder made if needed) and print them as a table."""
    table = pd.DataFrame(rows)
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(output, sep="\t", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
