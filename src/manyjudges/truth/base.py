"""The truth-inference estimator interface (scikit-learn / crowd-kit style).

An estimator is built with its parameters (the constructor stores them, nothing else), then
``fit(labels)`` on a long labels table (``item``, ``judge`` or ``worker``, ``label``) or a
:class:`~manyjudges.core.coded_labels.CrowdLabels`, and has

- ``labels_`` : pandas Series, index ``item``: the inferred class of each item;
- ``proba_`` : pandas DataFrame, index ``item``, one column per class: P(true class | labels),
  rows summing to 1;
- ``skills_`` : pandas Series, index ``judge``: one skill per judge (its meaning is the
  method's: an accuracy, an ability, a weight), or None;
- ``confusions_`` : pandas DataFrame with index (``judge``, ``truth``) and one column per
  class: P(judge says c | true class), for the methods that estimate one, else None;
- ``n_iter_`` : iterations run (0 for the methods that do not iterate).

``fit(labels, gold=GOLD)`` takes known answers for some items (``item, truth``): a method whose
``gold_use`` is ``"fit"`` keeps their posteriors fixed on the known class throughout its fit, so
the judges' confusions are learned from them too; one with ``"labels"`` (no judge model to
learn) gives them their known class after the fit. Either way the gold items' ``proba_`` is
one-hot and ``gold_`` holds them. A method with neither says so (a ValueError).

Every fit runs on the labels sorted by (item, judge, label) code
(:func:`~manyjudges.core.coded_labels.canonical_order`): the same judgments in any row order give the same
numbers, bit for bit, whatever the method and wherever it stops (but for majority vote and Wawa
with ``ties="first"``, whose answer is the table's order by definition).

``labels_`` is the argmax of ``proba_``; equal posteriors go to the lowest class, unless a method
states otherwise (majority vote's ``ties``).

``calibrate="tempering"`` (a parameter of every method): the posteriors are tempered and floored,
proba -> (1 - K f) proba^beta / Z + f, by the temperature beta and floor f that best predict labels
withheld from fits of the same method (:mod:`manyjudges.truth.confidence`); ``beta_`` and ``floor_`` hold
them (1.0 and 0.0 without calibration). The labels do not change; gold items stay one-hot.
``get_params`` / ``set_params`` follow scikit-learn's rule: the constructor's parameters.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import cast

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels, canonical_order, gold_codes
from manyjudges.core.estimator import Estimator
from manyjudges.core.parameters import Constraint, Interval, Options
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth.confidence import Confidence, fit_confidence
from manyjudges.truth.heldout import _fold_split, _label_folds, held_out

__all__ = ["TruthEstimator", "TruthFit"]


#: the values of a method's ``calibrate`` parameter besides None
_CALIBRATIONS = ("tempering",)


def _row_argmax(scores: np.ndarray) -> np.ndarray:
    """(n,) the column of each row's largest value of ``scores`` (n, K), the lowest column on exact ties.

    ``np.argmax(scores, axis=1)``'s result on rows without NaN, computed as K column passes: numpy
    reduces a few adjacent values per row many times slower than it compares two columns of n values.
    """
    scores = np.asarray(scores)
    best = scores[:, 0].copy()
    chosen = np.zeros(len(scores), dtype=np.int64)
    for c in range(1, scores.shape[1]):
        column = scores[:, c]
        higher = column > best
        chosen[higher] = c
        np.maximum(best, column, out=best)
    return chosen


@dataclass(frozen=True)
class TruthFit:
    """What a method's ``_fit`` returns, on codes (``CrowdLabels``'s item, judge and class order)."""

    #: (n_items, K) posteriors, rows summing to 1
    proba: np.ndarray
    #: (n_items,) chosen classes; None: the argmax of ``proba``, the lowest class on ties
    labels: np.ndarray | None = None
    #: (n_judges,) one skill per judge, or None
    skills: np.ndarray | None = None
    #: (n_judges, K, K) confusion[w, t, c] = P(w says c | truth t), or None
    confusions: np.ndarray | None = None
    n_iter: int = 0
    #: the calibration ``_fit`` already applied to ``proba`` (a method that calibrates in its fit), or None
    confidence: Confidence | None = None


#: the ``_fit`` of a method whose ``gold_use`` is ``"fit"``: it also takes the gold (item codes, class codes)
_FitWithGold = Callable[[CrowdLabels, tuple[np.ndarray, np.ndarray]], TruthFit]


#: what the parameters every EM estimator of the family shares may be (besides ``calibrate``)
EM_CONSTRAINTS: dict[str, list[Constraint]] = {
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None)],
    "smoothing": [Interval(Real, 0, None)],
}


class TruthEstimator(Estimator):
    """Base class of the family's methods.

    Subclasses implement ``_fit(data: CrowdLabels) -> TruthFit`` and declare their parameters' constraints,
    ``calibrate``'s among them (``{**TruthEstimator._parameter_constraints, ...}``).

    Attributes
    ----------
    proba_ : pandas.DataFrame
        The posteriors, items by class.
    labels_ : pandas.Series
        The class of each item.
    """

    labels_: pd.Series
    proba_: pd.DataFrame
    skills_: pd.Series | None
    confusions_: pd.DataFrame | None
    n_iter_: int
    gold_: pd.Series | None
    beta_: float
    floor_: float
    #: how ``fit(..., gold=...)`` uses known answers: ``"fit"`` (``_fit(data, gold)`` keeps them fixed),
    #: ``"labels"`` (the gold items get their class after the fit), or None (not supported)
    gold_use: str | None = None
    #: see the module docstring; subclasses take it as a constructor parameter
    calibrate: str | None = None
    _parameter_constraints = {"calibrate": [Options(_CALIBRATIONS), None]}

    def posteriors_on(self, data: CrowdLabels, known: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """(n_items, K) the posteriors of a fit on coded labels, without calibration.

        Gold items ``known`` (item codes, class codes) are used as ``gold_use`` says. Sets none of ``labels_``,
        ``proba_``, ``skills_``, ``confusions_`` (a method may keep its own fitted values, e.g. Dawid-Skene's
        ``priors_``).
        """
        self._check_params()
        return self._fit_with_gold(self._fit_order(data), known)[1]

    def fit(self, labels: pd.DataFrame | CrowdLabels, classes: Sequence | None = None,
            duplicates: str = "error", gold: pd.DataFrame | pd.Series | None = None) -> TruthEstimator:
        """Infer one class per item from ``labels``; return self.

        ``classes`` and ``duplicates`` as in :func:`~manyjudges.core.coded_labels.as_crowd_labels`; ``gold``
        (``item, truth``, or a Series of classes indexed by item): known answers, used as ``gold_use`` says.
        """
        self._check_params()
        data = self._fit_order(as_crowd_labels(labels, classes=classes, duplicates=duplicates))
        known = None
        if gold is not None:
            if self.gold_use is None:
                raise ValueError(f"{type(self).__name__} does not use gold items (methods that do: those whose "
                                 "gold_use is 'fit' or 'labels')")
            items, codes, unlabelled = gold_codes(data, gold)
            if unlabelled:
                warnings.warn(f"gold: {unlabelled} of {unlabelled + len(items)} gold items have no labels and are "
                              "left out", DataWarning, stacklevel=2)
            known = (items, codes)
        result, proba = self._fit_with_gold(data, known)
        chosen = _row_argmax(proba) if result.labels is None else np.array(result.labels, copy=True)
        self.gold_ = None
        if known is not None:
            chosen[known[0]] = known[1]
            self.gold_ = pd.Series(data.classes[known[1]], index=pd.Index(data.items[known[0]], name="item"),
                                   name="label")
        confidence = result.confidence or Confidence()
        if self.calibrate == "tempering" and result.confidence is None:
            confidence = self._tempering(data, known)
            proba = confidence.apply(proba)
            if known is not None:  # known answers stay one-hot
                proba[known[0]] = 0.0
                proba[known[0], known[1]] = 1.0
        self.beta_, self.floor_ = confidence.beta, confidence.floor
        items = pd.Index(data.items, name="item")
        classes_index = pd.Index(data.classes, name="label")
        self.proba_ = pd.DataFrame(proba, index=items, columns=classes_index)
        self.labels_ = pd.Series(data.classes[chosen], index=items, name="label")
        judges = pd.Index(data.judges, name="judge")
        self.skills_ = None if result.skills is None else pd.Series(
            np.asarray(result.skills, dtype=float), index=judges, name="skill")
        self.confusions_ = None
        if result.confusions is not None:
            conf = np.asarray(result.confusions, dtype=float)
            index = pd.MultiIndex.from_product([data.judges, data.classes], names=["judge", "truth"])
            self.confusions_ = pd.DataFrame(conf.reshape(-1, data.n_classes), index=index, columns=classes_index)
        self.n_iter_ = int(result.n_iter)
        return self

    def _fit_with_gold(self, data: CrowdLabels, known: tuple[np.ndarray, np.ndarray] | None
                       ) -> tuple[TruthFit, np.ndarray]:
        """Return the method's fit and a copy of its posteriors (n_items, K), each gold item one-hot on its class.

        ``known`` (item codes, class codes) goes to ``_fit`` when ``gold_use`` is ``"fit"`` (kept fixed during the
        fit); either way the gold items' posteriors are then set to P(t) = [t = known class].
        """
        if known is not None and self.gold_use == "fit":
            result = cast(_FitWithGold, self._fit)(data, known)
        else:
            result = self._fit(data)
        proba = np.array(result.proba, dtype=float)
        if proba.shape != (data.n_items, data.n_classes):
            raise ValueError(f"{type(self).__name__} returned posteriors of shape {proba.shape} "
                             f"for {data.n_items} items and {data.n_classes} classes")
        if known is not None:
            proba[known[0]] = 0.0
            proba[known[0], known[1]] = 1.0
        return result, proba

    def uses_row_order(self) -> bool:
        """Tell whether the method's answer depends on the order of the labels' rows by definition.

        True for majority vote and Wawa with ``ties="first"``: their fits see the table's order instead of the
        sorted one.
        """
        return False

    def _fit_order(self, data: CrowdLabels) -> CrowdLabels:
        """Return the labels a fit runs on.

        They are sorted by code (:func:`~manyjudges.core.coded_labels.canonical_order`), unless
        :meth:`uses_row_order`.
        """
        return data if self.uses_row_order() else canonical_order(data)

    def _tempering(self, data: CrowdLabels, known: tuple[np.ndarray, np.ndarray] | None) -> Confidence:
        """Return the temperature and floor of ``calibrate="tempering"``.

        They are fitted on fits of this method (uncalibrated) without each fold of labels.
        """
        method = type(self)(**{**self.get_params(), "calibrate": None})
        return fit_confidence(held_out(method.posteriors_on, data, _fold_split(data, _label_folds(data), known)))

    def fit_predict(self, labels: pd.DataFrame | CrowdLabels, **kwargs) -> pd.Series:
        """Return ``fit(labels, **kwargs).labels_``: a Series of classes indexed by item.

        This is crowd-kit's ``fit_predict``; a ``task`` column is read as ``item``.
        """
        return self.fit(labels, **kwargs).labels_

    def fit_predict_proba(self, labels: pd.DataFrame | CrowdLabels, **kwargs) -> pd.DataFrame:
        """Return ``fit(labels, **kwargs).proba_``: the posteriors, items x classes.

        This is crowd-kit's ``fit_predict_proba``.
        """
        return self.fit(labels, **kwargs).proba_

    def _fit(self, data: CrowdLabels) -> TruthFit:  # pragma: no cover
        raise NotImplementedError
