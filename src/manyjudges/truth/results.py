"""The tables of one truth-inference fit: the inferred labels, the judges' skills, and the accuracy.

The ``manyjudges truth infer`` command and the pipeline's runner (:mod:`manyjudges.truth.experiment`)
both write these. Accuracy is the share of the items with a truth whose inferred label equals it (ties
inside a method are broken by the method's own rule, :mod:`manyjudges.truth.base`).
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, id_positions
from manyjudges.truth.base import TruthEstimator
from manyjudges.truth.calibration import _calibration_scores, _same_class

__all__ = ["accuracy", "fit_method", "judges_table", "labels_table", "truth_scores", "without_gold"]


def accuracy(labels: pd.Series, truth: pd.DataFrame | None, position: np.ndarray | None = None
             ) -> tuple[float, int]:
    """(share of truth items whose inferred label equals the truth, number of truth items); NaN, 0 without truth.

    ``labels`` is indexed by item; ``truth`` has columns ``item, truth``; labels and truths are compared
    as text, so a class code 1 equals a truth "1". ``position`` is each truth item's position in
    ``labels.index`` (-1: none), when the caller has found it already.
    """
    if truth is None or truth.empty:
        return float("nan"), 0
    if position is None:
        position = id_positions(labels.index, truth["item"])
    if (position < 0).any():
        missing = truth["item"].iloc[int(np.flatnonzero(position < 0)[0])]
        raise ValueError(f"truth item {missing!r} has no inferred label (it has no labels)")
    same = _same_class(labels.to_numpy()[position], truth["truth"].to_numpy())
    return float(np.mean(same)), len(truth)


def truth_scores(estimator: TruthEstimator, truth: pd.DataFrame | None) -> tuple[float, int, float, float]:
    """Return (accuracy, truth items, ECE, AUROC) of a fitted method on ``truth``.

    As :func:`accuracy` and :func:`~manyjudges.truth.calibration._calibration_scores` give them, the truth
    items looked up once.
    """
    if truth is None or truth.empty:
        return float("nan"), 0, float("nan"), float("nan")
    position = id_positions(estimator.labels_.index, truth["item"])
    acc, n = accuracy(estimator.labels_, truth, position)
    ece, roc = _calibration_scores(estimator.proba_, estimator.labels_, truth, position)
    return acc, n, ece, roc


def fit_method(estimator: TruthEstimator, data: CrowdLabels,
               gold: pd.DataFrame | None = None) -> tuple[TruthEstimator, float]:
    """Fit a built method on ``data``, with known answers ``gold`` (``item, truth``) if given.

    The method is built by :func:`~manyjudges.truth.registry.make_truth_estimator`.

    Parameters
    ----------
    estimator : TruthEstimator
        The method, built by its caller (once: the command builds it before reading any data, so that a bad
        name or parameter fails first).
    data : CrowdLabels
        The coded labels.
    gold : pandas.DataFrame, optional
        Known answers for some items, used in the fit.

    Returns
    -------
    estimator : TruthEstimator
        The same estimator, fitted.
    seconds : float
        The seconds of the fit.
    """
    start = time.perf_counter()
    estimator.fit(data, gold=gold)
    return estimator, time.perf_counter() - start


def without_gold(truth: pd.DataFrame | None, gold: pd.DataFrame | None) -> pd.DataFrame | None:
    """Return the truth rows whose item is not a gold item.

    Accuracy is measured on the items the fit did not know.
    """
    if truth is None or gold is None:
        return truth
    return truth[~truth["item"].astype(str).isin(set(gold["item"].astype(str)))].reset_index(drop=True)


def labels_table(estimator: TruthEstimator) -> pd.DataFrame:
    """``item, label`` and one posterior column per class (``p_<class>``), items in code order."""
    proba = estimator.proba_
    table = pd.DataFrame({"item": proba.index.astype(str), "label": estimator.labels_.to_numpy()})
    for c in proba.columns:
        table[f"p_{c}"] = proba[c].to_numpy()
    return table


def judges_table(estimator: TruthEstimator) -> pd.DataFrame:
    """``judge, skill`` (empty when the method has no per-judge skill)."""
    skills = estimator.skills_
    if skills is None:
        return pd.DataFrame(columns=["judge", "skill"])
    return pd.DataFrame({"judge": skills.index.astype(str), "skill": skills.to_numpy()})
