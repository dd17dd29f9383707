"""Auto's label path: candidates fitted without each fold, scored on the withheld labels, anchored, stacked.

Steps 1-7 of :mod:`manyjudges.truth.auto.estimator`'s docstring as functions, shared by ``Auto.fit`` and the benchmarks
that choose its defaults: :func:`_fit_candidate` (a candidate's fold fits and its fit on every label),
:func:`_score_candidate` (the withheld labels' predictive probabilities, :mod:`manyjudges.truth.heldout`),
:func:`_anchored_candidates` and :func:`_stack_scored` (the anchor to the majority vote and the stacking weights),
:func:`_calibrate_mixture` (the temperature and floor of the weighted fold fits, :mod:`manyjudges.truth.confidence`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.truth.base import _row_argmax
from manyjudges.truth.confidence import _SOFTENING, Confidence, fit_confidence
from manyjudges.truth.heldout import (
    FoldSplit,
    _fit_tempering,
    _fold_posteriors,
    _held_out_from,
    _stacking_weights,
    log_score,
    temper,
)

__all__ = ["MIN_WEIGHT", "majority_agreement"]

#: a stacking weight below this is set to 0 (and the others rescaled)
MIN_WEIGHT = 1e-3
#: the columns of ``Auto.report_``
_REPORT_COLUMNS = ["candidate", "majority_agreement", "pooled_log_likelihood", "gold_accuracy", "anchored",
                  "heldout_log_likelihood", "tempered_log_likelihood", "beta", "weight", "seconds", "gold_evidence",
                  "chosen_by_gold"]


@dataclass(frozen=True)
class _CandidateFit:
    """A candidate's fits: on each fold's kept labels and on every label (posteriors, (n_items, K))."""

    name: str
    folds: tuple[np.ndarray, ...]
    full: np.ndarray
    seconds: float


def _fit_candidate(name: str, data: CrowdLabels, split: FoldSplit,
                  gold: tuple[np.ndarray, np.ndarray] | None = None) -> _CandidateFit:
    """Fit the registry method ``name`` without each fold of ``split`` and on every label (with ``gold``)."""
    from manyjudges.truth.registry import make_truth_estimator

    start = perf_counter()
    method = make_truth_estimator(name)
    folds = _fold_posteriors(method.posteriors_on, split)
    full = make_truth_estimator(name).posteriors_on(data, gold)
    return _CandidateFit(name, folds, full, perf_counter() - start)


def majority_agreement(data: CrowdLabels, posteriors: np.ndarray) -> float:
    """Return the share of items whose class under ``posteriors`` (argmax) is their majority vote.

    The share is over the items with two or more labels and one most frequent class; 1.0 when there are none.
    """
    counts = data.class_counts
    top = counts.max(axis=1)
    clear = (counts.sum(axis=1) >= 2) & ((counts == top[:, None]).sum(axis=1) == 1)
    if not clear.any():
        return 1.0
    return float(np.mean(_row_argmax(posteriors[clear]) == _row_argmax(counts[clear])))


@dataclass(frozen=True)
class _ScoredCandidate:
    """A candidate's fits judged on the withheld labels: steps 2 and 3 of :mod:`manyjudges.truth.auto.estimator`."""

    fit: _CandidateFit
    #: :func:`majority_agreement` of its fit on every label
    agreement: float
    #: (n,) the withheld labels' predictive probabilities, tempered by ``beta``
    probabilities: np.ndarray
    beta: float
    heldout_log_likelihood: float
    #: the mean log probability of the withheld labels under one accuracy for every judge, beta = 1
    pooled_log_likelihood: float
    #: whether its fold fits get each withheld gold answer right (in the folds' order; empty without gold)
    gold_right: np.ndarray

    @property
    def gold_accuracy(self) -> float:
        """The share of the withheld gold answers its fold fits get right (NaN without gold)."""
        return float(self.gold_right.mean()) if len(self.gold_right) else float("nan")


def _score_candidate(data: CrowdLabels, split: FoldSplit, fit: _CandidateFit, criterion: str = "confusion",
                    calibrate: str | None = "tempering") -> _ScoredCandidate:
    """Score the withheld labels' predictive probabilities under ``fit``'s fold posteriors.

    They are computed with the judge model ``criterion``, tempered by the beta fitted on them
    (``calibrate="tempering"``) or not.
    """
    held = _held_out_from(fit.folds, data, split, criterion)
    beta = _fit_tempering(held) if calibrate == "tempering" else 1.0
    pooled = held if criterion == "pooled" else _held_out_from(fit.folds, data, split, "pooled")
    return _ScoredCandidate(fit, majority_agreement(data, fit.full), held.probabilities(beta), beta,
                           log_score(held.probabilities(1.0)), log_score(pooled.probabilities(1.0)),
                           _gold_right(split, fit))


