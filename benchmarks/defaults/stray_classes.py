#!/usr/bin/env python3
"""Where the stray-class warning fires: every set of the development pool and every simulated panel.

    python -m benchmarks.defaults.stray_classes [--mirror DIR] [--files]
    python -m benchmarks.defaults.stray_classes --speed 30000000

Each set's labels are coded as the library's fit codes a table without declared classes
(``manyjudges.core.coded_labels.as_crowd_labels``); with ``--files`` each is also written to a temporary
TSV and read back as ``manyjudges truth infer`` reads it (``manyjudges.io.tables.labels.read_crowd_labels``). One
line per set: name, labels, classes (K), the rarest class, its labels and the judges who gave them, the
outside codes and rare classes of ``manyjudges.core.stray_classes`` and the warnings each door gave; the
warnings' text on stderr. The last line is LLMJudge's run grades as its files give them
(:func:`llmjudge_as_published`), with the three grades outside 0-3 that the pool's reader drops.

``--speed N``: what the check costs. N labels of 3 classes from 10,000 judges (int32 codes, seed 0), then the
same with one label set to a fourth class (a rare class, whose labels are looked up too): the seconds of
``_stray_class_messages`` (best of 3), per label, and its peak temporary memory (``tracemalloc``).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from benchmarks.harness.pool import pool_sets
from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.core.stray_classes import (
    StrayClassesWarning,
    _outside_codes,
    _rare_classes,
    _stray_class_messages,
)
from manyjudges.io.sources.llmjudge import _LLMJUDGE_GOLD
from manyjudges.io.tables.labels import read_crowd_labels
from manyjudges.pipeline.download import _mirror_path
from manyjudges.pipeline.workflow_support import raw_files
from manyjudges.truth.scenarios import simulated_suite

REPO = Path(__file__).resolve().parents[2]


def caught(call, *args, **kwargs) -> tuple[object, list[str]]:
    """(what ``call`` returns, the stray-class warnings it gave)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, [str(w.message) for w in seen if issubclass(w.category, StrayClassesWarning)]


def row(name: str, labels: pd.DataFrame, files: bool) -> dict[str, object]:
    """The printed line of one set."""
    data, messages = caught(as_crowd_labels, labels, duplicates="keep")
    counts = np.bincount(data.label, minlength=data.n_classes)
    rarest = int(np.argmin(np.where(counts > 0, counts, np.iinfo(np.int64).max)))
    out = {"set": name, "labels": data.n_labels, "classes": data.n_classes, "rarest": data.classes[rarest],
           "rarest_labels": int(counts[rarest]),
           "rarest_judges": len(np.unique(data.judge[data.label == rarest])),
           "outside": _outside_codes(counts).tolist(),
           "rare": _rare_classes(counts, data.label, data.judge)[0].tolist(),
           "warnings": len(messages)}
    if files:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "labels.tsv"
            labels.to_csv(path, sep="\t", index=False)
            out["file_warnings"] = len(caught(read_crowd_labels, path, duplicates="keep")[1])
    for message in messages:
        print(f"{name}: {message}", file=sys.stderr)
    return out


def llmjudge_as_published(mirror: Path, config: Path = REPO / "config" / "paper.yaml") -> pd.DataFrame:
    """LLMJudge's run grades as the files give them, the grades outside 0-3 kept (the pool's reader drops them).

    Every line ``qid 0 pid grade`` of every run file of the config's ``llmjudge`` set: item ``qid:pid``, judge
    the run (the file's stem), label the grade.
    """
    with open(config, encoding="utf-8") as handle:
        loaded = yaml.safe_load(handle)
    rows = []
    for _, entry in sorted(raw_files(loaded, "llmjudge").items()):
        path = Path(_mirror_path(entry["repo_path"], mirror))
        if path.name == _LLMJUDGE_GOLD:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split()
            if len(fields) == 4:
                rows.append((f"{fields[0]}:{fields[2]}", path.stem, int(fields[3])))
    return pd.DataFrame(rows, columns=["item", "judge", "label"])


def speed(n: int) -> None:
    """Print what the check costs on ``n`` labels, clean and with one rare class (see the module docstring)."""
    rng = np.random.default_rng(0)
    label = rng.integers(0, 3, n).astype(np.int32)
    judge = rng.integers(0, 10_000, n).astype(np.int32)
    judges = np.arange(10_000)
    for case in ("clean", "one rare class"):
        if case == "one rare class":
            label[n // 2] = 3
        classes = np.arange(int(label.max()) + 1)
        seconds = []
        for _ in range(3):
            start = time.perf_counter()
            _stray_class_messages(label, judge, classes, judges, True)
            seconds.append(time.perf_counter() - start)
        tracemalloc.start()
        _stray_class_messages(label, judge, classes, judges, True)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{case}: {n:,} labels, {min(seconds):.3f} s, {min(seconds) / n * 1e9:.2f} ns a label, "
              f"peak temporary {peak / 2**20:.1f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"),
                    help="the data mirror root (default: $MANYJUDGES_MIRROR)")
    ap.add_argument("--files", action="store_true", help="also write each set to a TSV and read it back")
    ap.add_argument("--speed", type=int, metavar="N", help="time the check on N simulated labels instead")
    args = ap.parse_args()
    if args.speed:
        speed(args.speed)
        return
    if args.mirror is None or not Path(args.mirror).is_dir():
        ap.error("give --mirror DIR or set MANYJUDGES_MIRROR")
    sets = [(p.name, p.labels) for p in pool_sets(args.mirror)]
    sets += [(name, panel[0]) for name, panel in simulated_suite(0).items()]
    sets.append(("llmjudge as published", llmjudge_as_published(args.mirror)))
    table = pd.DataFrame([row(name, labels, args.files) for name, labels in sets])
    print(table.to_string(index=False))
    print(f"{len(table)} sets; the warning fired on {int((table['warnings'] > 0).sum())}")


if __name__ == "__main__":
    main()
