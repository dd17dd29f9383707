"""Truth-inference methods by name (``make_truth_estimator`` and the ``method`` of a truth config).

Your own method: ``package.module:callable`` returning an object with ``fit(labels)`` that sets
``labels_``, ``proba_`` and ``skills_``; subclass :class:`~manyjudges.truth.base.TruthEstimator`.
"""
from __future__ import annotations

from typing import Any

from manyjudges.core.registry import Builtin, Registry
from manyjudges.truth.auto.estimator import Auto
from manyjudges.truth.base import TruthEstimator
from manyjudges.truth.methods.dawid_skene import DawidSkene
from manyjudges.truth.methods.ebcc.estimator import EBCC
from manyjudges.truth.methods.glad import GLAD
from manyjudges.truth.methods.mace import MACE
from manyjudges.truth.methods.majority_vote import MajorityVote
from manyjudges.truth.methods.one_coin import OneCoinDawidSkene
from manyjudges.truth.methods.ordinal.estimator import OrdinalDawidSkene
from manyjudges.truth.methods.supervised import BestJudge, SupervisedDawidSkene
from manyjudges.truth.methods.wawa import Wawa

__all__ = ["TRUTH_METHODS", "make_truth_estimator"]

TRUTH_METHODS = Registry("truth", {
    "majority_vote": Builtin(MajorityVote, "Majority vote: each item's most frequent label, ties to the lowest class"),
    "majority_vote_random": Builtin(MajorityVote, "Majority vote with ties broken uniformly at random (seeded)",
                                    {"ties": "random"}),
    "wawa": Builtin(Wawa, "Wawa: majority vote weighted by each judge's agreement with the majority vote"),
    "dawid_skene": Builtin(DawidSkene, "Dawid-Skene EM: a confusion matrix per judge and class priors"),
    "dawid_skene_map": Builtin(DawidSkene, "Dawid-Skene with add-one smoothing of every confusion count and prior "
                                           "(MAP under Dirichlet(2) priors), steadier for judges with few labels",
                               {"smoothing": 1.0}),
    "one_coin_dawid_skene": Builtin(OneCoinDawidSkene,
                                    "One-coin Dawid-Skene EM: one accuracy per judge, errors uniform"),
    "glad": Builtin(GLAD, "GLAD: P(correct) = sigmoid(judge ability x item inverse difficulty), EM with Gaussian "
                          "priors (Whitehill et al.)"),
    "mace": Builtin(MACE, "MACE: each judge knows the answer or spams from its own label distribution; variational "
                          "Bayes, random restarts (Hovy et al.)"),
    "mace_em": Builtin(MACE, "MACE fitted by plain EM", {"method": "em"}),
    "ebcc": Builtin(EBCC, "EBCC: Bayesian classifier combination with class subtypes, mean-field VI "
                          "(Li, Rubinstein and Cohn)"),
    "ordinal_dawid_skene": Builtin(OrdinalDawidSkene, "Ordinal Dawid-Skene: discretised-Gaussian confusions, a bias "
                                                      "and a noise scale per judge"),
    "supervised_dawid_skene": Builtin(SupervisedDawidSkene, "Supervised Dawid-Skene: each judge's confusion "
                                                            "learned from the gold items alone, then naive Bayes"),
    "best_judge": Builtin(BestJudge, "Best judge: each item's class from its judge most often right on the gold "
                                     "items"),
    "auto": Builtin(Auto, "Auto: majority vote, Wawa, one-coin and full Dawid-Skene, anchored to the majority vote "
                          "and stacked by how well each predicts labels withheld from its fit (ordered=true adds the "
                          "ordinal model)"),
}, required=("fit",))


def make_truth_estimator(method: str, params: dict[str, Any] | None = None) -> TruthEstimator:
    """Build an estimator from a built-in name or ``package.module:callable``, with parameters (overriding presets)."""
    return TRUTH_METHODS.build(method, params)
