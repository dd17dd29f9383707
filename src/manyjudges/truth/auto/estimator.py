"""Auto: the family's methods combined by how well each predicts labels it did not see, anchored to the majority.

No method is best on every panel: Dawid-Skene's full confusions win where judges have many labels
and overfit where they have few; majority vote and the one-coin model are the safe choices on
sparse panels; and where judges share their errors (LLM judges, runs of one model) a model that
explains each judge's bias can settle on the wrong classes with confidence. ``Auto`` decides on the
labels alone (:mod:`manyjudges.truth.heldout`):

1. The labels are dealt into ``n_folds`` folds over labels (each item keeps a label in every fit).
2. Each candidate method is fitted without each fold in turn; its posteriors, with a judge model
   fitted on them (``criterion``: each judge's confusion matrix, its accuracy alone, or one accuracy
   for all), give each withheld label a predictive probability.
3. (In the benchmark's grid only: each candidate's posteriors tempered, T^beta, before stacking; ``Auto``
   stacks them as fitted.)
4. Anchoring: a candidate whose classes agree with the majority vote on fewer than ``anchor`` of the
   items with a clear majority, or whose posteriors predict the withheld labels worse than majority
   vote's by more than ``margin`` nats a label under one accuracy for every judge, gets no weight.
   Such a candidate explains the labels by something other than the class the judges agree on
   (each judge's bias, errors shared by a cluster of judges, or classes swapped outright).
5. Stacking (Yao, Vehtari, Simpson and Gelman 2018): weights w on the simplex that maximise the
   withheld labels' log probability under the mixture sum_m w_m P_m, over the candidates left.
6. Each candidate is fitted on every label, and the posteriors are the mixture
   T[i, t] = sum_m w_m T_m[i, t]; the label is its argmax.
7. Calibration (``calibrate="tempering"``, the default): the mixture of the fold fits, with the same
   weights, predicts the withheld labels under one accuracy for every judge (``confidence_model``);
   the temperature (softening only) under the floor 1 / (n + 2), n withheld labels
   (:mod:`manyjudges.truth.confidence`), maps T to posteriors no surer than the labels allow.
   The labels do not change.

The defaults (the candidate list, ``criterion``, ``anchor``, ``anchor_density``, ``margin`` and
``confidence_model``) were chosen leave-one-group-out on a development pool of 30 real sets and 9 simulated
panels (``benchmarks/defaults/auto_stack.py``; the figures in ``benchmarks/README.md``): each group of sets
held out in turn, the configuration with the fewest sets more than 0.02 below majority vote, then
the highest mean accuracy, chosen on the rest.

``choice_`` is the candidate of largest weight and ``report_`` has, per candidate, its agreement with
the majority vote, its pooled log-likelihood of the withheld labels, whether it passed the anchor,
the mean log predictive probability of the withheld labels as fitted (``heldout_log_likelihood``)
and tempered, beta and the weight. ``confusions_`` and ``skills_`` (each judge's expected accuracy,
sum_t p[t] pi[w, t, t]) come from one M-step on the final posteriors. The truth never enters: a
truth column in the labels table is ignored like any other extra column.

Gold items (``gold=``, known answers) decide by accuracy, cross-fitted:

7. The gold items are dealt round the same folds (:func:`~manyjudges.truth.heldout._fold_split`); each fold's
   fits are given the other folds' gold and scored on the fold's own, so no gold answer scores a fit it trained.
8. The labels-only answer is steps 1-6 without the gold (the answer auto gives without gold items). The
   answers that may replace it: each candidate with the gold fixed in its fit, and each gold candidate
   (``gold_candidates``: supervised Dawid-Skene and the best judge, :mod:`manyjudges.truth.methods.supervised`, which
   learn the judges from the gold alone). Each is scored by which withheld gold answers its fold fits get
   right (argmax); one that gets them right more often than the labels-only answer by McNemar's statistic
   (b - c) / sqrt(b + c) of at least ``gold_evidence`` replaces it (the one right most often among those;
   :func:`gold_choice`), and the anchor to the majority vote is waived for it.
9. The answer taken is calibrated on the withheld gold answers: T^beta, beta fitted on its fold posteriors of
   the gold items and their classes (:func:`_calibrate_on_gold`); every gold item's posterior is then one-hot.

``report_`` then gives every answer's ``gold_accuracy`` (its fold fits' share of the withheld gold answers
right) and ``gold_evidence`` (McNemar's statistic against the labels-only answer), ``chosen_by_gold``, and the
final weights (1 on an answer the gold chose); ``gold_note()`` says it in one line.

Candidates (default): majority vote, Wawa, one-coin and full Dawid-Skene. ``ordered=True`` adds the
ordinal Dawid-Skene model; any registry name can be added (``candidates=[...]``); each costs
``n_folds + 1`` fits of that method.
"""
from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import BOOLEAN, Interval, Options, Satisfies
from manyjudges.truth.auto.gold_choice import (
    _LABEL_ANSWER,
    GoldAnswer,
    _calibrate_on_gold,
    _gold_answer,
    _label_answer,
    gold_choice,
    gold_evidence,
)
from manyjudges.truth.auto.stacking import (
    _REPORT_COLUMNS,
    _calibrate_mixture,
    _fit_candidate,
    _majority_reference,
    _score_candidate,
    _stack_candidates,
    _stack_scored,
)
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.confidence import Confidence
from manyjudges.truth.heldout import (
    DEFAULT_FOLDS,
    JUDGE_MODELS,
    FoldSplit,
    _fold_split,
    _judge_confusions,
    _label_folds,
    _split_without_gold,
)