def _gold_right(split: FoldSplit, fit: _CandidateFit) -> np.ndarray:
    """Whether each fold's fit gets each gold answer the fold withholds right (argmax, lowest class on ties)."""
    parts = [_row_argmax(fitted[items]) == classes for fitted, (items, classes) in zip(fit.folds, split.gold_withheld)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _panel_density(data: CrowdLabels) -> float:
    """Return the share of the (item, judge) cells that hold a label: labels / (items x judges).

    It is 1 when every judge labels every item once (a panel of LLM judges), near 0 for a crowd.
    """
    return data.n_labels / max(1, data.n_items * data.n_judges)


def _anchored_candidates(scored: Sequence[_ScoredCandidate], anchor: float | None = None, margin: float | None = None,
                        reference: float | None = None) -> np.ndarray:
    """(M,) which candidates may take weight.

    Those whose classes agree with the majority vote on at least ``anchor`` of the items
    (:func:`majority_agreement`), and whose pooled log-likelihood of the withheld labels is at least ``reference``
    (the majority vote's) less ``margin``; None switches a test off. When no candidate passes, the one whose
    pooled log-likelihood is highest is kept. (Gold items overrule the majority elsewhere: :func:`gold_choice`.)
    """
    kept = np.ones(len(scored), dtype=bool)
    if anchor is not None:
        kept &= np.array([c.agreement for c in scored]) >= anchor
    if margin is not None and reference is not None:
        kept &= np.array([c.pooled_log_likelihood for c in scored]) >= reference - margin
    if not kept.any():
        kept[int(np.argmax([c.pooled_log_likelihood for c in scored]))] = True
    return kept


def _stack_scored(data: CrowdLabels, scored: Sequence[_ScoredCandidate], anchor: float | None = None,
                 margin: float | None = None, reference: float | None = None, anchor_density: float = 0.0
                 ) -> tuple[np.ndarray, pd.DataFrame]:
    """(posteriors, report): the scored candidates anchored and stacked (steps 4 and 5 of ``Auto``'s docstring).

    Anchored by :func:`_anchored_candidates`, the ``anchor`` test only on panels whose :func:`_panel_density`
    is at least ``anchor_density``.
    """
    if _panel_density(data) < anchor_density:
        anchor = None
    anchored = _anchored_candidates(scored, anchor, margin, reference)
    kept_at = np.flatnonzero(anchored)
    weights = np.zeros(len(scored))
    weights[kept_at] = _stacking_weights(np.stack([scored[int(j)].probabilities for j in kept_at]))
    weights[weights < MIN_WEIGHT] = 0.0
    weights /= weights.sum()
    proba = np.zeros((data.n_items, data.n_classes))
    rows: list[dict[str, Any]] = []
    for c, weight, kept in zip(scored, weights, anchored):
        if weight > 0:
            proba += weight * temper(c.fit.full, c.beta)
        rows.append({"candidate": c.fit.name, "majority_agreement": c.agreement,
                     "pooled_log_likelihood": c.pooled_log_likelihood, "gold_accuracy": c.gold_accuracy,
                     "anchored": bool(kept),
                     "heldout_log_likelihood": c.heldout_log_likelihood,
                     "tempered_log_likelihood": log_score(c.probabilities), "beta": c.beta, "weight": float(weight),
                     "seconds": c.fit.seconds})
    proba /= proba.sum(axis=1, keepdims=True)
    return proba, pd.DataFrame(rows, columns=_REPORT_COLUMNS)


def _majority_reference(data: CrowdLabels, split: FoldSplit, fits: Sequence[_CandidateFit]) -> float:
    """Return the majority vote's pooled log-likelihood of the withheld labels (its fits among ``fits``, else made)."""
    fit = next((f for f in fits if f.name == "majority_vote"), None) or _fit_candidate("majority_vote", data, split)
    return log_score(_held_out_from(fit.folds, data, split, "pooled").probabilities(1.0))


def _stack_candidates(data: CrowdLabels, split: FoldSplit, fits: Sequence[_CandidateFit], criterion: str = "confusion",
                     calibrate: str | None = "tempering", anchor: float | None = None, margin: float | None = None,
                     anchor_density: float = 0.0) -> tuple[np.ndarray, pd.DataFrame]:
    """(posteriors, report): :func:`_score_candidate` on each fit, then :func:`_stack_scored`."""
    reference = _majority_reference(data, split, fits)
    return _stack_scored(data, [_score_candidate(data, split, fit, criterion, calibrate) for fit in fits], anchor,
                        margin, reference, anchor_density)


def _mixture_folds(fits: Sequence[_CandidateFit], weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each fold's mixture sum_m w_m T_m of the candidates' fold posteriors (the final weights)."""
    kept = [(float(w), fit) for w, fit in zip(weights, fits) if w > 0]
    return tuple(np.sum([w * fit.folds[f] for w, fit in kept], axis=0) for f in range(len(kept[0][1].folds)))


def _calibrate_mixture(data: CrowdLabels, split: FoldSplit, fits: Sequence[_CandidateFit], weights: np.ndarray,
                      judge_model: str = "pooled") -> Confidence:
    """Fit the temperature and floor of the mixture (step 7) on the withheld labels and gold of ``split``."""
    held_out = _held_out_from(_mixture_folds(fits, weights), data, split, judge_model)
    return fit_confidence(held_out, beta_range=_SOFTENING)
