"""A judge-aware leaderboard: model strengths fitted jointly with each judge's skill and position effect.

Crowd-BT (Chen, Bennett, Collins-Thompson, Horvitz, WSDM 2013, eq 3) with a position term per judge.
Judge j, shown model f first and model g second, reports "f wins" with probability

    P(f >_j g) = eta_j sigma(s_f - s_g + gamma_j) + (1 - eta_j) sigma(-(s_f - s_g + gamma_j)),

that is: with probability eta_j (its skill) the judge reports the outcome of a Bradley-Terry
contest (Bradley and Terry 1952) in which the answer shown first has its log-strength raised by
gamma_j (the judge's order effect: gamma_j > 0 favours the first answer, as the "position bias" of
Zheng et al. 2023), and otherwise the opposite. With gamma_j = 0 it is Crowd-BT. The presentation
order of every verdict is kept (the cells are built per judge and per order). A tie counts as half
a verdict each way (``ties="half"``, as the leaderboard's ``bradley_terry`` and ``crowd_bt``) or
is dropped (``"drop"``).

The penalised negative log-likelihood of x = (s, eta, gamma), each distinct (judge, winner, loser,
order) judgment counted c times (c = the verdicts' summed weights, half for each side of a tie),
t = +1 when the winner was shown first and -1 when the loser was, d = s_win - s_lose + t gamma_j,
q = sigma(d), P = eta_j q + (1 - eta_j)(1 - q):

    f = -sum c log P + virtual_weight sum_i [log(1 + e^{-s_i}) + log(1 + e^{s_i})] + reg ||s||^2 / 2
        + gamma_reg ||gamma||^2 / 2 - sum_j [(alpha - 1) log eta_j + (beta - 1) log(1 - eta_j)]

(Crowd-BT's virtual-item regulariser, :func:`~manyjudges.crowd.bradley_terry.virtual_item_penalty`,
and Beta(alpha, beta) = ``eta_prior``), with the analytic gradient

    df/dd       = -c (2 eta_j - 1) q (1 - q) / P      (to s_win, minus it to s_lose, t times it to gamma_j)
    df/deta_j   = -sum c (2 q - 1) / P - (alpha - 1) / eta_j + (beta - 1) / (1 - eta_j),

minimised jointly by L-BFGS-B (:func:`~manyjudges.core.solvers.lbfgsb`), eta boxed in ``eta_bounds``,
from the Bradley-Terry scores with the virtual item, eta = ``eta_init`` and gamma = 0, as
:class:`~manyjudges.arena.leaderboard.ratings.ArenaCrowdBT` starts.

Judges that share their errors are down-weighted (``clusters``; :mod:`manyjudges.arena.judges.clusters`):
each verdict of a cluster of n judges with mean error correlation rho counts n_eff / n =
1 / (1 + (n - 1) rho) (Kish 1965), a weighted (composite) likelihood.
"""
from __future__ import annotations

from collections.abc import Mapping
from numbers import Real
from typing import Literal

import numpy as np
import pandas as pd

from manyjudges.arena.judges.clusters import _WEIGHT_COLUMNS, CLUSTER_CONSTRAINTS, judge_weights
from manyjudges.arena.judges.measures import _PRIOR_UNITS
from manyjudges.arena.leaderboard.ratings import ArenaRating, RatingFit
from manyjudges.arena.verdict_codes import ArenaVerdicts
from manyjudges.core.pairwise.bradley_terry import bt_pair_weights, fit_bt_scores
from manyjudges.core.pairwise.cells import HI_WINS, LO_WINS, TIE, Cells
from manyjudges.core.pairwise.crowd_bt import CROWD_BT_CONSTRAINTS, CrowdBTParams
from manyjudges.core.pairwise.judge_aware import fit_judge_aware, refit_judge_aware
from manyjudges.core.parameters import BOOLEAN, Interval, Options
from manyjudges.io.tables.verdicts import MISSING, WINNERS

__all__ = ["JudgeAware", "verdicts_of_codes"]

#: the judges side table of a ``judge_aware`` leaderboard (``Leaderboard.judges_``)
_JUDGE_COLUMNS = ["judge", "skill", "position_bias", "cluster", "cluster_size", "rho", "weight"]


