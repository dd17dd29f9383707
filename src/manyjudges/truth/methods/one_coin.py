"""One-coin Dawid-Skene: one accuracy per judge, errors spread evenly over the other classes, fitted by EM.

Zhang, Y., Chen, X., Zhou, D. and Jordan, M. I. (2016). Spectral methods meet EM: a provably
optimal algorithm for crowdsourcing. Journal of Machine Learning Research 17(102), 1-44 (the
one-coin model); the EM is Dawid and Skene's (1979, Applied Statistics 28(1), 20-28, equations
(2.3)-(2.5)) with the confusion matrix of judge w tied to one accuracy a[w]:

    pi[w, t, t] = a[w]          pi[w, t, c] = (1 - a[w]) / (K - 1)   for c != t

EM on the labels e = (item_e, judge_e, label_e), T[i, t] = P(truth of i is t | labels):

- M-step (s = ``smoothing``: the Dirichlet(1 + s) prior on each confusion row of the full model,
  restricted to the tied matrix; s = 0 is maximum likelihood):

      R[w] = sum_{e: judge_e = w} T[item_e, label_e]                 (posterior mass on w's own labels)
      W[w] = sum_{e: judge_e = w} sum_{t != label_e} T[item_e, t]    (the rest, summed as such)
      a[w] = (R[w] + K s) / (R[w] + W[w] + K^2 s)
      p[t] = (sum_i T[i, t] + s) / (n_items + K s)

- E-step: T[i, t] ∝ p[t] * prod_{e: item_e = i} pi[judge_e, t, label_e] (in log space).

Start: T = each item's label shares (the soft majority vote). Stop: after the first iteration
whose objective gains less than ``tol`` per label (the log-likelihood at s = 0; plus
s (sum log pi + sum log p) at s > 0, the quantity EM increases), or after ``max_iter``
iterations. This is :func:`manyjudges.graded.dawid_skene.dawid_skene` with ``model="one_coin"``.

``skills_`` is the accuracy a[w]; ``confusions_`` the tied matrices, ``priors_`` p,
``log_likelihood_`` the final log-likelihood, ``converged_`` whether the stopping rule held.

Zero probabilities (s = 0): the error share (1 - a[w]) / (K - 1) is computed from W[w], a sum of
non-negative posteriors, not as 1 - a[w], so it is 0 only when W[w] is exactly 0 (never by
cancellation when a[w] rounds to 1). Then, as for the full model, a class t under which item i is
impossible had T[i, t] = 0 in the previous E-step (a[w] = 0 forces T[i', label] = 0 on all of w's
labels; W[w] = 0 forces T[i', t] = 0 for t != label), so no item is impossible under every class.

Differences from crowd-kit 1.4's ``OneCoinDawidSkene``, which has the same model, start and count
of E-steps (its posteriors after n iterations equal ours to 1e-8 where none of the following bites):

- it clips every confusion entry to [1e-10, 1 - 1e-10] and the priors at 1e-10, and computes
  1 - a[w] by subtraction; where EM drives accuracies to 0 or 1 (on the trec set about a hundred
  judges after ten iterations, as the priors head to (0.001, 0.999)) the two then part;
- it stops when its loss gains less than ``tol`` per label, a fall included, and its loss counts
  log p once per label instead of once per item (see :mod:`manyjudges.truth.methods.dawid_skene`), so it
  is not EM's objective;
- it clips its returned posteriors at 1e-10 without renormalising them, and its ``skills_`` come
  from one more M-step than its posteriors;
- it breaks exact ties to the class first seen in the table (ours: the lowest class).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.truth.base import EM_CONSTRAINTS, TruthEstimator, TruthFit
from manyjudges.truth.methods.dawid_skene import _em_state, _run_em

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["OneCoinDawidSkene"]


class OneCoinDawidSkene(TruthEstimator):
    """One-coin Dawid-Skene EM: one accuracy per judge, errors uniform over the other K - 1 classes.

    Parameters
    ----------
    max_iter, tol : int, float
        EM's budget and stop, as in :class:`~manyjudges.truth.methods.dawid_skene.DawidSkene`.
    smoothing : float
        Pseudo-counts s (module docstring); 0 is maximum likelihood.
    """

    gold_use = "fit"
    priors_: pd.Series
    log_likelihood_: float
    converged_: bool

    _parameter_constraints = {**TruthEstimator._parameter_constraints, **EM_CONSTRAINTS}

    def __init__(self, max_iter: int = 100, tol: float = 1e-5, smoothing: float = 0.0,
                 calibrate: str | None = None) -> None:
        self.max_iter, self.tol, self.smoothing, self.calibrate = max_iter, tol, smoothing, calibrate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        res = _run_em(data, "one_coin", self.max_iter, self.tol, self.smoothing, gold=gold)
        self.priors_, self.log_likelihood_, self.converged_ = _em_state(res, data)
        return TruthFit(proba=res.posteriors, skills=res.confusion[:, 0, 0].copy(), confusions=res.confusion,
                        n_iter=res.n_iter)
