"""The truth sets of the data mirror that the truth benchmarks share, and the arguments that find them.

The five benchmark sets (``label.csv``: item, judge, label; ``truth.csv``: item, truth), ``trec_rf10`` (TREC 2010
RF's 0/1/2 crowd labels with NIST's as truth) and the six Snow et al. (2008) affect tasks, read from the data mirror,
nothing copied.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]

#: TREC 2010 RF's crowd labels with NIST's as truth (3 classes), the graded data set ``trec_rf10``
TREC_RF10 = "axelabels/CDM_BIAS/68aaa11dd12638f79bb01a2ec49012fb43c2d5ec/trec-rf10-crowd/trec-rf10-data.txt"
#: the sets, under the mirror root
SOURCE = "yuan-li/truth-inference-at-scale/621789b2d57324d3559dc973b2613d2296d73f55/data"
DATASETS = {
    "jn-product": "crowd_truth_inference/d_jn-product",
    "sentiment": "crowd_truth_inference/d_sentiment",
    "rte": "SpectralMethodsMeetEM/rte",
    "dog": "SpectralMethodsMeetEM/dog",
    "trec": "SpectralMethodsMeetEM/trec",
    "trec_rf10": TREC_RF10,
}
#: the Snow et al. affect tasks, under the mirror root
SNOW = "axelabels/CDM_BIAS/68aaa11dd12638f79bb01a2ec49012fb43c2d5ec/snow2008"
SNOW_TASKS = ("anger", "disgust", "fear", "joy", "sadness", "surprise")


def add_mirror_arguments(ap: argparse.ArgumentParser) -> None:
    """``--mirror DIR`` and ``--out DIR``, the two arguments every truth benchmark takes."""
    ap.add_argument("--mirror", type=Path, default=None, help="the data mirror root (default: $MANYJUDGES_MIRROR)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")


def mirror_root(ap: argparse.ArgumentParser, args: argparse.Namespace) -> Path:
    """``--mirror`` or ``$MANYJUDGES_MIRROR``; a command-line error when the benchmark sets are not under it."""
    mirror = args.mirror or Path(os.environ.get("MANYJUDGES_MIRROR", ""))
    if not (mirror / SOURCE).is_dir():
        ap.error(f"{mirror / SOURCE} not found: give --mirror DIR or set MANYJUDGES_MIRROR")
    return mirror


def load(mirror: Path, name: str) -> tuple[pd.DataFrame, pd.Series]:
    if name == "trec_rf10":
        from manyjudges.io.sources.trec_rf10 import trec_rf10_labels

        labels, truth = trec_rf10_labels(mirror / TREC_RF10)
        return labels, truth.set_index("item")["truth"]
    folder = mirror / SOURCE / DATASETS[name]
    labels = pd.read_csv(folder / "label.csv")
    truth = pd.read_csv(folder / "truth.csv").set_index("item")["truth"]
    return labels, truth


def load_any(mirror: Path, name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(labels ``item, judge, label``, truth ``item, truth``)."""
    if name.startswith("snow2008_"):
        from manyjudges.io.sources.snow2008 import parse_snow2008, snow2008_gold

        task = name.removeprefix("snow2008_")
        path = mirror / SNOW / f"{task}.standardized.tsv"
        labels = parse_snow2008(path, task).grades
        return labels, snow2008_gold(path, task)
    labels, truth = load(mirror, name)
    return labels, truth.rename("truth").rename_axis("item").reset_index()
