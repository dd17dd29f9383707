"""Parse the truth-inference benchmark sets (``label.csv`` and ``truth.csv``).

The copies in ``yuan-li/truth-inference-at-scale`` (Li, Rubinstein, Cohn, ICML 2019) of the
product and sentiment sets of Zheng et al. (VLDB 2017) and of the rte, dog and trec sets of
Zhang et al. (NIPS 2014) are already canonical CSV: ``label.csv`` with the header
``item,judge,label`` (integer ids, labels 0..K-1) and ``truth.csv`` with ``item,truth``.
Both are read with the canonical readers of :mod:`manyjudges.io.tables.labels`, so every check
there applies (file, line and value in each error).

Repeated (item, judge) rows follow the rule of the authors' notebooks, which run
``drop_duplicates(keep='first')`` on whole rows before every method: a row that repeats an
earlier row exactly (same item, judge and label) is dropped and counted as ``duplicate``;
a row that gives an earlier (item, judge) pair another label is kept, as one more label,
and counted as ``duplicate_conflict`` (a table with such rows must be encoded with
``duplicates="keep"``). The five pinned sets have no repeated pair (both counts are 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.labels import read_labels, read_truth

__all__ = ["TruthBenchmark", "parse_truth_benchmark"]

#: pinned dataset name -> its folder under ``data/`` in the benchmark repository
_TRUTH_BENCHMARK_FOLDERS = {
    "truth_product": "crowd_truth_inference/d_jn-product",
    "truth_senti": "crowd_truth_inference/d_sentiment",
    "truth_rte": "SpectralMethodsMeetEM/rte",
    "truth_dog": "SpectralMethodsMeetEM/dog",
    "truth_trec": "SpectralMethodsMeetEM/trec",
}


@dataclass(frozen=True)
class TruthBenchmark:
    """A benchmark set as canonical tables, and its repeated rows by kind."""

    #: columns item, judge (str) and label (int64 codes), file order, exact repeats dropped
    labels: pd.DataFrame
    #: columns item (str) and truth (int64 codes), file order
    truth: pd.DataFrame
    #: ``duplicate`` (exact repeats, dropped) and ``duplicate_conflict`` (another label, kept)
    repeats: dict[str, int] = field(default_factory=dict)


def parse_truth_benchmark(label_path: PathLike, truth_path: PathLike) -> TruthBenchmark:
    """Read a benchmark set's ``label.csv`` and ``truth.csv`` into canonical tables.

    Parameters
    ----------
    label_path, truth_path : path-like
        The set's ``label.csv`` and ``truth.csv``.

    Returns
    -------
    TruthBenchmark
        The labels (exact repeats dropped, conflicting repeats kept), the truth (every item
        labelled, every truth one of the labels' classes 0..max(label)) and the counts.

    Raises
    ------
    DataError
        As :func:`~manyjudges.io.tables.labels.read_labels` and :func:`~manyjudges.io.tables.labels.read_truth`,
        naming the file, the line and the value.
    """
    labels = read_labels(Path(label_path), duplicates="keep")
    exact = labels.duplicated(["item", "judge", "label"], keep="first").to_numpy()
    pair = labels.duplicated(["item", "judge"], keep="first").to_numpy()
    lines = np.asarray(labels.attrs["lines"])
    kept = labels[~exact].reset_index(drop=True)
    kept.attrs["lines"] = lines[~exact]
    truth = read_truth(Path(truth_path), labels=kept)
    repeats = {"duplicate": int(exact.sum()), "duplicate_conflict": int((pair & ~exact).sum())}
    return TruthBenchmark(labels=kept, truth=truth, repeats=repeats)
