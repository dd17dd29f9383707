"""Model ratings of an arena from its cell counts: Bradley-Terry with ties, Elo, Crowd-BT.

Every rating follows one contract: ``Rating(**params).fit_cells(cells, counts, start=None)`` on
the verdicts' :class:`~manyjudges.arena.leaderboard.cells.Cells` and their (float) counts returns a
:class:`RatingFit` whose ``scores`` are one per model, higher = better, on the scale the class
states (the leaderboard centres them to mean 0). ``start`` is the full-data fit, from which a
bootstrap replicate's fit starts. The Davidson model is in :mod:`manyjudges.arena.leaderboard.davidson`.
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import Literal, NamedTuple

import numpy as np

from manyjudges.arena.verdict_codes import ArenaVerdicts
from manyjudges.core.estimator import Estimator
from manyjudges.core.pairwise.bradley_terry import bt_pair_weights, check_mle_exists, fit_bt_centred, fit_bt_scores
from manyjudges.core.pairwise.cells import HI_WINS, LO_WINS, TIE, Cells
from manyjudges.core.pairwise.crowd_bt import CROWD_BT_CONSTRAINTS, CrowdBTParams, fit_crowd_bt
from manyjudges.core.pairwise.elo import ELO_CONSTRAINTS, elo_ratings
from manyjudges.core.parameters import Interval, Options

__all__ = ["ArenaBradleyTerry", "ArenaCrowdBT", "ArenaElo", "ArenaRating", "RatingFit"]


class RatingFit(NamedTuple):
    """One fit: ``scores`` (one per model) and the method's other parameters (``extra``; None if none)."""

    scores: np.ndarray
    extra: np.ndarray | None = None


