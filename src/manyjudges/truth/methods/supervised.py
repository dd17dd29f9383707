"""Judges' skills learned from gold items alone: supervised Dawid-Skene (naive Bayes) and the best judge.

Given gold items G (known classes y_g), every judge's confusion is estimated from the gold items it labelled,
shrunk towards the pooled confusion of all judges (:func:`manyjudges.truth.heldout._judge_confusions` on
posteriors one-hot on the gold items and 0 elsewhere; s = ``strength`` pseudo-labels):

    pi[w, t, c] = (n[w, t, c] + s P[t, c]) / (n[w, t] + s),    n[w, t, c] = #{g in G labelled c by w, y_g = t}

with P[t, c] = sum_w n[w, t, c] / sum_w n[w, t] (a judge without gold labels gets P), and the class priors
p[t] = (#{g: y_g = t} + 1) / (|G| + K). Then one E-step on every item (Dawid and Skene 1979, eq. 2.5):

- :class:`SupervisedDawidSkene`: T[i, t] ∝ p[t] prod_{e: item_e = i} pi[judge_e, t, label_e] (the naive
  Bayes classifier of the judges' labels, trained on the gold items);
- :class:`BestJudge`: item i gets the label c of its judge w* most often right on the gold,
  a_w = (r_w + s A) / (n_w + s) (r_w of its n_w gold labels right, A the pooled share, held at 1/K or above;
  ties: the lowest judge code), with the one-coin posterior T[i, c] = a_w*, T[i, t] = (1 - a_w*) / (K - 1)
  elsewhere. Where the judges share their errors (LLM judges of one model family), one good judge can beat
  any product of them; its label is taken as it is, not remapped by a confusion estimated on a few gold items.

Neither runs EM: what the judges do on the gold items is all they learn, so a majority of judges that is
wrong the same way is followed only as far as the gold says it is right. Without gold (or with no gold
item) the posteriors are the label shares of each item (the soft majority vote) in the M-step instead:
one Dawid-Skene iteration from its usual start. Items without labels get the priors.
"""
from __future__ import annotations

from numbers import Real

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Interval
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.heldout import JUDGE_PRIOR, _judge_confusions

__all__ = ["BestJudge", "SupervisedDawidSkene"]


def _training_posteriors(data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """(n_items, K): one-hot on the gold items, 0 elsewhere; without gold, each item's label shares."""
    if gold is None or len(gold[0]) == 0:
        counts = data.class_counts.astype(float)
        return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    out = np.zeros((data.n_items, data.n_classes))
    out[np.asarray(gold[0]), np.asarray(gold[1])] = 1.0
    return out


def _gold_model(data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None,
               strength: float = JUDGE_PRIOR) -> tuple[np.ndarray, np.ndarray]:
    """((n_judges, K, K) pi, (K,) p): the judges' confusions and the class priors learned from ``gold``.

    The module docstring's M-step on posteriors one-hot on the gold items (item codes, class codes).
    """
    posteriors = _training_posteriors(data, gold)
    confusions = _judge_confusions(data, posteriors, strength)
    priors = (posteriors.sum(axis=0) + 1.0) / (posteriors.sum() + data.n_classes)
    return confusions, priors


def _naive_bayes(data: CrowdLabels, confusions: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """(n_items, K) T[i, t] ∝ p[t] prod_{e: item_e = i} pi[judge_e, t, label_e], in log space."""
    with np.errstate(divide="ignore"):
        log_pi = np.log(confusions[data.judge, :, data.label])  # (n_labels, K)
        log_t = np.tile(np.log(priors), (data.n_items, 1))
    for t in range(data.n_classes):
        log_t[:, t] += np.bincount(data.item, weights=log_pi[:, t], minlength=data.n_items)
    log_t -= log_t.max(axis=1, keepdims=True)
    out = np.exp(log_t)
    return out / out.sum(axis=1, keepdims=True)


def _best_judges(data: CrowdLabels, skills: np.ndarray) -> np.ndarray:
    """(n_labels,) True on the label of each item's judge of highest ``skills`` (ties: the lowest judge code)."""
    order = np.lexsort((data.judge, -skills[data.judge], data.item))
    first = np.ones(data.n_labels, dtype=bool)
    first[1:] = data.item[order][1:] != data.item[order][:-1]
    chosen = np.zeros(data.n_labels, dtype=bool)
    chosen[order[first]] = True
    return chosen


class SupervisedDawidSkene(TruthEstimator):
    """Naive Bayes on the judges' labels, each judge's confusion learned from the gold items alone.

    Parameters
    ----------
    strength : float
        Pseudo-labels of the pooled confusion in each judge's confusion row (default 1, as the held-out
        judge model's).
    calibrate : {"tempering", None}
        See :mod:`manyjudges.truth.base`.
    """

    gold_use = "fit"

    _parameter_constraints = {**TruthEstimator._parameter_constraints, "strength": [Interval(Real, 0, None)]}

    def __init__(self, strength: float = JUDGE_PRIOR, calibrate: str | None = None) -> None:
        self.strength, self.calibrate = strength, calibrate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        confusions, priors = _gold_model(data, gold, float(self.strength))
        skills = np.einsum("t,wtt->w", priors, confusions)
        return TruthFit(proba=_naive_bayes(data, confusions, priors), skills=skills, confusions=confusions)


class BestJudge(SupervisedDawidSkene):
    """Each item's class is the label of its judge most often right on the gold items (a one-coin posterior).

    Parameters as :class:`SupervisedDawidSkene`'s.
    """

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        training = _training_posteriors(data, gold)
        skills = _gold_accuracies(data, training, float(self.strength))
        chosen = _best_judges(data, skills)
        priors = (training.sum(axis=0) + 1.0) / (training.sum() + data.n_classes)
        proba = np.tile(priors, (data.n_items, 1))
        k = data.n_classes
        accuracy = skills[data.judge[chosen]][:, None]
        proba[data.item[chosen]] = np.where(np.eye(k, dtype=bool)[data.label[chosen]], accuracy,
                                            (1.0 - accuracy) / (k - 1))
        return TruthFit(proba=proba, skills=skills)


def _gold_accuracies(data: CrowdLabels, training: np.ndarray, strength: float = JUDGE_PRIOR) -> np.ndarray:
    """(n_judges,) a_w = (r_w + s A) / (n_w + s): each judge's accuracy on the training items, shrunk to the pooled A.

    r_w = sum of T[item_e, label_e] and n_w = sum of sum_t T[item_e, t] over judge w's labels e (T: ``training``,
    one-hot on the gold items, 0 elsewhere), A = sum_w r_w / sum_w n_w (1/K without training items); a_w is held
    at 1/K or above.
    """
    k = data.n_classes
    weight = training.sum(axis=1)[data.item]
    right = np.bincount(data.judge, weights=training[data.item, data.label], minlength=data.n_judges)
    seen = np.bincount(data.judge, weights=weight, minlength=data.n_judges)
    pooled = right.sum() / seen.sum() if seen.sum() > 0 else 1.0 / k
    return np.maximum((right + strength * pooled) / (seen + strength), 1.0 / k)
