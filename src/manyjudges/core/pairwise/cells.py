"""Counted cells: pairwise verdicts summed by (judge, unordered model pair, outcome[, presentation order]).

Every pairwise model of the kernel (:mod:`~manyjudges.core.pairwise`) needs only how many verdicts fall in
each *cell*, so verdicts are coded once and every fit, including each bootstrap replicate, works on a
vector of cell counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from manyjudges.core.length import LengthOf

__all__ = ["HI_WINS", "LO_WINS", "TIE", "Cells", "cells_from_codes"]

#: cell outcomes: the pair's lower-coded model wins, the higher-coded one wins, a tie
LO_WINS, HI_WINS, TIE = 0, 1, 2


@dataclass(frozen=True)
class Cells:
    """Distinct (judge, lo, hi, outcome) of the verdicts.

    ``lo < hi`` are model codes, outcome :data:`LO_WINS`, :data:`HI_WINS` or :data:`TIE`; ``judge`` is 0
    everywhere unless the cells were built by judge. ``pair`` indexes the unordered pairs ``pair_lo <
    pair_hi``; ``names`` the models' names (for messages), or None. ``lo_first``: when the cells were
    built by presentation order, 1 where ``lo`` was shown first and 0 where ``hi`` was (a cell per
    order), else None.
    """

    n_models: int
    n_judges: int
    judge: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    outcome: np.ndarray
    pair: np.ndarray
    pair_lo: np.ndarray
    pair_hi: np.ndarray
    names: np.ndarray | None = None
    lo_first: np.ndarray | None = None

    #: number of cells
    n_cells = LengthOf("outcome")

    def pair_totals(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(lo, hi, lo_wins, hi_wins, ties)`` summed over judges per unordered pair.

        Pairs without a verdict (total count 0) are left out.
        """
        n_pairs = len(self.pair_lo)
        sums = [np.bincount(self.pair, weights=counts * (self.outcome == o), minlength=n_pairs)
                for o in (LO_WINS, HI_WINS, TIE)]
        keep = (sums[0] + sums[1] + sums[2]) > 0
        return self.pair_lo[keep], self.pair_hi[keep], sums[0][keep], sums[1][keep], sums[2][keep]

    def model_totals(self, counts: np.ndarray) -> np.ndarray:
        """Verdicts per model (each verdict counts for both its models)."""
        return (np.bincount(self.lo, weights=counts, minlength=self.n_models)
                + np.bincount(self.hi, weights=counts, minlength=self.n_models))

    def subset(self, present: np.ndarray, counts: np.ndarray) -> tuple[Cells, np.ndarray]:
        """Return the cells with positive ``counts`` of the models in the boolean mask ``present``, and those counts.

        The models are renumbered in order.
        """
        keep = (counts > 0) & present[self.lo] & present[self.hi]
        new = np.cumsum(present) - 1
        names = None if self.names is None else self.names[present]
        lo_first = None if self.lo_first is None else self.lo_first[keep]
        return cells_from_codes(new[self.lo[keep]], new[self.hi[keep]], self.outcome[keep], self.judge[keep],
                                int(present.sum()), self.n_judges, names, lo_first)[0], counts[keep]


def _dense_unique(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Compute ``np.unique(key, return_inverse=True)`` for keys in [0, n_keys).

    By one bincount when the key range is no larger than a few times the rows (no sort), else
    np.unique.
    """
    if n_keys > max(4 * len(key), 1 << 16):
        keys, inverse = np.unique(key, return_inverse=True)
        return keys, inverse.reshape(-1)
    present = np.bincount(key, minlength=n_keys) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[key]


def cells_from_codes(lo: np.ndarray, hi: np.ndarray, outcome: np.ndarray, judge: np.ndarray, n_models: int,
                     n_judges: int, names: np.ndarray | None = None, lo_first: np.ndarray | None = None
                     ) -> tuple[Cells, np.ndarray]:
    """Return the :class:`Cells` of rows ``(judge, lo, hi, outcome)``, and each row's cell index.

    ``lo_first``, 1 where lo was shown first, is used when given.
    """
    key = ((judge * n_models + lo) * n_models + hi) * 3 + outcome
    n_orders = 1 if lo_first is None else 2
    if lo_first is not None:
        key = key * 2 + lo_first
    keys, cell_of_row = _dense_unique(key, n_judges * n_models * n_models * 3 * n_orders)
    first_c = None if lo_first is None else keys % 2
    keys = keys // n_orders
    outcome_c, rest = keys % 3, keys // 3
    hi_c, rest = rest % n_models, rest // n_models
    lo_c, judge_c = rest % n_models, rest // n_models
    pairs, pair = np.unique(lo_c * n_models + hi_c, return_inverse=True)
    cells = Cells(n_models=n_models, n_judges=n_judges, judge=judge_c, lo=lo_c, hi=hi_c, outcome=outcome_c,
                  pair=pair, pair_lo=pairs // n_models, pair_hi=pairs % n_models, names=names, lo_first=first_c)
    return cells, cell_of_row