__all__ = ["Auto"]

#: the candidates of every panel
DEFAULT_CANDIDATES = ("majority_vote", "wawa", "one_coin_dawid_skene", "dawid_skene")
#: the defaults of ``calibrate``, ``confidence_model``, ``criterion``, ``anchor``, ``anchor_density`` and
#: ``margin``, chosen with the candidate list leave-one-group-out on the development pool
#: (``benchmarks/defaults/auto_stack.py``)
DEFAULT_CALIBRATE: str | None = "tempering"
#: the judge model under which the final posteriors are calibrated on the withheld labels
DEFAULT_CONFIDENCE_MODEL = "pooled"
DEFAULT_CRITERION = "confusion"
DEFAULT_ANCHOR: float | None = 0.9
DEFAULT_ANCHOR_DENSITY = 0.1
DEFAULT_MARGIN: float | None = 0.05
#: added when the classes are ordered
ORDINAL_CANDIDATES = ("ordinal_dawid_skene",)
#: with gold items, fitted besides the candidates: they learn the judges from the gold alone
GOLD_CANDIDATES = ("supervised_dawid_skene", "best_judge")
#: with gold items, an answer that beats the labels-only answer on the withheld gold answers by this McNemar
#: statistic replaces it (:func:`gold_choice`). It and ``_GOLD_RANK`` were chosen leave one group out on the
#: development pool and the simulated suite, two seeded 10% gold draws per set
#: (``benchmarks/defaults/gold_evidence.py``)
DEFAULT_GOLD_EVIDENCE: float | None = 1.5


def gold_report(report: pd.DataFrame, answers: Sequence[GoldAnswer], chosen: int, seconds: dict[str, float]
                ) -> pd.DataFrame:
    """``report`` with the gold candidates' rows, each answer's gold accuracy and evidence, and the final weights.

    ``gold_evidence`` is McNemar's statistic against the labels-only answer (``answers[0]``); when the gold
    chose an answer (``chosen`` > 0) its weight is 1 and every other 0.
    """
    reference = answers[0].right
    rows = {a.name: (float(a.right.mean()) if len(a.right) else float("nan"), gold_evidence(a.right, reference))
            for a in answers[1:]}
    extra = pd.DataFrame([{"candidate": name, "seconds": seconds[name]} for name in rows
                          if name not in set(report["candidate"])], columns=report.columns)
    out = pd.concat([report, extra], ignore_index=True) if len(extra) else report.copy()
    out["gold_accuracy"] = out["candidate"].map(lambda n: rows[n][0])
    out["gold_evidence"] = out["candidate"].map(lambda n: rows[n][1])
    out["chosen_by_gold"] = out["candidate"] == (answers[chosen].name if chosen else None)
    out["anchored"] = out["anchored"].fillna(False).astype(bool)
    if chosen:
        out["weight"] = out["chosen_by_gold"].astype(float)
    out["weight"] = out["weight"].fillna(0.0)
    return out[_REPORT_COLUMNS]


def _names(value: object, least: int = 0) -> bool:
    """Whether ``value`` is a list (tuple, array) of at least ``least`` method names, not one name."""
    return (isinstance(value, (list, tuple, np.ndarray)) and len(value) >= least
            and all(isinstance(name, str) for name in value))


