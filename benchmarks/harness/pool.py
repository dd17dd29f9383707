#!/usr/bin/env python3
"""The development pool: every real truth set of ``config/paper.yaml``, loaded from the data mirror.

    python -m benchmarks.harness.pool [--mirror DIR] [--config config/paper.yaml]

:func:`pool_sets` reads the config's truth section, keeps the sets with pinned files (not ``simulate``
nor a user's ``labels_table``), finds each set's pinned files in the mirror as the pipeline's download
rule does (``manyjudges.pipeline.workflow_support.raw_files``: the set's ``pinned`` key or its name in
``resources/datasets.tsv``, restricted to its ``files``; ``manyjudges.pipeline.download._mirror_path``), and
builds its tables with the library's own ``manyjudges.truth.data.truth_tables``. The script prints one
line per set: name, group (the config's ``group``, default the name), classes (K: the label codes seen
in labels and truth), items, judges, labels, truth items and the majority vote's accuracy on the truth
items (``manyjudges.truth.MajorityVote``, ties to the lowest class).
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from manyjudges.pipeline.download import _mirror_path
from manyjudges.pipeline.workflow_support import raw_files
from manyjudges.truth import MajorityVote
from manyjudges.truth.data import truth_tables
from manyjudges.truth.results import accuracy

REPO = Path(__file__).resolve().parents[2]

#: the truth sources without pinned files
NOT_PINNED = ("simulate", "labels_table")


@dataclass(frozen=True)
class PoolSet:
    """One real truth set: its config name and group, whether its classes are ordered, its labels
    (``item, judge, label``) and truth (``item, truth``) tables."""

    name: str
    group: str
    ordered: bool
    labels: pd.DataFrame
    truth: pd.DataFrame


def pool_sets(mirror: str | os.PathLike[str], config: str | os.PathLike[str] = REPO / "config" / "paper.yaml",
              seed: int = 0) -> list[PoolSet]:
    """Every real truth set of ``config`` (in its order), its pinned files read from ``mirror``."""
    with open(config, encoding="utf-8") as handle:
        loaded = yaml.safe_load(handle)
    out = []
    for name, spec in loaded["truth"]["datasets"].items():
        if spec["source"] in NOT_PINNED:
            continue
        files = [_mirror_path(entry["repo_path"], mirror) for _, entry in sorted(raw_files(loaded, name).items())]
        labels, truth = truth_tables(name, spec, files, seed)
        out.append(PoolSet(name, spec.get("group", name), bool(spec.get("ordinal", False)), labels, truth))
    return out


def summary(pool: PoolSet) -> dict[str, object]:
    """The printed line of one set: its shape and the majority vote's accuracy on its truth items."""
    labels, truth = pool.labels, pool.truth
    classes = len(np.union1d(labels["label"].to_numpy(), truth["truth"].to_numpy()))
    acc, _ = accuracy(MajorityVote().fit(labels).labels_, truth)
    return {"name": pool.name, "group": pool.group, "ordered": pool.ordered, "classes": classes,
            "items": labels["item"].nunique(), "judges": labels["judge"].nunique(), "labels": len(labels),
            "truth_items": len(truth), "mv_accuracy": round(acc, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"),
                    help="the data mirror root (default: $MANYJUDGES_MIRROR)")
    ap.add_argument("--config", type=Path, default=REPO / "config" / "paper.yaml")
    args = ap.parse_args()
    if args.mirror is None or not Path(args.mirror).is_dir():
        ap.error("give --mirror DIR or set MANYJUDGES_MIRROR")
    table = pd.DataFrame([summary(p) for p in pool_sets(args.mirror, args.config)])
    print(table.to_string(index=False))
    print(f"{len(table)} sets in {table['group'].nunique()} groups")


if __name__ == "__main__":
    main()
