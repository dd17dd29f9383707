"""The gold's choice: answers scored on known answers their fits were not given, and calibrated on them.

With gold items, ``Auto`` (:mod:`manyjudges.truth.auto.estimator`, steps 7-9 of its docstring) deals the gold round its
folds, so each fold's fits are given the other folds' gold only. Each answer (the labels-only answer, each
candidate with the gold fixed in its fit, each gold candidate) is a :class:`GoldAnswer`: its fold posteriors,
scored on the gold each fold withheld. :func:`gold_choice` keeps the labels-only answer unless another gets
those gold answers right more often by McNemar's statistic (:func:`gold_evidence`); :func:`_calibrate_on_gold`
fits the chosen answer's temperature and floor (:mod:`manyjudges.truth.confidence`) on them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from manyjudges.truth.base import _row_argmax
from manyjudges.truth.confidence import Confidence, _least_floor, fit_confidence
from manyjudges.truth.heldout import FoldSplit, HeldOut, log_score

if TYPE_CHECKING:
    from manyjudges.truth.auto.stacking import _ScoredCandidate

__all__ = ["GoldAnswer", "gold_choice", "gold_evidence"]

#: how the gold ranks the answers that beat the labels-only answer (:func:`gold_choice`)
_GOLD_RANKS = ("accuracy", "log_score")
_GOLD_RANK = "accuracy"
#: the name of the labels-only answer (the anchored stack) among the answers the gold chooses from
_LABEL_ANSWER = "labels_only"


def gold_evidence(right: np.ndarray, reference: np.ndarray) -> float:
    """McNemar's statistic for "right more often than the reference" on the same gold answers.

    It is (b - c) / sqrt(b + c), b the answers only ``right`` gets right, c those only ``reference`` does; 0
    when they never differ.
    """
    b = int(np.sum(right & ~reference))
    c = int(np.sum(~right & reference))
    return (b - c) / np.sqrt(b + c) if b + c else 0.0


@dataclass(frozen=True)
class GoldAnswer:
    """An answer the gold may choose: its fold posteriors, its posteriors on every label, its withheld gold right."""

    name: str
    #: (n_items, K) per fold: fitted without the fold's labels and gold answers
    folds: tuple[np.ndarray, ...]
    full: np.ndarray
    #: whether its fold posteriors get each withheld gold answer right (argmax, in the folds' order)
    right: np.ndarray
    #: the mean log probability of the withheld gold answers' classes, its fold posteriors calibrated on them
    log_score: float


def _gold_rows(folds: Sequence[np.ndarray], split: FoldSplit) -> HeldOut:
    """Return the withheld gold answers as a :class:`HeldOut`: each one's fold posterior and class, one-hot."""
    k = folds[0].shape[1] if len(folds) else 1
    posteriors = [fitted[items] for fitted, (items, _) in zip(folds, split.gold_withheld)]
    said = [np.eye(k)[classes] for _, classes in split.gold_withheld]
    return HeldOut(np.concatenate([np.zeros((0, k)), *posteriors]), np.concatenate([np.zeros((0, k)), *said]))


def _gold_calibration(held: HeldOut, floor: float | None = None) -> Confidence:
    """Fit the calibration on withheld gold answers (``held``, from :func:`_gold_rows`).

    The one place it is fitted: the temperature and floor of :mod:`manyjudges.truth.confidence` (beta in
    [0.02, 5]: the gold is the truth, so it may sharpen as well as soften) that give the known classes of
    ``held`` the highest mean log probability (Guo et al. 2017's temperature scaling, on gold answers no fit
    was given); ``floor`` defaults to 1 / (n + 2) for the n gold answers.
    """
    return fit_confidence(held, floor)


def _gold_answer(name: str, split: FoldSplit, folds: Sequence[np.ndarray], full: np.ndarray) -> GoldAnswer:
    """Return a :class:`GoldAnswer` from fold and full posteriors, scored on the gold each fold withholds."""
    parts = [_row_argmax(fitted[items]) == classes for fitted, (items, classes) in zip(folds, split.gold_withheld)]
    right = np.concatenate(parts) if parts else np.zeros(0, dtype=bool)
    held = _gold_rows(folds, split)
    calibrated = _gold_calibration(held).apply(held.posteriors)
    score = log_score(np.einsum("et,et->e", calibrated, held.said)) if len(right) else float("nan")
    return GoldAnswer(name, tuple(folds), full, right, score)


def _label_answer(split: FoldSplit, scored: Sequence[_ScoredCandidate], weights: np.ndarray) -> GoldAnswer:
    """Return the labels-only answer (the anchored stack, steps 4 to 6) with its fold posteriors.

    Each fold's posteriors are the stack's mixture of the candidates' fold posteriors, sum_m w_m T_m, with the
    weights fitted on every fold's withheld labels (no gold enters them).
    """
    def mix(part: Sequence[np.ndarray]) -> np.ndarray:
        out = np.sum([w * t for w, t in zip(weights, part) if w > 0], axis=0)
        return out / out.sum(axis=1, keepdims=True)

    folds = [mix([c.fit.folds[f] for c in scored]) for f in range(len(split.gold_withheld))]
    return _gold_answer(_LABEL_ANSWER, split, folds, mix([c.fit.full for c in scored]))


def gold_choice(answers: Sequence[GoldAnswer], evidence: float | None, rank: str = _GOLD_RANK) -> int:
    """Return the index of the answer the gold chooses; 0 (``answers[0]``, the labels-only answer) unless beaten.

    An answer beats ``answers[0]`` when it gets the withheld gold answers right more often, by McNemar's
    statistic (:func:`gold_evidence`) of at least ``evidence``; among those, the one of highest ``rank``:
    ``"accuracy"`` (right most often) or ``"log_score"`` (:attr:`GoldAnswer.log_score`); ties: the first.
    ``evidence`` None: the gold never overrules the labels-only answer.
    """
    if rank not in _GOLD_RANKS:
        raise ValueError(f"rank must be one of {', '.join(_GOLD_RANKS)}, got {rank!r}")
    if evidence is None:
        return 0
    reference = answers[0].right
    passed = [j for j, a in enumerate(answers[1:], 1) if gold_evidence(a.right, reference) >= evidence]
    if not passed:
        return 0
    if rank == "accuracy":
        return max(passed, key=lambda j: (int(answers[j].right.sum()), -j))
    return max(passed, key=lambda j: (answers[j].log_score, -j))


def _gold_held_out(answer: GoldAnswer, split: FoldSplit) -> HeldOut:
    """Return ``answer``'s withheld gold answers as a :class:`HeldOut` (:func:`_gold_rows`)."""
    return _gold_rows(answer.folds, split)


def _calibrate_on_gold(answer: GoldAnswer, split: FoldSplit) -> Confidence:
    """``answer``'s calibration on its withheld gold (:func:`_gold_calibration`).

    Its floor is 1 / (n + 2) for the n withheld labels and gold answers of ``split``: the evidence the answer's
    folds were checked on.
    """
    evidence = int(np.sum(split.folds >= 0)) + sum(len(items) for items, _ in split.gold_withheld)
    return _gold_calibration(_gold_held_out(answer, split), _least_floor(evidence))
