"""Measuring a panel of LLM judges from their pairwise verdicts.

Position bias, agreement with a reference, agreement among themselves, shared errors and the effective
number of independent judges.

The input is a **verdicts** table (``prompt, judge, model_a, model_b, winner``; ``model_a`` is the
answer shown FIRST; :mod:`manyjudges.arena.verdict_codes`). A **unit** is a prompt and an unordered
pair of models, oriented canonically (model_1 before model_2 in natural order), and a verdict is one of
three classes there: model_1 wins, model_2 wins, tie (``tie`` and ``tie (bothbad)`` alike).
Definitions and sources: ``docs/methods.md``, "LLM judges".

>>> import pandas as pd
>>> from manyjudges.arena import judge_measures
>>> verdicts = pd.DataFrame({"prompt": ["p1", "p1", "p2", "p2"], "judge": "j1",
...                          "model_a": ["x", "y", "x", "y"], "model_b": ["y", "x", "y", "x"],
...                          "winner": ["model_a", "model_a", "model_a", "model_b"]})
>>> row = judge_measures(verdicts).judges.iloc[0]
>>> float(row["first_win_rate"]), float(row["flip_rate"])
(0.75, 0.5)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from manyjudges.arena.judges.agreement import (
    _cohen_kappa,
    _majority_class,
    _nominal_alpha,
    _pearson,
    effective_judges,
)
from manyjudges.arena.judges.position_bias import _class_shares, position_bias
from manyjudges.arena.verdict_codes import _check_verdicts, code_units

__all__ = ["SUMMARY_COLUMNS", "JudgeMeasures", "judge_measures"]

_JUDGE_COLUMNS = ["judge", "verdicts", "decisive", "first_win_rate", "first_win_low", "first_win_high",
                 "flip_pairs", "flip_rate", "tie_rate"]
#: the columns a reference adds to the judges table
_REFERENCE_COLUMNS = ["n_matched", "accuracy", "kappa"]
_PAIR_COLUMNS = ["judge_a", "judge_b", "n_common", "agreement", "n_error_units", "error_correlation",
                "error_correlation_shrunk"]
SUMMARY_COLUMNS = ["n_judges", "n_units", "alpha", "error_reference", "mean_error_correlation", "effective_judges"]

#: m0 of :func:`_shrunk_correlation`: the prior at 0 is worth this many units (chosen leave-one-panel-out,
#: ``benchmarks/defaults/judge_aware.py``)
_PRIOR_UNITS = 20.0
#: ``error_reference`` of the summary: what the judges' errors were errors against
AGAINST_REFERENCE = "reference"
AGAINST_OTHERS = "majority of the other judges"


@dataclass(frozen=True)
class JudgeMeasures:
    """The three tables of :func:`judge_measures`.

    Attributes
    ----------
    judges : pandas.DataFrame
        One row per judge (:data:`_JUDGE_COLUMNS`, and :data:`_REFERENCE_COLUMNS` with a reference).
    pairs : pandas.DataFrame
        One row per pair of judges, ``judge_a < judge_b`` (:data:`_PAIR_COLUMNS`).
    summary : pandas.DataFrame
        One row (:data:`SUMMARY_COLUMNS`).
    """

    judges: pd.DataFrame
    pairs: pd.DataFrame
    summary: pd.DataFrame


def _reference_agreement(judge: np.ndarray, canonical: np.ndarray, truth: np.ndarray, n_judges: int) -> pd.DataFrame:
    """Return n_matched, accuracy, kappa per judge: its verdicts against ``truth``.

    ``truth`` holds each verdict's reference class, -1 where the unit has none.
    """
    matched = truth >= 0
    cells = judge[matched] * 9 + canonical[matched] * 3 + truth[matched]
    confusion = np.bincount(cells, minlength=9 * n_judges).reshape(n_judges, 3, 3).astype(float)
    n = confusion.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(n > 0, np.trace(confusion, axis1=1, axis2=2) / n, np.nan)
    return pd.DataFrame({"n_matched": n.astype(np.int64), "accuracy": accuracy, "kappa": _cohen_kappa(confusion)})


def _shrunk_correlation(r: np.ndarray, m: np.ndarray, prior_units: float = _PRIOR_UNITS) -> np.ndarray:
    """Return the correlations ``r`` over ``m`` units each, shrunk toward 0: r m / (m + m0).

    A Pearson (or phi) correlation over m units has a sampling variance of about (1 - rho^2)^2 / m,
    1 / m near rho = 0 (Fisher 1915; Stuart and Ord, Kendall's Advanced Theory of Statistics, 16.33).
    Taking r ~ N(rho, 1 / m) with the prior rho ~ N(0, 1 / m0), the posterior mean of rho is

        r_shrunk = r (1 / (1 / m)) / (1 / (1 / m) + 1 / (1 / m0)) = r m / (m + m0)

    (the normal-normal posterior mean, Gelman et al. 2013, Bayesian Data Analysis, 3rd ed., section
    2.5): the prior is worth m0 = ``prior_units`` units. Four shared units with r = 1 give 4 / 24 =
    0.167 at m0 = 20; 400 units with r = 0.9 give 0.857. NaN stays NaN; m0 = 0 leaves r as it is.
    """
    m = np.asarray(m, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.where(m + prior_units > 0, m / np.maximum(m + prior_units, 1e-300), 0.0)
    return np.asarray(r, dtype=float) * factor


def _pairs(judges: pd.Index, group_judge: np.ndarray, group_unit: np.ndarray, shares: np.ndarray,
           truth: np.ndarray | None, n_units: int, prior_units: float) -> pd.DataFrame:
    """Agreement and error correlation of every pair of judges on their common units.

    ``shares``: each (judge, unit) group's share of verdicts per class (rows sum to 1), groups sorted
    by judge then unit; ``truth``: the reference class per unit (-1: none), or None for the majority
    of the other judges.
    """
    n_judges = len(judges)
    start = np.searchsorted(group_judge, np.arange(n_judges + 1))
    votes = np.stack([np.bincount(group_unit, weights=shares[:, c], minlength=n_units) for c in range(3)], axis=1)
    rows = []
    for a in range(n_judges):
        units_a, shares_a = group_unit[start[a]:start[a + 1]], shares[start[a]:start[a + 1]]
        for b in range(a + 1, n_judges):
            units_b, shares_b = group_unit[start[b]:start[b + 1]], shares[start[b]:start[b + 1]]
            common, ia, ib = np.intersect1d(units_a, units_b, assume_unique=True, return_indices=True)
            pa, pb = shares_a[ia], shares_b[ib]
            agreement = float((pa * pb).sum(axis=1).mean()) if len(common) else float("nan")
            if truth is not None:
                ref = truth[common]
            else:
                others = votes[common] - pa - pb
                ref = _majority_class(others, shared=-1)
            keep = np.flatnonzero(ref >= 0)
            error_a = 1.0 - pa[keep, ref[keep]]
            error_b = 1.0 - pb[keep, ref[keep]]
            rows.append((judges[a], judges[b], len(common), agreement, len(keep), _pearson(error_a, error_b)))
    out = pd.DataFrame(rows, columns=_PAIR_COLUMNS[:-1]).astype({"judge_a": object, "judge_b": object,
                                                               "n_common": np.int64, "n_error_units": np.int64,
                                                               "agreement": float, "error_correlation": float})
    out["error_correlation_shrunk"] = _shrunk_correlation(out["error_correlation"].to_numpy(dtype=float),
                                                         out["n_error_units"].to_numpy(), prior_units)
    return out


def judge_measures(verdicts: pd.DataFrame, reference: pd.DataFrame | None = None,
                   level: float = 0.95, prior_units: float = _PRIOR_UNITS) -> JudgeMeasures:
    """Position bias, agreement and shared errors of the judges of a verdicts table.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner`` (model_a shown first; winner ``model_a``,
        ``model_b``, ``tie`` or ``tie (bothbad)``).
    reference : pandas.DataFrame, optional
        A verdicts table of human votes or gold; its ``judge`` column is not used: every row is one
        vote on its unit (prompt, unordered pair), and the unit's reference class is the majority of
        its votes, a top shared by two classes or more being a tie.
    level : float
        Level of the Wilson intervals of the first-win rates (default 0.95).
    prior_units : float
        m0 of ``error_correlation_shrunk`` (:func:`_shrunk_correlation`; default :data:`_PRIOR_UNITS`).

    Returns
    -------
    JudgeMeasures
        ``judges``: per judge (natural order) the position bias of
        :func:`~manyjudges.arena.judges.position_bias.position_bias` and, with a reference, ``n_matched``
        (the judge's verdicts on units the reference has), ``accuracy`` (the share of them in the
        reference's class, canonical orientation, ties a class of their own) and ``kappa`` (Cohen's
        kappa of the same verdicts, three classes; :func:`~manyjudges.arena.judges.agreement._cohen_kappa`).

        ``pairs``: per pair of judges, ``n_common`` (the units both judged), ``agreement`` (the mean
        over those units of sum_c s_ac s_bc, s_jc the share of judge j's verdicts on the unit in class c:
        the probability that a verdict of one and a verdict of the other agree; 0/1 per unit with one
        verdict each), ``error_correlation``: Pearson's correlation over the common units with a
        reference class (``n_error_units``) of the two judges' errors e_j = 1 - s_j,ref (0/1 with one
        verdict each: the phi coefficient of the error indicators, the correlation measure of Kuncheva
        and Whitaker 2003). Without a reference, a unit's reference class for the pair (a, b) is the
        majority of the other judges' votes on it (each other judge one vote, split by its shares), so
        that neither judge of the pair is graded against itself; a unit whose top is shared by two
        classes, or that no other judge judged, is left out (a split counted as a tie would make every
        decisive verdict of both judges an error: a shared error made by the split). The errors of this
        pseudo-reference enter both judges' error indicators, so it measures how alike two judges
        deviate from the others, not their shared errors against a truth: prefer a reference.
        ``error_correlation_shrunk`` = error_correlation x n_error_units / (n_error_units + m0), the
        correlation shrunk toward 0 by the evidence behind it (:func:`_shrunk_correlation`): the one
        the judges' clusters and weights use (:mod:`manyjudges.arena.judges.clusters`).

        ``summary``: ``n_judges``, ``n_units`` (the units the judges judged), ``alpha``
        (Krippendorff's alpha, nominal, three classes, over the units, each verdict one value;
        :func:`~manyjudges.arena.judges.agreement._nominal_alpha`), ``error_reference``
        (``reference`` or ``majority of the other judges``), ``mean_error_correlation`` (the mean of
        the pairs' finite error correlations, rho) and ``effective_judges`` = n / (1 + (n - 1) rho)
        (Kish's design effect; :func:`~manyjudges.arena.judges.agreement.effective_judges`).

    Raises
    ------
    ValueError
        A table without rows or with a missing column, an empty field, an unknown winner or
        model_a == model_b, naming the table (``verdicts`` or ``reference``), the row and the value.
    """
    _check_verdicts(verdicts, "verdicts")
    if reference is not None:
        _check_verdicts(reference, "reference")
    coded = code_units(verdicts) if reference is None else code_units(verdicts, reference)
    table = coded.tables[0]
    judges: pd.Index = table["judges"]
    judge, unit, canonical = table["judge"], table["unit"], table["canonical"]
    n_judges, n_units = len(judges), coded.n_units
    bias = position_bias(judge, unit, table["shown"], table["swapped"], canonical, n_judges, n_units, level)
    out = pd.concat([pd.DataFrame({"judge": np.asarray(judges, dtype=object)}), bias], axis=1)[_JUDGE_COLUMNS]
    truth = None
    if reference is not None:
        ref = coded.tables[1]
        votes = np.bincount(ref["unit"] * 3 + ref["canonical"], minlength=3 * n_units).reshape(n_units, 3)
        truth = _majority_class(votes)
        out = pd.concat([out, _reference_agreement(judge, canonical, truth[unit], n_judges)], axis=1)
    group_judge, group_unit, counts = _class_shares(judge, unit, canonical, n_units)
    shares = counts / counts.sum(axis=1, keepdims=True)
    if not prior_units >= 0:
        raise ValueError(f"prior_units must be >= 0, got {prior_units}")
    pairs = _pairs(judges, group_judge, group_unit, shares, truth, n_units, float(prior_units))
    summary = _summary(unit, canonical, n_judges, n_units, pairs, reference is not None)
    return JudgeMeasures(judges=out, pairs=pairs, summary=summary)


def _summary(unit: np.ndarray, canonical: np.ndarray, n_judges: int, n_units: int, pairs: pd.DataFrame,
             against_reference: bool) -> pd.DataFrame:
    """Return the one-row ``summary`` of :func:`judge_measures`.

    The units judged, Krippendorff's alpha over the verdicts' classes, the mean finite error correlation
    rho and n / (1 + (n - 1) rho).
    """
    judged = np.bincount(unit * 3 + canonical, minlength=3 * n_units).reshape(n_units, 3)
    finite = pairs["error_correlation"].to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    rho = float(finite.mean()) if len(finite) else float("nan")
    return pd.DataFrame([{
        "n_judges": n_judges, "n_units": int((judged.sum(axis=1) > 0).sum()), "alpha": _nominal_alpha(judged),
        "error_reference": AGAINST_REFERENCE if against_reference else AGAINST_OTHERS,
        "mean_error_correlation": rho, "effective_judges": effective_judges(n_judges, rho),
    }], columns=SUMMARY_COLUMNS)
