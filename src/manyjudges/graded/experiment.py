"""The graded-judgment experiments as the pipeline runs them.

One part per (method, protocol, chunk of test judges), then the per-judge tables and pairwise tests
(Wilbur and Kim, Tables 1-5).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from manyjudges.graded.panel import GradedPanel, judge_groups
from manyjudges.graded.protocols import (
    PROTOCOLS,
    cross_induction,
    held_out_judges,
    loglik_by_judge,
    panel_problem,
    single_parameter,
)
from manyjudges.graded.registry import make_graded_method
from manyjudges.graded.significance import pairwise_tests

log = logging.getLogger(__name__)

PREDICTION_COLUMNS = ["method", "protocol", "judge", "item", "label", "p_true"]
PARAMETER_COLUMNS = ["method", "protocol", "judge", "parameter", "value", "at_bound", "converged"]
LOGLIK_COLUMNS = ["judge", "method", "protocol", "loglik", "n_items"]


def method_for(spec: Mapping[str, Any], name: str, dataset: Mapping[str, Any]):
    """Return the configured predictor, with the dataset's ``inner_folds`` where the method takes it."""
    params = dict(spec.get("params") or {})
    method = make_graded_method(spec["method"], params, name)
    if dataset.get("inner_folds") is not None and hasattr(method, "inner_folds") and "inner_folds" not in params:
        method.inner_folds = dataset["inner_folds"]
    return method


def protocols_for(method, protocols: Iterable[str]) -> list[str]:
    """Return the configured protocols this method supports (single_parameter needs a single parameter)."""
    return [p for p in protocols if p == "cross_induction" or getattr(method, "single_parameter", None)]


