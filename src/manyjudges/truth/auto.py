"""Auto: the family's methods combined by how well each predicts labels it did not see.

No method is best on every panel: Dawid-Skene's full confusions win where workers have many labels
and overfit where they have few; majority vote and the one-coin model are the safe choices on
sparse panels. ``Auto`` decides on the labels alone (:mod:`manyjudges.truth.heldout`):

1. The labels are dealt into ``n_folds`` folds over labels (each item keeps a label in every fit).
2. Each candidate method is fitted without each fold in turn; its posteriors, with the worker model
   of one Dawid-Skene M-step on them, give each withheld label a predictive probability.
3. Each candidate's posteriors are tempered, T^beta, with the beta that best predicts the withheld
   labels (``calibrate="tempering"``; ``None`` keeps beta = 1).
4. Stacking (Yao, Vehtari, Simpson and Gelman 2018): weights w on the simplex that maximise the
   withheld labels' log probability under the mixture sum_m w_m P_m.
5. Each candidate with weight is fitted on every label, and the posteriors are the mixture
   T[i, t] = sum_m w_m T_m^beta_m[i, t]; the label is its argmax.

``choice_`` is the candidate of largest weight and ``report_`` has, per candidate, the mean log
predictive probability of the withheld labels as fitted (``heldout_log_likelihood``) and tempered,
beta and the weight. ``confusions_`` and ``skills_`` (each worker's expected accuracy,
sum_t p[t] pi[w, t, t]) come from one M-step on the final posteriors. The truth never enters: a
truth column in the labels table is ignored like any other extra column. Gold items (``gold=``) are
dealt round the same folds: each fold's fits are given the other folds' gold, and each withheld gold
answer is scored in steps 3 and 4 as a label from a worker who is always right (probability
T[i, class]); the final fits are given all of them.

Candidates (default): majority vote, Wawa, one-coin and full Dawid-Skene, Dawid-Skene with add-one
smoothing (``dawid_skene_map``: steadier where workers have few labels), and, with ``ordered=True``
(the classes are ordered, lowest first), the ordinal Dawid-Skene model. Any registry name can be
added (``candidates=[...]``); each costs ``n_folds + 1`` fits of that method.
"""
from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.coded_labels import CrowdLabels
from manyjudges.truth.base import TruthEstimator, TruthFit, check_number
from manyjudges.truth.heldout import (
    DEFAULT_FOLDS,
    fit_tempering,
    fold_split,
    held_out,
    label_folds,
    log_score,
    stacking_weights,
    temper,
    worker_confusions,
)

__all__ = ["DEFAULT_CANDIDATES", "ORDINAL_CANDIDATES", "Auto"]

#: the candidates of every panel
DEFAULT_CANDIDATES = ("majority_vote", "wawa", "one_coin_dawid_skene", "dawid_skene", "dawid_skene_map")
#: added when the classes are ordered
ORDINAL_CANDIDATES = ("ordinal_dawid_skene",)
#: a candidate whose stacking weight is below this is not refitted on all labels (its weight goes to the others)
MIN_WEIGHT = 1e-3


class Auto(TruthEstimator):
    """The family's methods stacked by the withheld labels' predictive probability, each tempered.

    Parameters
    ----------
    candidates : sequence of str or None
        Registry names of the methods to combine; None: majority vote, Wawa, one-coin and full
        Dawid-Skene, Dawid-Skene with add-one smoothing (and the ordinal model when ``ordered``).
    ordered : bool
        The classes are ordered (codes lowest first): the ordinal Dawid-Skene model is a candidate.
    n_folds : int
        Folds over labels (>= 2).
    calibrate : {"tempering", None}
        Temper each candidate's posteriors by the beta fitted on the withheld labels (default), or not.
    random_state : int
        Seed of the folds.
    """

    gold_use = "fit"
    calibrates_in_fit = True

    def __init__(self, candidates: Sequence[str] | None = None, ordered: bool = False, n_folds: int = DEFAULT_FOLDS,
                 calibrate: str | None = "tempering", random_state: int = 0) -> None:
        self.candidates = candidates
        self.ordered = ordered
        self.n_folds = n_folds
        self.calibrate = calibrate
        self.random_state = random_state

    def candidate_names(self) -> list[str]:
        """The registry names ``fit`` combines."""
        if self.candidates is not None:
            return list(dict.fromkeys(self.candidates))
        return [*DEFAULT_CANDIDATES, *(ORDINAL_CANDIDATES if self.ordered else ())]

    def _check_params(self) -> None:
        from manyjudges.truth.registry import TRUTH_METHODS

        check_number("n_folds", self.n_folds, low=2, integer=True)
        check_number("random_state", self.random_state, integer=True)
        if not isinstance(self.ordered, (bool, np.bool_)):
            raise ValueError(f"ordered must be true or false, got {self.ordered!r}")
        if isinstance(self.candidates, str) or (self.candidates is not None and not list(self.candidates)):
            raise ValueError(f"candidates must be a non-empty list of method names, got {self.candidates!r}")
        for name in self.candidate_names():
            if name == "auto":
                raise ValueError("candidates: auto cannot be its own candidate")
            TRUTH_METHODS.check(name)

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        from manyjudges.truth.registry import make_truth_estimator

        folds = fold_split(data, label_folds(data, int(self.n_folds), int(self.random_state)), gold,
                           int(self.random_state))
        names = self.candidate_names()
        rows: list[dict[str, Any]]  # one report row per candidate
        rows, predictive, betas = [], [], []
        for name in names:
            start = perf_counter()
            method = make_truth_estimator(name)
            held = held_out(method.posteriors_on, data, folds)
            beta = fit_tempering(held) if self.calibrate == "tempering" else 1.0
            probabilities = held.probabilities(beta)
            rows.append({"candidate": name, "heldout_log_likelihood": log_score(held.probabilities(1.0)),
                         "tempered_log_likelihood": log_score(probabilities), "beta": beta,
                         "seconds": perf_counter() - start})
            predictive.append(probabilities)
            betas.append(beta)
        weights = stacking_weights(np.stack(predictive))
        weights[weights < MIN_WEIGHT] = 0.0
        weights /= weights.sum()
        proba = np.zeros((data.n_items, data.n_classes))
        for name, weight, beta, row in zip(names, weights, betas, rows):
            row["weight"] = float(weight)
            if weight > 0:
                start = perf_counter()
                proba += weight * temper(make_truth_estimator(name).posteriors_on(data, gold), beta)
                row["seconds"] += perf_counter() - start
        proba /= proba.sum(axis=1, keepdims=True)
        report = pd.DataFrame(rows, columns=["candidate", "heldout_log_likelihood", "tempered_log_likelihood", "beta",
                                             "weight", "seconds"])
        self.report_ = report
        self.weights_ = pd.Series(weights, index=pd.Index(names, name="candidate"), name="weight")
        self.choice_ = names[int(np.argmax(weights))]
        confusions = worker_confusions(data, proba)
        priors = proba.mean(axis=0)
        skills = np.einsum("t,wtt->w", priors, confusions)
        return TruthFit(proba=proba, skills=skills, confusions=confusions, n_iter=0)
