"""The pipeline's runner of truth-inference methods on one labelled dataset.

Every configured method is fitted, its tables (:mod:`manyjudges.truth.results`) gathered into long tables with
a ``method`` column.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.truth.registry import make_truth_estimator
from manyjudges.truth.results import fit_method, judges_table, labels_table, truth_scores

__all__ = ["TruthRun", "run_methods"]

log = logging.getLogger(__name__)

_ACCURACY_COLUMNS = ["method", "accuracy", "n_truth", "ece", "auroc", "seconds"]


@dataclass(frozen=True)
class TruthRun:
    """Every configured method on one dataset: long tables with a ``method`` column first."""

    accuracy: pd.DataFrame
    labels: pd.DataFrame
    judges: pd.DataFrame


def run_methods(labels: pd.DataFrame | CrowdLabels, truth: pd.DataFrame | None,
                methods: Mapping[str, Mapping[str, Any]], classes: Sequence | None = None, duplicates: str = "keep",
                progress: Callable[[int, int], None] | None = None) -> TruthRun:
    """Fit each of ``methods`` ({entry name: {method, params}}) on ``labels``; score against ``truth``."""
    data = as_crowd_labels(labels, classes=classes, duplicates=duplicates)
    rows, label_tables, judge_tables = [], [], []
    for done, (name, spec) in enumerate(methods.items(), 1):
        method = spec.get("method", name)
        params = spec.get("params")
        estimator, seconds = fit_method(make_truth_estimator(method, dict(params or {})), data)
        acc, n_truth, ece, roc = truth_scores(estimator, truth)
        log.info("%s: accuracy %.4f on %d truth items, %.3f s", name, acc, n_truth, seconds)
        rows.append((name, acc, n_truth, ece, roc, seconds))
        label_tables.append(labels_table(estimator).assign(method=name))
        judge_tables.append(judges_table(estimator).assign(method=name))
        if progress is not None:
            progress(done, len(methods))

    def first(table: pd.DataFrame) -> pd.DataFrame:
        return table[["method", *[c for c in table.columns if c != "method"]]]

    return TruthRun(pd.DataFrame(rows, columns=_ACCURACY_COLUMNS),
                    first(pd.concat(label_tables, ignore_index=True)),
                    first(pd.concat(judge_tables, ignore_index=True)))
