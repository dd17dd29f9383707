"""Dawid-Skene: a full confusion matrix per judge and class priors, fitted by EM.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. Journal of the Royal Statistical Society, Series C (Applied
Statistics) 28(1), 20-28. doi:10.2307/2346806.

Item i has an unobserved true class t drawn from the priors p[t]; judge w, shown an item of
class t, says c with probability pi[w, t, c]. With T[i, t] = P(truth of i is t | labels), the
EM of the paper alternates (one label e = (item_e, judge_e, label_e); s = ``smoothing``):

- M-step, the paper's (2.3) and (2.4) (s = 0; s > 0 adds s pseudo-counts to every cell):

      pi[w, t, c] = (sum_{e: judge_e = w, label_e = c} T[item_e, t] + s)
                    / (sum_{e: judge_e = w} T[item_e, t] + K s)
      p[t]        = (sum_i T[i, t] + s) / (n_items + K s)

- E-step, the paper's (2.5), in log space:

      T[i, t] ∝ p[t] * prod_{e: item_e = i} pi[judge_e, t, label_e]

starting from T = each item's label shares (the soft majority vote). The EM is
:func:`manyjudges.graded.dawid_skene.dawid_skene` (vectorised over the labels with scipy.sparse),
run here with ``stop="log_likelihood"``: EM stops after the first iteration whose objective gains
less than ``tol`` per label, or after ``max_iter`` iterations. The objective is what EM increases:
the log-likelihood sum_i log sum_t p[t] prod_e pi[judge_e, t, label_e] at s = 0, plus
s (sum log pi + sum log p) at s > 0. A judge's confusion row with no posterior mass (every item
it labelled has T[item, t] = 0) is set to 1/K.

``skills_`` is each judge's expected accuracy under the fitted model,
skill[w] = sum_t p[t] pi[w, t, t]; ``confusions_`` holds pi, ``priors_`` p (a Series by class),
``log_likelihood_`` the final log-likelihood and ``converged_`` whether the stopping rule held.

Zero probabilities (s = 0). An item whose labels have probability 0 under every class cannot
arise: pi[w, t, c] = 0 only when every item w labelled c has T[item, t] = 0 exactly (the M-step's
numerator is a sum of those non-negative posteriors, and its denominator is positive, else the
row is 1/K), and p[t] = 0 only when T[., t] = 0 everywhere; so a class t under which item i is
impossible had T[i, t] = 0 in the previous E-step, and T[i, .] sums to 1. Exact zeros come from
the starting shares (a class nobody gave the item) and from posteriors more than 700 nats below
their item's best class (set to 0); they keep such classes excluded and nothing else.

Differences from crowd-kit 1.4's ``DawidSkene``, which has the same model, start and count of
E-steps (its posteriors after n iterations equal ours to 1e-10 where none of the following bites):

- it raises every confusion count below 1e-10 to 1e-10 before normalising,
  and every prior below 1e-10 to 1e-10 (ours may be exactly 0, see above);
- a confusion row with no posterior mass becomes uniform over the labels the judge used (its
  table of counts only has those), ours uniform over all K classes; the likelihood does not
  depend on that row at that step, but the next E-step does (on the trec set, 3 judge rows
  have no mass at the start: the posteriors differ by up to 0.12 after one iteration, by 1e-10
  with this rule and the floors above emulated, and the labels by 1 item of 19,033 after ten);
- it stops when its loss gains less than ``tol`` per label, a fall included; the loss is
  sum_e sum_t T[item_e, t] (log pi[judge_e, t, label_e] + log p[t]) + entropy(T), which counts
  log p once per label instead of once per item, so it is not EM's objective and can fall while
  EM still improves the likelihood (on trec it falls at the third iteration, where crowd-kit
  stops; this class runs 16). Run for crowd-kit's iteration counts, this class had crowd-kit's
  accuracy exactly on trec, jn-product and dog (benchmarks/accuracy/truth_vs_crowdkit.py);
- it clips its returned posteriors at 1e-10 without renormalising them;
- it breaks exact ties to the class first seen in the table (ours: the lowest class).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.dawid_skene_em import INITS, DawidSkeneResult, dawid_skene
from manyjudges.core.parameters import Options
from manyjudges.truth.base import EM_CONSTRAINTS, TruthEstimator, TruthFit

__all__ = ["DawidSkene"]


def _run_em(data: CrowdLabels, model: str, max_iter: int, tol: float, smoothing: float, init: str = "majority",
           gold: tuple[np.ndarray, np.ndarray] | None = None) -> DawidSkeneResult:
    """Run the shared Dawid-Skene EM core on ``data`` (``model`` "full" or "one_coin").

    It stops on the log-likelihood; gold items (item codes, class codes) are fixed.

    With gold items EM runs twice, from ``init`` and from the gold items alone (``init="gold"``: the first
    M-step learns the judges' confusions from the gold items only), and the fit of the higher objective
    (the log-likelihood with the gold items' joint terms, plus the smoothing's prior terms) is kept: where
    most judges are adversarial, the fit that starts from the majority vote keeps its classes swapped,
    and the one that starts from the known answers does not.
    """
    def run(start: str) -> DawidSkeneResult:
        return dawid_skene(data.item, data.judge, data.label, n_items=data.n_items, n_judges=data.n_judges,
                           n_classes=data.n_classes, max_iter=int(max_iter), tol=float(tol),
                           smoothing=float(smoothing), init=start, model=model, stop="log_likelihood", known=gold)

    first = run(init)
    if gold is None or len(gold[0]) == 0 or init == "gold":
        return first
    second = run("gold")
    return second if _objective(second, smoothing) > _objective(first, smoothing) else first


def _objective(res: DawidSkeneResult, smoothing: float) -> float:
    """Return what EM increases.

    The log-likelihood (gold items' terms joint), plus s (sum log confusion + sum log priors).
    """
    if smoothing <= 0:
        return res.log_likelihood
    with np.errstate(divide="ignore"):
        return res.log_likelihood + smoothing * float(np.log(res.confusion).sum() + np.log(res.priors).sum())


def _em_state(res: DawidSkeneResult, data: CrowdLabels) -> tuple[pd.Series, float, bool]:
    """(``priors_``, ``log_likelihood_``, ``converged_``) of a fit, for its estimator to keep."""
    priors = pd.Series(res.priors, index=pd.Index(data.classes, name="label"), name="prior")
    return priors, res.log_likelihood, res.converged


class DawidSkene(TruthEstimator):
    """Dawid-Skene EM: a K x K confusion matrix per judge and class priors (maximum likelihood at s = 0).

    Parameters
    ----------
    max_iter : int
        At most this many EM iterations (one iteration: M-step then E-step).
    tol : float
        Stop when EM's objective (the log-likelihood at s = 0) gains less than this per label.
    smoothing : float
        Pseudo-counts s added to every confusion cell and prior (MAP under a Dirichlet(1 + s) prior);
        0 is the paper's maximum likelihood.
    init : {"majority", "hard_majority", "gold"}
        Starting posteriors: each item's label shares, or one-hot on its most frequent labels (ties shared), or
        (with gold items) the gold items alone. With gold items and another ``init``, EM also runs from the gold
        items alone and keeps the fit of the higher objective (:func:`_run_em`).
    """

    gold_use = "fit"
    priors_: pd.Series
    log_likelihood_: float
    converged_: bool

    _parameter_constraints = {**TruthEstimator._parameter_constraints, **EM_CONSTRAINTS, "init": [Options(INITS)]}

    def __init__(self, max_iter: int = 100, tol: float = 1e-5, smoothing: float = 0.0,
                 init: str = "majority", calibrate: str | None = None) -> None:
        self.max_iter, self.tol, self.smoothing, self.init, self.calibrate = max_iter, tol, smoothing, init, calibrate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        res = _run_em(data, "full", self.max_iter, self.tol, self.smoothing, init=self.init, gold=gold)
        self.priors_, self.log_likelihood_, self.converged_ = _em_state(res, data)
        skills = np.einsum("t,wtt->w", res.priors, res.confusion)
        return TruthFit(proba=res.posteriors, skills=skills, confusions=res.confusion, n_iter=res.n_iter)