def _judgments_of_cells(cells: Cells, counts: np.ndarray, ties: str
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(judge, win, lose, win_first, count)`` of cells built by judge and order.

    A strict verdict is one judgment, a tie half a judgment each way (``ties="half"``) or none (``"drop"``); judgments
    with count 0 are left out.
    """
    if cells.lo_first is None:
        raise ValueError("judge_aware needs cells built by presentation order")
    lo_first = cells.lo_first.astype(bool)
    strict_lo, strict_hi, tie = cells.outcome == LO_WINS, cells.outcome == HI_WINS, cells.outcome == TIE
    half = 0.5 if ties == "half" else 0.0
    judge = np.concatenate([cells.judge[strict_lo], cells.judge[strict_hi], cells.judge[tie], cells.judge[tie]])
    win = np.concatenate([cells.lo[strict_lo], cells.hi[strict_hi], cells.lo[tie], cells.hi[tie]])
    lose = np.concatenate([cells.hi[strict_lo], cells.lo[strict_hi], cells.hi[tie], cells.lo[tie]])
    win_first = np.concatenate([lo_first[strict_lo], ~lo_first[strict_hi], lo_first[tie], ~lo_first[tie]])
    count = np.concatenate([counts[strict_lo], counts[strict_hi], half * counts[tie], half * counts[tie]])
    keep = count > 0
    return judge[keep], win[keep], lose[keep], win_first[keep], count[keep]


def verdicts_of_codes(data: ArenaVerdicts) -> pd.DataFrame:
    """Return the verdicts table (``prompt, judge, model_a, model_b, winner``) of coded verdicts.

    The rows are in their canonical order; a prompt or judge column the data lacked is
    :data:`~manyjudges.io.tables.verdicts.MISSING`.
    """
    prompts = data.prompts[data.prompt] if data.has_prompt else np.full(data.n_verdicts, MISSING, dtype=object)
    judges = data.judges[data.judge] if data.has_judge else np.full(data.n_verdicts, MISSING, dtype=object)
    return pd.DataFrame({"prompt": prompts, "judge": judges, "model_a": data.models[data.model_a],
                         "model_b": data.models[data.model_b],
                         "winner": np.asarray(WINNERS[:3], dtype=object)[data.winner]})


class JudgeAware(CrowdBTParams, ArenaRating):
    """Bradley-Terry strengths fitted with a skill eta_j and a position effect gamma_j per judge.

    The model is in the module docstring; the scores are log-strengths. Needs a judge column.

    Parameters
    ----------
    ties : {"half", "drop"}
        A tie is half a verdict each way (default) or left out.
    position : bool
        Fit gamma (default); False fixes gamma = 0 (Crowd-BT, as ``crowd_bt``).
    clusters : None, "auto" or mapping
        A mapping judge -> cluster, or ``"auto"``, or None. Judges that share their errors,
        down-weighted by Kish's n_eff / n (:func:`~manyjudges.arena.judges.clusters.judge_weights`);
        ``"auto"`` (default): clusters of judges whose error correlation (against the majority of the
        other judges) exceeds ``cluster_threshold``; None: every verdict counts 1.
    cluster_threshold : float
        The error correlation above which ``clusters="auto"`` joins two judges (default 0.5).
    rho : float, optional
        A fixed within-cluster error correlation (None: each cluster's mean, from the data).
    prior_units : float
        m0 of the shrunk error correlations the clusters use
        (:func:`~manyjudges.arena.judges.measures._shrunk_correlation`).
    gamma_reg : float
        Ridge gamma_reg ||gamma||^2 / 2 on the position effects (default 0.01: a N(0, 100) prior).
    reg, virtual_weight, eta_init, eta_prior, eta_bounds, max_iter, tol
        As :class:`~manyjudges.arena.leaderboard.ratings.ArenaCrowdBT`.

    Attributes
    ----------
    weights_ : pandas.DataFrame or None
        The judges' clusters and weights (set when a leaderboard fits; give the leaderboard a
        ``JudgeAware`` object as its method to read them, or read ``Leaderboard.judges_``; None without
        clusters).

    Notes
    -----
    The defaults of ``clusters`` and ``gamma_reg`` were chosen leave-one-panel-out
    (``benchmarks/defaults/judge_aware.py``; ``docs/methods.md`` 6.9); ``cluster_threshold`` is the one chosen
    for :class:`~manyjudges.arena.judges.judge_aware_verdicts.JudgeAwareVerdicts`; ``prior_units`` (20) was chosen
    leave-one-panel-out over twelve simulated sparse and clique panels (``--part sparse``).

    A bootstrap replicate is refitted from the full-data fit by projected Newton steps
    (:func:`~manyjudges.core.pairwise.crowd_bt.refit_judge_aware`); the full-data fit is L-BFGS-B.

    ``RatingFit.extra`` = (eta_1..eta_m, gamma_1..gamma_m), judges in natural order.
    """

    name = "judge_aware"
    by_judge = True
    by_order = True
    _parameter_constraints = {**CROWD_BT_CONSTRAINTS, **CLUSTER_CONSTRAINTS, "ties": [Options(("half", "drop"))],
                              "position": [BOOLEAN], "gamma_reg": [Interval(Real, 0, None)]}

    def __init__(self, ties: Literal["half", "drop"] = "half", position: bool = True,
                 clusters: Mapping[str, str] | str | None = "auto", cluster_threshold: float = 0.5,
                 rho: float | None = None, gamma_reg: float = 0.01, reg: float = 0.0, virtual_weight: float = 1.0,
                 eta_init: float = 0.9, eta_prior: tuple[float, float] = (1.0, 1.0),
                 eta_bounds: tuple[float, float] = (0.01, 0.99), max_iter: int = 5000, tol: float = 1e-6,
                 prior_units: float = _PRIOR_UNITS) -> None:
        self.ties, self.position, self.clusters, self.cluster_threshold = ties, position, clusters, cluster_threshold
        self.rho, self.gamma_reg, self.reg, self.virtual_weight = rho, gamma_reg, reg, virtual_weight
        self.prior_units = prior_units
        self.eta_init, self.eta_prior, self.eta_bounds = eta_init, eta_prior, eta_bounds
        self.max_iter, self.tol = max_iter, tol

    def verdict_weights(self, data: ArenaVerdicts) -> np.ndarray | None:
        """Each verdict's judge's Kish weight (None without ``clusters``); sets :attr:`weights_`."""
        self._check_params()
        if self.clusters is None:
            self.weights_ = None
            return None
        table = judge_weights(verdicts_of_codes(data), self.clusters, self.cluster_threshold, self.rho,
                              prior_units=self.prior_units)
        self.weights_ = table
        by_name = dict(zip(table["judge"], table["weight"]))
        return np.array([by_name[str(j)] for j in data.judges], dtype=float)[data.judge]

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the strengths, reliabilities and position effects to the cell counts and return the fit."""
        n, m = cells.n_models, cells.n_judges
        judge, win, lose, win_first, count = _judgments_of_cells(cells, counts, self.ties)
        if start is None:
            bt = bt_pair_weights(cells, counts, self.ties)
            s0 = fit_bt_scores(*bt, n, self.reg, self.virtual_weight, max_iter=self.max_iter,
                               tol=min(self.tol, 1e-8))
            x0 = np.concatenate([s0, np.full(m, float(self.eta_init)), np.zeros(m)])
        else:  # a replicate from the full-data fit: Newton steps (refit_judge_aware), the same minimum
            assert start.extra is not None
            x0 = np.concatenate([start.scores, start.extra])
        solver = fit_judge_aware if start is None else refit_judge_aware
        scores, eta, gamma = solver(judge, win, lose, win_first, count, n, m, x0, self.virtual_weight,
                                             self.reg, self.gamma_reg, self.eta_prior, self.eta_bounds,
                                             bool(self.position), self.max_iter, self.tol)
        return RatingFit(scores, np.concatenate([eta, gamma]))


def _judge_table(judges: np.ndarray, fit: RatingFit, weights: pd.DataFrame | None) -> pd.DataFrame:
    """Return :data:`_JUDGE_COLUMNS`: each judge's skill eta_j, position bias gamma_j, cluster and weight.

    ``fit.extra`` = (eta_1..eta_m, gamma_1..gamma_m) in the order of ``judges``; ``weights`` is
    :func:`~manyjudges.arena.judges.clusters.judge_weights`' table (None: every judge its own cluster,
    weight 1). The position bias is on the log-odds scale (gamma_j of the module docstring).
    """
    assert fit.extra is not None
    m = len(judges)
    names = np.asarray([str(j) for j in judges], dtype=object)
    if weights is None:
        side = pd.DataFrame({"judge": names, "cluster": names, "cluster_size": np.ones(m, dtype=np.int64),
                             "rho": np.zeros(m), "weight": np.ones(m)}, columns=_WEIGHT_COLUMNS)
    else:
        side = weights.set_index("judge").reindex(names).reset_index()
    out = pd.DataFrame({"judge": names, "skill": fit.extra[:m], "position_bias": fit.extra[m:2 * m]})
    return pd.concat([out, side.drop(columns="judge")], axis=1)[_JUDGE_COLUMNS]
