"""Reading speed of the graded and crowd doors: each reader against pandas' read of the same file.

Two tables, each written once per size (``--sizes``, rows) into ``--work`` and reused when present:

- ``grades``: the ``text`` shape of ``benchmarks/speed/truth_scale.py`` (``write_text_labels``, seed 5: text
  ids ``doc-<n>`` and ``w<n>``, rows in random order, rows / 10 items x 10 grades from 10,000 judges,
  3 classes), read as a grades table (``item, judge, label``);
- ``preferences``: ``topic, judge, left, right, outcome`` with topics ``t<n>`` (100), judges ``w<n>``
  (5,000), left ``doc-<n>`` of 100,000 items and right the item 1 to 999 places further round, outcome
  left, right or tie, each uniform (``write_preferences``, seed 0).

Then, in the same run, for each table, each in a fresh process (the call timed inside the process, the
process's wall seconds with its imports, and its peak RSS from ``resource.getrusage(RUSAGE_CHILDREN)``
of a one-child wrapper):

- ``pandas.read_csv(FILE, sep="\\t")``;
- ``manyjudges.io.tables.grades.read_grades_table(FILE, None)`` for grades, and
  ``manyjudges.io.tables.preferences.read_preferences(FILE)`` for preferences (each the checked table, ids as
  str).

    python -m benchmarks.speed.reading --sizes 1e6 1e7 --work /tmp/reads -o benchmarks/runs/read_speed.tsv
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks.speed.truth_scale import measured, write_rows, write_text_labels

_PANDAS = """
import sys, time, pandas as pd
start = time.perf_counter(); table = pd.read_csv(sys.argv[1], sep="\\t")
print(len(table), time.perf_counter() - start)
"""

_GRADES = """
import sys, time
from manyjudges.io.tables.grades import read_grades_table
start = time.perf_counter(); table = read_grades_table(sys.argv[1], None).grades
print(len(table), time.perf_counter() - start)
"""

_PREFERENCES = """
import sys, time
from manyjudges.io.tables.preferences import read_preferences
start = time.perf_counter(); table = read_preferences(sys.argv[1])
print(len(table), time.perf_counter() - start)
"""

READERS = {"grades": ("read_grades_table", _GRADES), "preferences": ("read_preferences", _PREFERENCES)}


def write_preferences(path: Path, n_rows: int, seed: int = 0) -> None:
    """Write the ``preferences`` table of the module docstring."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)

    def text(prefix: str, values: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise(pa.scalar(prefix), pc.cast(pa.array(values), pa.string()), "")

    left = rng.integers(0, 100_000, n_rows)
    right = (left + rng.integers(1, 1_000, n_rows)) % 100_000
    table = pa.table({"topic": text("t", rng.integers(0, 100, n_rows)),
                      "judge": text("w", rng.integers(0, 5_000, n_rows)),
                      "left": text("doc-", left), "right": text("doc-", right),
                      "outcome": pa.array(np.array(["left", "right", "tie"])[rng.integers(0, 3, n_rows)])})
    with open(path, "wb") as handle:
        handle.write(b"topic\tjudge\tleft\tright\toutcome\n")
        pacsv.write_csv(table, handle, pacsv.WriteOptions(delimiter="\t", quoting_style="none", include_header=False))


def table_file(work: Path, kind: str, n_rows: int) -> Path:
    """The ``kind`` table of ``n_rows`` rows in ``work``, written first when absent."""
    path = work / (f"text_labels_{n_rows}.tsv" if kind == "grades" else f"preferences_{n_rows}.tsv")
    if not path.exists():
        start = time.perf_counter()
        if kind == "grades":
            write_text_labels(path, work / f"text_truth_{n_rows}.tsv", n_rows)
        else:
            write_preferences(path, n_rows)
        print(f"wrote {path} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return path


def run(work: Path, kind: str, n_rows: int) -> list[dict]:
    """pandas' read and ours of one table, each in a fresh process."""
    path = table_file(work, kind, n_rows)
    rows = []
    for tool, script in (("pandas.read_csv", _PANDAS), READERS[kind]):
        result, text = measured([sys.executable, "-c", script, str(path)])
        rows.append({"table": kind, "rows": n_rows, "tool": tool, "wall_s": round(result["wall"], 2),
                     "read_s": round(float(text.split()[1]), 2) if result["rc"] == 0 else None,
                     "peak_mb": round(result["peak_mb"])})
        print(rows[-1], file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7], help="rows per table")
    parser.add_argument("--tables", nargs="+", choices=sorted(READERS), default=sorted(READERS))
    parser.add_argument("--work", default="benchmarks/runs/reads", help="folder for the generated tables")
    parser.add_argument("-o", "--output", default="benchmarks/runs/read_speed.tsv")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    write_rows([row for kind in args.tables for size in args.sizes for row in run(work, kind, int(size))], args.output)


if __name__ == "__main__":
    main()
