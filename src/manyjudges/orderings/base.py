"""The ordered-list scorer contract (Kim, Zhai, Han 2010, s.3).

A scorer gives a score of a candidate ordering against several gold orderings.

``Scorer(**params).fit(gold).score(candidates)``: ``gold`` is an ``(n, k)`` rank matrix of the
gold orderings (one row per judge, rank 1 = best, tied items share a rank), ``candidates`` a
``(c, k)`` rank matrix over the same items; ``score`` returns ``c`` floats, higher = closer to
the gold orderings. The constructor stores parameters only; ``fit`` validates the gold
orderings and sets ``gold_`` (and whatever the scorer derives from them, ending in ``_``).

A scorer may also offer ``leave_one_out_differences(humans, noise)``: the terms
s(O_i; others) - s(reverse(O_i); others) of evaluation discriminativeness in one vectorised
pass (:func:`manyjudges.orderings.evaluation.leave_one_out_differences` uses it when present).
"""
from __future__ import annotations

import numpy as np

from manyjudges.core.estimator import Estimator, check_is_fitted
from manyjudges.core.ranks import as_rank_matrix

__all__ = ["OrderingScorer"]


class OrderingScorer(Estimator):
    """Base class: ``fit`` stores the gold rank matrix as ``gold_``; subclasses implement ``score``."""

    gold_: np.ndarray

    def fit(self, gold: np.ndarray) -> OrderingScorer:
        """Validate the parameters and store the gold rank matrix as ``gold_``; returns self."""
        self._check_params()
        self.gold_ = as_rank_matrix(gold)
        return self

    def score(self, candidates: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """Return one score per row of the ``(c, k)`` rank matrix ``candidates``, higher = closer to the gold."""
        raise NotImplementedError

    def _fitted_gold(self) -> np.ndarray:
        """``gold_``; a :class:`~manyjudges.core.estimator.NotFittedError` before ``fit(gold)``."""
        check_is_fitted(self, "gold_")
        return self.gold_
