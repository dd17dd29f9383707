"""The leaderboard's Davidson (1970) rating, ties modelled.

It is fitted by the kernel's :func:`~manyjudges.core.pairwise.davidson.fit_davidson` (the model and its
formulas are there).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from manyjudges.arena.leaderboard.ratings import ArenaRating, RatingFit
from manyjudges.core.pairwise.bradley_terry import check_mle_exists
from manyjudges.core.pairwise.cells import Cells
from manyjudges.core.pairwise.davidson import fit_davidson
from manyjudges.core.parameters import Interval

__all__ = ["Davidson"]


class Davidson(ArenaRating):
    """The Davidson model (module docstring) over all verdicts; ``tie (bothbad)`` is a tie.

    ``scores`` = the log-strengths s (sum 0), ``extra`` = [theta] (nu = e^theta). Minimises the
    negative log-likelihood plus ``reg`` ||s||^2 / 2 (default 0.01: N(0, 100) priors that keep a
    model that never loses finite; ``reg=0``: plain maximum likelihood, refused when the graph
    "i beat or tied j" is not strongly connected, :func:`~manyjudges.core.pairwise.bradley_terry.check_mle_exists`).
    """

    name = "davidson"
    _parameter_constraints = {"reg": [Interval(Real, 0, None)], "max_iter": [Interval(Integral, 1, None)],
                              "tol": [Interval(Real, 0, None)]}

    def __init__(self, reg: float = 0.01, max_iter: int = 200, tol: float = 1e-10) -> None:
        self.reg, self.max_iter, self.tol = reg, max_iter, tol

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the strengths and the tie parameter to the cell counts and return the fit."""
        a, b, w_a, w_b, t = cells.pair_totals(counts)
        if self.reg == 0:
            check_mle_exists(a, b, w_a + t, w_b + t, cells.n_models, cells.names)
        x0 = None if start is None or start.extra is None else np.concatenate([start.scores, start.extra])
        x = fit_davidson(a, b, w_a, w_b, t, cells.n_models, self.reg, x0, self.max_iter, self.tol)
        return RatingFit(x[:-1], x[-1:])
