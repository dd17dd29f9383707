"""Do two pipeline runs give the same tables? Byte by byte, and else by how much they differ.

    python -m benchmarks.pipeline.compare_runs RUN_A RUN_B [--tolerance 1e-9]

Compares the result tables ``results/{family}/{dataset}/*.tsv`` (with ``--all``, every
``results/**/*.tsv``, the per-job parts too) of two run directories (the working directories of
two ``snakemake`` runs, e.g. the same config before and after a change). Measured times are left
out: ``runtime.tsv`` files and any column named ``seconds``. A table is ``identical`` (same
bytes once the times are dropped), ``close`` (same shape, same text cells, every number within
``--tolerance``, absolute) or ``different``; one line per table that is not identical, then a
count. Exit status 0 when no table is ``different`` and both runs have the same tables.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

TIME_COLUMNS = ("seconds",)
TIME_TABLES = ("runtime.tsv",)


def tables(run: Path, every: bool = False) -> set[str]:
    """Relative paths of a run's result tables (``every``: per-job parts too), measured times left out."""
    found = (run / "results").rglob("*.tsv") if every else (run / "results").glob("*/*/*.tsv")
    return {str(p.relative_to(run)) for p in found if p.name not in TIME_TABLES}


def _read(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    return df.drop(columns=[c for c in TIME_COLUMNS if c in df.columns])


def compare_table(a: Path, b: Path, tolerance: float) -> tuple[str, str]:
    """(verdict, detail) for one table of the two runs."""
    x, y = _read(a), _read(b)
    if x.equals(y):
        return "identical", ""
    if list(x.columns) != list(y.columns) or x.shape != y.shape:
        return "different", f"shape {x.shape} vs {y.shape}, columns {list(x.columns)} vs {list(y.columns)}"
    worst, where = 0.0, ""
    for col in x.columns:
        if x[col].equals(y[col]):
            continue
        u, v = pd.to_numeric(x[col], errors="coerce"), pd.to_numeric(y[col], errors="coerce")
        texts = u.isna() | v.isna()
        if (x[col][texts] != y[col][texts]).any():
            row = int(np.flatnonzero((x[col] != y[col]) & texts)[0])
            return "different", f"column {col}, row {row + 1}: {x[col][row]!r} vs {y[col][row]!r}"
        diff = float((u - v).abs().max())
        if diff > worst:
            worst, where = diff, col
    verdict = "close" if worst <= tolerance else "different"
    return verdict, f"max |a - b| = {worst:.3g} (column {where})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_a", type=Path)
    ap.add_argument("run_b", type=Path)
    ap.add_argument("--all", action="store_true", help="compare the per-job parts too (same job layout)")
    ap.add_argument("--tolerance", type=float, default=1e-9, help="largest absolute difference of a 'close' table")
    args = ap.parse_args(argv)
    a, b = tables(args.run_a, args.all), tables(args.run_b, args.all)
    counts = {"identical": 0, "close": 0, "different": 0}
    for path in sorted(a & b):
        verdict, detail = compare_table(args.run_a / path, args.run_b / path, args.tolerance)
        counts[verdict] += 1
        if verdict != "identical":
            print(f"{verdict}\t{path}\t{detail}")
    for path in sorted(a ^ b):
        print(f"only in {'A' if path in a else 'B'}\t{path}")
    print(", ".join(f"{n} {v}" for v, n in counts.items()) + f" of {len(a & b)} tables in both runs; "
          f"{len(a - b)} only in A, {len(b - a)} only in B")
    return 0 if counts["different"] == 0 and a == b else 1


if __name__ == "__main__":
    raise SystemExit(main())
