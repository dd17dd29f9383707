"""Dawid-Skene as a predictor of an unseen judge (graded family), on the shared EM core.

The core is :func:`manyjudges.core.dawid_skene_em.dawid_skene` (Dawid and Skene 1979), which this module
re-exports as the family's ``dawid_skene``.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from manyjudges.core.dawid_skene_em import DawidSkeneResult, dawid_skene
from manyjudges.core.parameters import Interval
from manyjudges.graded.base import GradedMethod, best_smoothing

__all__ = ["DawidSkenePredictor", "DawidSkeneResult", "dawid_skene"]


class DawidSkenePredictor(GradedMethod):
    """Dawid-Skene as a predictor of an unseen judge (an extension beyond Wilbur and Kim).

    Reading (ours; no paper defines it): the unseen judge is a typical judge, whose confusion
    matrix is the label-weighted mean of the training judges', C = sum_j n_j pi_j / sum_j n_j,
    so P(c | dp) = (1 - tau) sum_t T[dp, t] C[t, c] + tau pi_c with T the EM posteriors
    and pi the background prior. tau is chosen by cross induction (EM refitted without each
    training judge, or inner fold); an item no training judge labelled gets pi.
    """

    name = "dawid_skene"
    single_parameter = None
    _parameter_constraints = {
        "inner_folds": [Interval(Integral, 2, None), None],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "smoothing": [Interval(Real, 0, None)],
    }

    def __init__(self, inner_folds: int | None = None, max_iter: int = 5000, tol: float = 1e-6,
                 smoothing: float = 0.01):
        self.inner_folds, self.max_iter, self.tol, self.smoothing = inner_folds, max_iter, tol, smoothing

    def _typical_votes(self, train):
        """Return (the typical judge's votes (items x K), items with labels, background prior, EM converged)."""
        from manyjudges.graded.panel import background_prior

        res = dawid_skene(train.item, train.judge, train.label, n_items=train.n_items, n_judges=train.n_judges,
                          n_classes=train.n_classes, max_iter=self.max_iter, tol=self.tol, smoothing=self.smoothing)
        n = train.labels_per_judge().astype(float)
        typical = np.tensordot(n / n.sum(), res.confusion, axes=1)
        has = np.bincount(train.item, minlength=train.n_items) > 0
        return res.posteriors @ typical, has, background_prior(train), res.converged

    def prepare(self, train):
        """Fit EM on ``train`` and return the typical judge's votes, items with labels, prior, convergence."""
        state = self._typical_votes(train)
        self.record_fit(state[3])
        return state

    def predict(self, state, params):
        """Return (n_items x K) the typical judge's votes smoothed towards the prior by ``tau``."""
        votes, has, prior, _ = state
        tau = float(params["tau"])
        return np.where(has[:, None], (1 - tau) * votes + tau * prior[None, :], prior[None, :])

    def choose_parameters(self, train):
        """Choose ``tau`` by cross induction: EM refitted without each training judge (or inner fold)."""
        from manyjudges.graded.panel import inner_folds, prior_without_own

        share = np.zeros(train.n_entries)
        has = np.zeros(train.n_entries, dtype=bool)
        cache = self._subpanel_cache()
        settings = ("dawid_skene", self.max_iter, self.tol, self.smoothing)
        for mask, rest in inner_folds(train, self.inner_folds):
            votes, item_has, _, converged = cache.get(rest, settings, lambda rest=rest: self._typical_votes(rest))
            self.record_fit(converged)
            share[mask] = votes[train.item[mask], train.label[mask]]
            has[mask] = item_has[train.item[mask]]
        prior = prior_without_own(train)[np.arange(train.n_entries), train.label]
        return {"tau": best_smoothing(share, has, prior)}