class ArenaRating(Estimator):
    """Base class of the leaderboard's ratings.

    ``by_judge``: the method needs the cells per judge; ``by_order``: per presentation order
    (``Cells.lo_first``).
    """

    name: str = "rating"
    by_judge: bool = False
    by_order: bool = False

    def verdict_weights(self, data: ArenaVerdicts) -> np.ndarray | None:
        """Return a weight per verdict of ``data`` (canonical order) that its cell counts sum, or None.

        None means every verdict counts 1 (the default).
        """
        return None

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit on cell counts; ``start`` the full-data fit (a replicate's warm start) or None."""
        raise NotImplementedError  # pragma: no cover


class ArenaBradleyTerry(ArenaRating):
    """Bradley-Terry over all verdicts, ties counted half a win each way.

    Bradley, R. A. and Terry, M. E. (1952), Biometrika 39, 324-345: P(i beats j) = sigma(s_i - s_j)
    with s the natural-log strengths. ``ties="half"`` (default): a tie between i and j adds
    half a win of i over j and half of j over i, -(log sigma(d) + log sigma(-d)) / 2 to the
    negative log-likelihood, which is what evalica's ``bradley_terry`` (``win_weight=1``,
    ``tie_weight=0.5``) maximises; ``"drop"`` ignores ties. The scores minimise

        f(s) = sum_pairs [w_ij log(1 + e^{-(s_i - s_j)}) + w_ji log(1 + e^{s_i - s_j})] + reg ||s||^2 / 2

    (damped Newton with the dense Hessian of :func:`~manyjudges.crowd.bradley_terry.bt_objective`
    plus (sum s)^2 / 2, which fixes the common shift without moving the optimum, so also for
    reg = 0; L-BFGS-B, :func:`~manyjudges.crowd.bradley_terry.fit_bt_scores`, above 2,000 models or if
    Newton fails). ``reg`` = 0.01 by default (the MAP under N(0, 100) priors on the
    log-strengths, which keeps a model that never loses finite); ``reg=0`` is plain maximum
    likelihood and is refused when the comparison graph is not strongly connected
    (:func:`~manyjudges.core.pairwise.bradley_terry.check_mle_exists`). At the optimum sum(s) = 0.
    """

    name = "bradley_terry"
    _parameter_constraints = {"ties": [Options(("half", "drop"))], "reg": [Interval(Real, 0, None)],
                              "max_iter": [Interval(Integral, 1, None)], "tol": [Interval(Real, 0, None)]}

    def __init__(self, ties: Literal["half", "drop"] = "half", reg: float = 0.01, max_iter: int = 1000,
                 tol: float = 1e-10) -> None:
        self.ties, self.reg, self.max_iter, self.tol = ties, reg, max_iter, tol

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the ratings to the cell counts and return the fit."""
        a, b, w_ab, w_ba = bt_pair_weights(cells, counts, self.ties)
        n = cells.n_models
        if self.reg == 0:
            check_mle_exists(a, b, w_ab, w_ba, n, cells.names)
        x0 = None if start is None else start.scores
        return RatingFit(fit_bt_centred(a, b, w_ab, w_ba, n, self.reg, x0, self.max_iter, self.tol))


class ArenaElo(ArenaRating):
    """Elo ratings (Elo 1978) of the models, one game per judged pair, as EMeloRating-eq plays them.

    Every pair of models with a verdict is one game whose score (for i) is the pair's share
    S = (#i wins + #ties / 2) / #verdicts; with E = 1 / (1 + 10^((R_j - R_i) / scale)), each game
    moves R_i += K (S - E) and R_j -= K (S - E). The games are replayed ``n_passes`` times in a
    fixed seeded round order (:func:`~manyjudges.crowd.elo.elo_ratings`), so the ratings do not
    depend on row order (the verdicts carry no time). ``scores`` are Elo points minus the initial
    rating (every update is zero-sum, so their mean is 0); the verdict counts enter only through S.
    """

    name = "elo"
    _parameter_constraints = ELO_CONSTRAINTS

    def __init__(self, k_factor: float = 32.0, n_passes: int = 10, scale: float = 400.0,
                 random_state: int = 0) -> None:
        self.k_factor, self.n_passes, self.scale, self.random_state = k_factor, n_passes, scale, random_state

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the ratings to the cell counts and return the fit."""
        a, b, lo_wins, hi_wins, tie = cells.pair_totals(counts)
        share = (lo_wins + 0.5 * tie) / (lo_wins + hi_wins + tie)
        ratings = elo_ratings(a, b, share, cells.n_models, self.k_factor, self.n_passes, 0.0, self.scale,
                              self.random_state)
        return RatingFit(ratings)


class ArenaCrowdBT(CrowdBTParams, ArenaRating):
    """Crowd-BT (Chen, Bennett, Collins-Thompson, Horvitz, WSDM 2013) over all verdicts, one judge each.

    Judge k reports "i over j" with probability eta_k sigma(s_i - s_j) + (1 - eta_k) sigma(s_j - s_i);
    fitted as :class:`~manyjudges.crowd.bradley_terry.CrowdBT` (joint L-BFGS-B over s and eta,
    virtual-item regulariser ``virtual_weight``, Beta ``eta_prior``, eta in ``eta_bounds``), from
    the Bradley-Terry scores with the virtual item and eta = ``eta_init`` (a replicate: from the
    full-data fit, L-BFGS-B as far as a projected gradient of 1, then projected Newton steps to
    1e-9; :func:`~manyjudges.core.pairwise.crowd_bt.fit_crowd_bt`). ``ties="half"`` (default): a
    tie is half a judgment each way; ``"drop"`` ignores it. ``extra`` = the judges' eta. Needs a
    judge column.
    """

    name = "crowd_bt"
    by_judge = True
    _parameter_constraints = {**CROWD_BT_CONSTRAINTS, "ties": [Options(("half", "drop"))]}

    def __init__(self, ties: Literal["half", "drop"] = "half", reg: float = 0.0, virtual_weight: float = 1.0,
                 eta_init: float = 0.9, eta_prior: tuple[float, float] = (1.0, 1.0),
                 eta_bounds: tuple[float, float] = (0.01, 0.99), max_iter: int = 5000, tol: float = 1e-6) -> None:
        self.ties, self.reg, self.virtual_weight = ties, reg, virtual_weight
        self.eta_init, self.eta_prior, self.eta_bounds = eta_init, eta_prior, eta_bounds
        self.max_iter, self.tol = max_iter, tol

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the ratings to the cell counts and return the fit."""
        n, m = cells.n_models, cells.n_judges
        strict_lo = cells.outcome == LO_WINS
        strict_hi = cells.outcome == HI_WINS
        tie = cells.outcome == TIE
        tie_weight = 0.5 if self.ties == "half" else 0.0
        judge = np.concatenate([cells.judge[strict_lo], cells.judge[strict_hi], cells.judge[tie], cells.judge[tie]])
        win = np.concatenate([cells.lo[strict_lo], cells.hi[strict_hi], cells.lo[tie], cells.hi[tie]])
        lose = np.concatenate([cells.hi[strict_lo], cells.lo[strict_hi], cells.hi[tie], cells.lo[tie]])
        count = np.concatenate([counts[strict_lo], counts[strict_hi], tie_weight * counts[tie],
                                tie_weight * counts[tie]])
        keep = count > 0
        judge, win, lose, count = judge[keep], win[keep], lose[keep], count[keep]
        if start is None:
            bt = bt_pair_weights(cells, counts, self.ties)
            s0 = fit_bt_scores(*bt, n, self.reg, self.virtual_weight, max_iter=self.max_iter,
                               tol=min(self.tol, 1e-8))
            x0 = np.concatenate([s0, np.full(m, float(self.eta_init))])
        else:
            assert start.extra is not None
            x0 = np.concatenate([start.scores, start.extra])
        scores, eta = fit_crowd_bt(judge, win, lose, count, n, m, x0, self.virtual_weight, self.reg,
                                   self.eta_prior, self.eta_bounds, self.max_iter, self.tol, newton=start is not None)
        return RatingFit(scores, eta)