def predict_part(panel: GradedPanel, method, protocol: str, chunk: int, n_chunks: int, min_labels: int = 1,
                 outer_folds: int | None = None, progress: Callable[[int, int], None] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Predictions of one chunk of the held-out judges (every ``n_chunks``-th judge from ``chunk``).

    The single-parameter protocol chooses one value over every judge, so it runs in one chunk.
    A panel too small for cross induction (:func:`~manyjudges.graded.protocols.panel_problem`)
    is a ValueError saying how many judges it has and needs.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    problem = panel_problem(panel.labels_per_judge(), min_labels, outer_folds)
    if problem:
        raise ValueError(problem)
    judges = held_out_judges(panel, min_labels)
    if protocol == "single_parameter" and n_chunks != 1:
        raise ValueError("the single-parameter protocol runs over all judges at once (n_chunks = 1)")
    if protocol == "single_parameter":
        result = single_parameter(method, panel, judges, outer_folds)
    else:
        groups = judge_groups(judges, outer_folds)[chunk::n_chunks]
        log.info("%s %s: %d of %d held-out judges (at least %d labels each) in %d folds", method.name, protocol,
                 sum(len(g) for g in groups), len(judges), min_labels, len(groups))
        result = cross_induction(method, panel, judges, groups=groups, progress=progress)
    preds = result.predictions.assign(method=method.name, protocol=protocol)[PREDICTION_COLUMNS]
    params = result.parameters.assign(method=method.name, protocol=protocol)[PARAMETER_COLUMNS]
    return preds, params


def loglik_table(predictions: pd.DataFrame, n_classes: int) -> pd.DataFrame:
    """Rows of LOGLIK_COLUMNS per (judge, method, protocol), plus ``uniform`` rows n log(1/K)."""
    parts = []
    for (method, protocol), g in predictions.groupby(["method", "protocol"], sort=False):
        parts.append(loglik_by_judge(g).assign(method=str(method), protocol=str(protocol)))
    out = _by_judge(pd.concat(parts, ignore_index=True))
    uniform = (out.drop_duplicates(["judge", "protocol"])
               .assign(method="uniform", loglik=lambda d: d["n_items"] * np.log(1.0 / n_classes)))
    return pd.concat([out, uniform], ignore_index=True)[LOGLIK_COLUMNS]


def parameter_table(parameters: pd.DataFrame) -> pd.DataFrame:
    """Summarise the chosen parameters: the single value (single_parameter) or the mean and range over judges.

    ``judges_at_bound``: for how many judges the value sits on an edge of its search range;
    ``judges_not_converged``: for how many a fit of their fold stopped on its iteration cap.
    """
    at_bound = parameters["at_bound"] if "at_bound" in parameters else pd.Series(False, index=parameters.index)
    converged = parameters["converged"] if "converged" in parameters else pd.Series(True, index=parameters.index)
    table = parameters.assign(at_bound=at_bound.fillna(False).astype(bool),
                              not_converged=~converged.fillna(True).astype(bool))
    return (table.groupby(["method", "protocol", "parameter"], sort=False)
            .agg(mean=("value", "mean"), min=("value", "min"), max=("value", "max"), judges=("value", "size"),
                 judges_at_bound=("at_bound", "sum"), judges_not_converged=("not_converged", "sum")).reset_index())


def comparison_table(predictions: pd.DataFrame, comparisons: Iterable[Iterable[str]]) -> pd.DataFrame:
    """Return the pairwise tests (:func:`pairwise_tests`) of each pair of methods in ``comparisons``.

    Rows by protocol, then pairs in the order given, then judges in natural order.
    """
    # each comparison is a pair of method names (as unpacked below); read once, so any iterable will do
    pairs = cast(list[tuple[str, str]], [tuple(pair) for pair in comparisons])
    tests = pairwise_tests(predictions, pairs)
    order = {pair: n for n, pair in enumerate(pairs)}
    tests["_pair"] = [order[(a, b)] for a, b in zip(tests["method_a"], tests["method_b"])]
    tests = _by_judge(tests, first=["protocol", "_pair"])
    return tests.drop(columns="_pair")


def _by_judge(table: pd.DataFrame, first: list[str] | None = None) -> pd.DataFrame:
    """Rows in a stable order: ``first`` columns as they come, then judges in natural order."""
    from manyjudges.core.natural_order import natural_sort

    rank = {j: n for n, j in enumerate(natural_sort(table["judge"].astype(str).unique()))}
    keys = (first or []) + ["_judge"]
    out = table.assign(_judge=table["judge"].astype(str).map(rank))
    return out.sort_values(keys, kind="stable").drop(columns="_judge").reset_index(drop=True)


def predict_parts(panel: GradedPanel, method, parts: Sequence[tuple[str, int]], n_chunks: int, min_labels: int = 1,
                  outer_folds: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run :func:`predict_part` for each (protocol, chunk) in ``parts``, rows stacked in that order.

    One pipeline job runs several parts: n_chunks is the cross induction's number of chunks.
    """
    done = [predict_part(panel, method, protocol, int(chunk), 1 if protocol == "single_parameter" else n_chunks,
                         min_labels, outer_folds) for protocol, chunk in parts]
    return (pd.concat([d[0] for d in done], ignore_index=True), pd.concat([d[1] for d in done], ignore_index=True))


def predict_job(panel: GradedPanel, specs: Mapping[str, Mapping[str, Any]], parts: Sequence[tuple[str, str, int]],
                n_chunks: Mapping[str, int], dataset: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run one pipeline job: the (method, protocol, chunk) parts of one or more configured methods.

    ``specs``: name -> entry; ``n_chunks``: name -> chunks of its cross induction. Rows are stacked in
    the order of ``parts``. Each method is built once, so its parts share its inner-fold fits.
    """
    done = []
    for name in dict.fromkeys(part[0] for part in parts):
        method = method_for(specs[name], name, dataset)
        own = [(protocol, chunk) for m, protocol, chunk in parts if m == name]
        done.append(predict_parts(panel, method, own, int(n_chunks[name]), dataset.get("min_labels_per_judge", 1),
                                  dataset.get("outer_folds")))
    return (pd.concat([d[0] for d in done], ignore_index=True), pd.concat([d[1] for d in done], ignore_index=True))

