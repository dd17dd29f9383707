"""The crowd readings tested against Niu et al. (2015) Table 2 (docs/methods.md, section 6).

A method parameter that is a reading of the paper (CrowdAgg's pairwise probability, eq. 6) is
tested when the config holds entries of the method that differ only in it, on a dataset that
stands in for one of the paper's: each entry's Table 2 metrics (P@k, NDCG@k, MAP, ...) against the
paper's for the method on that dataset. The paper's "binary relevance" (P@k, MAP, RBP) on graded
truth is a dataset reading, ``relevant_grade`` (grade >= g is relevant): Table 2 is computed at
every threshold g and each is compared over every method's binary metrics.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.crowd.registry import _CROWD_METHODS
from manyjudges.crowd.report import _PAPER_DATASET, PAPER_KEY
from manyjudges.reporting.formatting import data_kind
from manyjudges.reporting.paper_values import paper_lookup, paper_values
from manyjudges.reporting.readings import Reading, choice_readings, mean_absolute_difference

__all__ = ["NOTE", "PARAMETER_CHOICES"]

#: how the crowd readings are measured, for the report
NOTE = ("Crowd aggregation (Niu et al., Table 2): every metric of the method's row, on a dataset that stands in "
        "for one of the paper's.")
#: (method, parameter, what it decides): the crowd parameters that are readings of the paper
PARAMETER_CHOICES = [
    ("crowdagg_ndcg", "pairwise", "CrowdAgg: eq. 6, the pairwise probability"),
    ("crowdagg_rbp", "pairwise", "CrowdAgg: eq. 6, the pairwise probability"),
]


def _metric_cells(metrics: pd.DataFrame, entry: str, paper_method: str, paper: Mapping[tuple, float]) -> pd.DataFrame:
    """Per metric of ``entry``: our value and the paper's for ``paper_method`` (NaN where it has none)."""
    rows = metrics[metrics["method"] == entry]
    return pd.DataFrame({"metric": rows["metric"].to_numpy(), "ours": rows["value"].astype(float).to_numpy(),
                         "paper": [paper.get((paper_method, m), float("nan")) for m in rows["metric"]]})


def _crowd_readings(dataset: str, kind: str, source: str, metrics_path: str | Path, methods: Mapping[str, Any],
                   paper: pd.DataFrame) -> list[Reading]:
    """Return the :class:`Reading` of each parameter in :data:`PARAMETER_CHOICES` that two configured entries test.

    Only on a dataset of a ``source`` the paper has (none otherwise).
    """
    paper_dataset = _PAPER_DATASET.get(source)
    if paper_dataset is None:
        return []
    table2 = paper_lookup(paper, "2", PAPER_KEY, where={"dataset": paper_dataset}, complete_only=True)
    metrics = pd.read_csv(metrics_path, sep="\t")
    return choice_readings(PARAMETER_CHOICES, _CROWD_METHODS.parameter_default, methods,
                           f"Table 2 ({paper_dataset}), `{dataset}` ({kind})",
                           lambda method, entry: _metric_cells(metrics, entry, method, table2), "crowd")


def _relevance_readings(dataset: str, kind: str, source: str, by_relevance_path: str | Path, relevant_grade: int,
                       methods: Mapping[str, Any], paper: pd.DataFrame) -> list[Reading]:
    """Return the reading of binary relevance (``relevant_grade``) on a dataset of a ``source`` the paper has.

    Table 2's binary metrics (P@k, MAP, RBP) of every configured entry at each threshold of
    ``ranking_metrics_by_relevance.tsv``, against the paper's for the entry's method (none when the
    table has fewer than two thresholds).
    """
    paper_dataset = _PAPER_DATASET.get(source)
    table = pd.read_csv(by_relevance_path, sep="\t")
    if paper_dataset is None or table["relevant_grade"].nunique() < 2:
        return []
    table2 = paper_lookup(paper, "2", PAPER_KEY, where={"dataset": paper_dataset}, complete_only=True)
    binary = table[~table["metric"].str.startswith("NDCG")]
    paper_method = {name: (entry or {}).get("method", name) for name, entry in methods.items()}
    distances: dict[str, float | None] = {}
    cells = 0
    grades = sorted(binary["relevant_grade"].unique(), key=lambda g: (g != relevant_grade, g))
    for g in grades:
        rows = binary[binary["relevant_grade"] == g]
        theirs = [table2.get((paper_method.get(m, m), metric), float("nan"))
                  for m, metric in zip(rows["method"], rows["metric"])]
        distance, n = mean_absolute_difference(rows["value"], pd.Series(theirs, index=rows.index))
        distances[f"grade >= {g}"] = distance
        cells = max(cells, n)
    return [Reading("binary relevance (P@k, MAP, RBP): which truth grades are relevant",
                    f"crowd.datasets.{dataset}.relevant_grade", f"Table 2 ({paper_dataset}), `{dataset}` ({kind})",
                    distances, f"grade >= {relevant_grade}", cells, "crowd")]


def _crowd_paper_readings(crowd_results: Mapping[str, Mapping[str, str | Path]],
                         crowd_datasets: Mapping[str, Mapping[str, Any]],
                         crowd_methods: Mapping[str, Any] | None) -> list[Reading]:
    """Return the readings above (:func:`_crowd_readings`, :func:`_relevance_readings`) of every crowd dataset.

    Every crowd dataset with ranking metrics, ``crowd_results`` keyed by dataset ({dataset: {table
    name: path}}).
    """
    paper = paper_values("niu2015")
    rows: list[Reading] = []
    for name, files in crowd_results.items():
        source = crowd_datasets.get(name, {}).get("source", "")
        if "ranking_metrics" in files:
            rows += _crowd_readings(name, data_kind(source).strip("*"), source, files["ranking_metrics"],
                                   crowd_methods or {}, paper)
        if "ranking_metrics_by_relevance" in files:
            rows += _relevance_readings(name, data_kind(source).strip("*"), source,
                                       files["ranking_metrics_by_relevance"],
                                       int(crowd_datasets.get(name, {}).get("relevant_grade", 1)), crowd_methods or {},
                                       paper)
    return rows