class Auto(TruthEstimator):
    """The family's methods anchored to the majority vote and stacked by the withheld labels' predictive probability.

    Parameters
    ----------
    candidates : sequence of str or None
        Registry names of the methods to combine; None: majority vote, Wawa, one-coin and full
        Dawid-Skene (and the ordinal model when ``ordered``).
    ordered : bool
        The classes are ordered (codes lowest first): the ordinal Dawid-Skene model is a candidate too.
    n_folds : int
        Folds over labels (>= 2).
    calibrate : {"tempering", None}
        Calibrate the final posteriors by the temperature and floor fitted on the withheld labels
        (default), or leave the mixture as it is.
    confidence_model : {"confusion", "one_coin", "pooled"}
        The judge model under which the calibration predicts the withheld labels (default: pooled, one
        accuracy for every judge).
    criterion : {"confusion", "one_coin", "pooled"}
        The judge model by which a withheld label is predicted from a candidate's posteriors
        (:func:`~manyjudges.truth.heldout._judge_model_confusions`): each judge's confusion matrix, its
        accuracy alone, or one accuracy for all (default: confusion).
    anchor : float or None
        A candidate whose classes agree with the majority vote on fewer than this share of the items with
        a clear majority gets no weight (default 0.9; None: no such test).
    anchor_density : float
        The ``anchor`` test applies only to panels whose density (labels / (items x judges)) is at least this
        (default 0.1: not to sparse crowds, where a model of each judge may overturn the majority and be right;
        0: every panel).
    margin : float or None
        A candidate whose posteriors predict the withheld labels worse than the majority vote's, by more than
        this many nats a label, under one accuracy for every judge (the ``pooled`` judge model), gets no
        weight (default 0.05; None: no such test).
    random_state : int
        Seed of the folds.
    gold_evidence : float or None
        With gold items: an answer that gets the gold answers its fits were not given right more often than the
        labels-only answer, by at least this McNemar statistic, replaces it (:func:`gold_choice`; default 1.5;
        None: the labels decide alone).
    gold_candidates : sequence of str or None
        With gold items: registry names fitted besides ``candidates``, for the gold to choose among (None:
        supervised Dawid-Skene and the best judge, which learn the judges from the gold alone).
    """

    gold_use = "fit"
    _parameter_constraints = {
        **TruthEstimator._parameter_constraints,
        "candidates": [Satisfies(lambda v: _names(v, 1), "a non-empty list of method names"), None],
        "ordered": [BOOLEAN],
        "n_folds": [Interval(Integral, 2, None)],
        "criterion": [Options(JUDGE_MODELS)],
        "anchor": [Interval(Real, 0, 1), None],
        "anchor_density": [Interval(Real, 0, 1)],
        "margin": [Interval(Real, 0, None), None],
        "confidence_model": [Options(JUDGE_MODELS)],
        "random_state": [Interval(Integral)],
        "gold_evidence": [Interval(Real, 0, None), None],
        "gold_candidates": [Satisfies(_names, "a list of method names"), None],
    }

    def __init__(self, candidates: Sequence[str] | None = None, ordered: bool = False, n_folds: int = DEFAULT_FOLDS,
                 calibrate: str | None = DEFAULT_CALIBRATE, criterion: str = DEFAULT_CRITERION,
                 anchor: float | None = DEFAULT_ANCHOR, anchor_density: float = DEFAULT_ANCHOR_DENSITY,
                 margin: float | None = DEFAULT_MARGIN, confidence_model: str = DEFAULT_CONFIDENCE_MODEL,
                 random_state: int = 0, gold_evidence: float | None = DEFAULT_GOLD_EVIDENCE,
                 gold_candidates: Sequence[str] | None = None) -> None:
        self.candidates = candidates
        self.ordered = ordered
        self.n_folds = n_folds
        self.calibrate = calibrate
        self.criterion = criterion
        self.anchor = anchor
        self.anchor_density = anchor_density
        self.margin = margin
        self.confidence_model = confidence_model
        self.random_state = random_state
        self.gold_evidence = gold_evidence
        self.gold_candidates = gold_candidates

    def candidate_names(self) -> list[str]:
        """Return the registry names ``fit`` combines."""
        if self.candidates is not None:
            return list(dict.fromkeys(self.candidates))
        return [*DEFAULT_CANDIDATES, *(ORDINAL_CANDIDATES if self.ordered else ())]

    def _check_params(self) -> None:
        """Check the declared constraints, then that every candidate is a truth method other than auto."""
        super()._check_params()
        from manyjudges.truth.registry import TRUTH_METHODS

        for name in [*self.candidate_names(), *self.gold_candidate_names()]:
            if name == "auto":
                raise ValueError("candidates: auto cannot be its own candidate")
            TRUTH_METHODS.check(name)

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        split = _fold_split(data, _label_folds(data, int(self.n_folds), int(self.random_state)), gold,
                           int(self.random_state))
        anchor = None if self.anchor is None else float(self.anchor)
        margin = None if self.margin is None else float(self.margin)
        self.gold_answers_: list[GoldAnswer] = []
        self.gold_split_ = split
        if gold is None or len(gold[0]) == 0:
            fits = [_fit_candidate(name, data, split) for name in self.candidate_names()]
            proba, report = _stack_candidates(data, split, fits, self.criterion, None, anchor, margin,
                                             float(self.anchor_density))
            report = report.assign(chosen_by_gold=False)[_REPORT_COLUMNS]
            confidence = (_calibrate_mixture(data, split, fits, report["weight"].to_numpy(), self.confidence_model)
                          if self.calibrate == "tempering" else Confidence())
        else:
            proba, report, confidence = self._fit_gold(data, split, gold, anchor, margin)
        weights = report["weight"].to_numpy()
        self.report_ = report
        self.weights_ = pd.Series(weights, index=pd.Index(report["candidate"], name="candidate"), name="weight")
        self.choice_ = str(report["candidate"].iloc[int(np.argmax(weights))])
        confusions = _judge_confusions(data, proba)
        priors = proba.mean(axis=0)
        skills = np.einsum("t,wtt->w", priors, confusions)
        proba = confidence.apply(proba)
        if gold is not None:  # known answers stay one-hot
            proba[gold[0]] = 0.0
            proba[gold[0], gold[1]] = 1.0
        return TruthFit(proba=proba, skills=skills, confusions=confusions, n_iter=0, confidence=confidence)

    def _fit_gold(self, data: CrowdLabels, split: FoldSplit, gold: tuple[np.ndarray, np.ndarray],
                  anchor: float | None, margin: float | None) -> tuple[np.ndarray, pd.DataFrame, Confidence]:
        """(posteriors, report, calibration) with gold: the labels-only answer, overruled by the gold when beaten.

        The labels-only answer is the anchored stack fitted and chosen without the gold (the answer without gold
        items). The answers the gold may choose instead: each candidate with the gold fixed in its fit, and each
        gold candidate; all are scored on the gold answers their fold fits were not given (:func:`gold_choice`),
        and the answer taken is calibrated on them (:func:`_calibrate_on_gold`).
        """
        plain = _split_without_gold(split)
        fits = [_fit_candidate(name, data, plain) for name in self.candidate_names()]
        reference = _majority_reference(data, plain, fits)
        scored = [_score_candidate(data, plain, fit, self.criterion, None) for fit in fits]
        _, report = _stack_scored(data, scored, anchor, margin, reference, float(self.anchor_density))
        names = [*self.candidate_names(), *self.gold_candidate_names()]
        helped = [_fit_candidate(name, data, split, gold) for name in dict.fromkeys(names)]
        answers = [_label_answer(split, scored, report["weight"].to_numpy()),
                   *(_gold_answer(f.name, split, f.folds, f.full) for f in helped)]
        chosen = gold_choice(answers, None if self.gold_evidence is None else float(self.gold_evidence))
        confidence = _calibrate_on_gold(answers[chosen], split) if self.calibrate == "tempering" else Confidence()
        self.gold_answers_ = answers
        table = gold_report(report, answers, chosen, {f.name: f.seconds for f in helped})
        return answers[chosen].full, table, confidence

    def gold_note(self) -> str | None:
        """One line on what the gold decided in the last fit (None without gold items).

        Each answer's share of the held-out gold answers right (each scored by fold fits not given it), McNemar's
        statistic against the labels-only answer, and the answer taken.
        """
        if not self.gold_answers_:
            return None
        first, *others = self.gold_answers_
        scores = ", ".join(f"{a.name} {a.right.mean():.3f} ({gold_evidence(a.right, first.right):+.1f})"
                           for a in others)
        chosen = self.report_.loc[self.report_["chosen_by_gold"], "candidate"]
        verdict = (f"chosen by gold: {chosen.iloc[0]}" if len(chosen) else
                   f"kept: the labels-only answer (no answer beat it by McNemar's statistic >= {self.gold_evidence})")
        calibrated = (f"calibrated on them, beta {self.beta_:.3g}, floor {self.floor_:.2g}" if self.calibrate
                      else "not calibrated")
        return (f"gold: {len(first.right)} held-out gold answers right: {_LABEL_ANSWER} {first.right.mean():.3f}; "
                f"{scores} (McNemar against {_LABEL_ANSWER}); {verdict}; {calibrated}")

    def gold_candidate_names(self) -> list[str]:
        """Return the registry names fitted besides the candidates when gold items are given."""
        return list(dict.fromkeys(GOLD_CANDIDATES if self.gold_candidates is None else self.gold_candidates))
