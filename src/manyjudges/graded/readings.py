"""The graded readings tested against Wilbur and Kim (2011) Tables 2 and 3 (docs/methods.md, section 5).

A method parameter that is a reading of the paper (M4's predictive distribution over whole
labels) is tested when the config holds entries of the method that differ only in it: each
entry's per-judge log probabilities S(k), under cross induction (Table 2) and the single-parameter
protocol (Table 3), are compared with the paper's for the method, judge by judge (the paper's
judges 0-12 and their "Ave" row are the simulated panel's judges and mean). Only on a simulated
panel shaped like the paper's: on other data the paper's judges are not ours.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.graded.registry import _GRADED_METHODS
from manyjudges.graded.report import PAPER_KEY, _loglik_cells
from manyjudges.reporting.formatting import data_kind
from manyjudges.reporting.paper_values import key_value, paper_lookup, paper_values
from manyjudges.reporting.readings import Reading, choice_readings

__all__ = ["NOTE", "PARAMETER_CHOICES"]

#: how the graded readings are measured, for the report
NOTE = ("Graded judgments (Wilbur and Kim, Tables 2-3): per-judge log probabilities S(k) under both protocols, "
        "compared judge by judge with the paper's, on the simulated panel only (the paper's judges are not "
        "public, and other panels' judges are not theirs). M5's lambda scale is measured on Table 1's single "
        "optimum in orders of magnitude, |log10(ours / paper)|.")

#: (method, parameter, what it decides): the graded parameters that are readings of the paper
PARAMETER_CHOICES = [("m4", "predictive", "M4: the Gaussian predictive over whole labels")]
#: the paper's table of each protocol
PROTOCOL_TABLES = {"cross_induction": "2", "single_parameter": "3"}


def _reading_cells(loglik: pd.DataFrame, entry: str, paper_method: str, paper: pd.DataFrame) -> pd.DataFrame:
    """Return Tables 2-3's per-judge cells of ``entry`` under both protocols, compared with the paper's values.

    The paper's values are those of ``paper_method`` (:func:`manyjudges.graded.report._loglik_cells`).
    """
    rows = loglik[loglik["method"] == entry].assign(method=paper_method)
    return pd.concat([_loglik_cells(rows, protocol, paper_lookup(paper, table, PAPER_KEY, key=key_value))
                      for protocol, table in PROTOCOL_TABLES.items()], ignore_index=True)


def _graded_readings(dataset: str, kind: str, loglik_path: str | Path, methods: Mapping[str, Any],
                    paper: pd.DataFrame) -> list[Reading]:
    """Return the :class:`Reading` of each parameter in :data:`PARAMETER_CHOICES` that two configured entries test."""
    loglik = pd.read_csv(loglik_path, sep="\t")
    return choice_readings(PARAMETER_CHOICES, _GRADED_METHODS.parameter_default, methods,
                           f"Tables 2-3 per judge, `{dataset}` ({kind})",
                           lambda method, entry: _reading_cells(loglik, entry, method, paper), "graded", "paper_value")


def _lambda_scale_reading(dataset: str, kind: str, parameters_path: str | Path, grades_path: str | Path,
                         paper: pd.DataFrame) -> list[Reading]:
    """M5's L2 penalty: lambda on the mean log-likelihood per instance (ours) or on the summed one.

    The two are the same objective up to the factor N (training instances), so they give the same
    fits and the same Tables 2-5; only the value of lambda differs: lambda_sum = N lambda_mean, with
    N = L (J - 1) / J, the mean number of instances of a fit without one of the J judges (L labels).
    Tested on Table 1's single-parameter optimum (0.022) in orders of magnitude, |log10(ours / paper)|.
    """
    params = pd.read_csv(parameters_path, sep="\t")
    single = params[(params["method"] == "m5") & (params["protocol"] == "single_parameter")
                    & (params["parameter"] == "lambda")]
    theirs = paper[(paper["table"] == "1") & (paper["method"] == "m5")]
    if single.empty or theirs.empty:
        return []
    grades = pd.read_csv(grades_path, sep="\t", dtype={"judge": str})
    n_labels, n_judges = len(grades), grades["judge"].nunique()
    n_instances = n_labels * (n_judges - 1) / n_judges
    lam, target = float(single["mean"].iloc[0]), float(theirs["paper_value"].iloc[0])
    distances = {"mean": abs(float(np.log10(lam / target))),
                 "sum": abs(float(np.log10(lam * n_instances / target)))}
    return [Reading("M5: the scale of the L2 penalty lambda (per instance, or on the summed log-likelihood)",
                    "m5 (the same fits: lambda_sum = N lambda_mean)",
                    f"Table 1, M5's single optimum {target:g}; ours {lam:.3g} per instance, N = {n_instances:,.0f}, "
                    f"`{dataset}` ({kind})", distances, "mean", 1, "graded")]


def _graded_paper_readings(graded_results: Mapping[str, Mapping[str, str | Path]],
                          graded_datasets: Mapping[str, Mapping[str, Any]],
                          graded_methods: Mapping[str, Any] | None) -> list[Reading]:
    """Return the readings above (:func:`_graded_readings`, :func:`_lambda_scale_reading`) of every simulated dataset.

    The datasets are the simulated graded ones; ``graded_results`` is keyed by dataset
    ({dataset: {"loglik", "pairwise", "parameters", "grades": path}}).
    """
    paper = paper_values("wilbur2011")
    rows: list[Reading] = []
    for name, files in graded_results.items():
        source = graded_datasets.get(name, {}).get("source")
        if source == "simulate":
            rows += _graded_readings(name, data_kind(source).strip("*"), files["loglik"], graded_methods or {}, paper)
            if "parameters" in files and "grades" in files:
                rows += _lambda_scale_reading(name, data_kind(source).strip("*"), files["parameters"], files["grades"],
                                             paper)
    return rows
