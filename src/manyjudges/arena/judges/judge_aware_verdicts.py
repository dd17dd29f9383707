"""One verdict per (prompt, model pair) from a panel of judges, each judge's skill and position effect fitted.

A **unit** u is a prompt and an unordered pair of models, model_1 before model_2 in natural order
(:mod:`manyjudges.arena.verdict_codes`). It has one true winner z_u (model_1 or model_2), with the
prior P(z_u = model_1) = sigma(s_1 - s_2) from Bradley-Terry log-strengths s of the models
(``prior="strengths"``, fitted) or 1/2 (``prior="flat"``). Judge j, shown the unit's answers in
some order, names model_1 with

    logit P(j names model_1 | z_u = model_1) =  a_j + t gamma_j,
    logit P(j names model_1 | z_u = model_2) = -a_j + t gamma_j,

t = +1 when model_1 was shown first and -1 when it was shown second. So eta_j = sigma(a_j) is the
probability that the judge names the true winner when it has no order effect, and gamma_j shifts
its log-odds towards the answer shown first (its position effect). With gamma_j = 0 this is the
one-coin model of Dawid and Skene (1979) with a Bradley-Terry prior per unit, and a single verdict's
probability is Crowd-BT's (Chen et al. 2013, eq 3: eta_j sigma(s_1 - s_2) + (1 - eta_j) sigma(s_2 - s_1));
:mod:`manyjudges.arena.leaderboard.judge_aware` is the same judge model with a verdict-level Bradley-Terry
contest instead of a unit-level truth. A judge's verdicts on a unit (both orders, repeats) are
independent given z_u; a tie is half a verdict each way. Each verdict's log-likelihood is weighted
by its judge's Kish weight (:mod:`manyjudges.arena.judges.clusters`; 1 without clusters).

With L_ku = sum over u's verdicts of weight x log P(verdict | z_u = model_k) and D_u = s_1 - s_2,
the marginal log-likelihood of unit u is logaddexp(log sigma(D_u) + L_1u, log sigma(-D_u) + L_2u),
and the posterior of model_1 winning is

    r_u = sigma(D_u + L_1u - L_2u).

(s, a, gamma) maximise the summed marginal log-likelihood minus ``reg`` (||s||^2 + ||a||^2 +
||gamma||^2) / 2, by L-BFGS-B with the analytic gradient (Fisher's identity: the gradient of the
marginal is the posterior-weighted gradient of the complete-data log-likelihood; the maximum is the
fixed point of the EM algorithm, Dempster, Laird and Rubin 1977), from s = 0, a = logit(``eta_init``),
gamma = 0. The likelihood is unchanged by (a, s, z) -> (-a, -s, not z); the start a > 0 picks
the mode where the judges are better than chance.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import expit, log_expit, logit

from manyjudges.arena.judges.clusters import CLUSTER_CONSTRAINTS, judge_weights
from manyjudges.arena.judges.measures import _PRIOR_UNITS
from manyjudges.arena.verdict_codes import _check_verdicts, code_units
from manyjudges.core.estimator import Estimator
from manyjudges.core.parameters import BOOLEAN, Interval, Options
from manyjudges.core.solvers import lbfgsb

__all__ = ["JudgeAwareVerdicts", "UnitRows", "judge_aware_verdicts", "unit_posteriors"]

_UNIT_COLUMNS = ["prompt", "model_1", "model_2", "verdicts", "p_model_1", "winner"]
#: ``judges_``: skill = eta_j, position_bias = gamma_j (log-odds towards the answer shown first)
JUDGE_PARAM_COLUMNS = ["judge", "skill", "position_bias", "cluster", "weight"]
PRIORS = ("strengths", "flat")


@dataclass(frozen=True)
class UnitRows:
    """A verdicts table as judgments on units: one row per strict verdict, two half rows per tie.

    Attributes
    ----------
    units : pandas.DataFrame
        ``prompt, model_1, model_2`` (natural order).
    n_verdicts : numpy.ndarray
        ``verdicts`` per unit.
    judges, models : numpy.ndarray
        Judge ids and model ids, both in natural order.
    model_1, model_2 : numpy.ndarray
        Each unit's model codes.
    judge, unit : numpy.ndarray, shape (r,)
        Codes.
    y : numpy.ndarray, shape (r,)
        +1 names model_1, -1 model_2.
    t : numpy.ndarray, shape (r,)
        +1 model_1 shown first, -1 not.
    count : numpy.ndarray, shape (r,)
        1, or 1/2 for each half of a tie.
    """

    units: pd.DataFrame
    n_verdicts: np.ndarray
    judges: np.ndarray
    models: np.ndarray
    model_1: np.ndarray
    model_2: np.ndarray
    judge: np.ndarray
    unit: np.ndarray
    y: np.ndarray
    t: np.ndarray
    count: np.ndarray


def _unit_rows(verdicts: pd.DataFrame) -> UnitRows:
    """:class:`UnitRows` of a verdicts table (checked: a ValueError names the row and the value)."""
    _check_verdicts(verdicts, "verdicts")
    coded = code_units(verdicts)
    table = coded.tables[0]
    units = coded.units
    models = coded.models
    index = pd.Index(models, dtype=object)
    canonical, swapped = table["canonical"], table["swapped"]
    strict = canonical < 2
    tie = ~strict
    judge = np.concatenate([table["judge"][strict], table["judge"][tie], table["judge"][tie]])
    unit = np.concatenate([table["unit"][strict], table["unit"][tie], table["unit"][tie]])
    y = np.concatenate([np.where(canonical[strict] == 0, 1.0, -1.0), np.ones(int(tie.sum())),
                        -np.ones(int(tie.sum()))])
    t_all = np.where(swapped, -1.0, 1.0)
    t = np.concatenate([t_all[strict], t_all[tie], t_all[tie]])
    count = np.concatenate([np.ones(int(strict.sum())), np.full(2 * int(tie.sum()), 0.5)])
    return UnitRows(units=units, n_verdicts=np.bincount(table["unit"], minlength=len(units)),
                    judges=np.asarray(table["judges"], dtype=object), models=models,
                    model_1=index.get_indexer(units["model_1"]), model_2=index.get_indexer(units["model_2"]),
                    judge=judge, unit=unit, y=y, t=t, count=count)


def _unit_terms(rows: UnitRows, s: np.ndarray | None, a: np.ndarray, gamma: np.ndarray, weight: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(D, L1, L2, u1, u2, c)`` per unit / per row (module docstring)."""
    n_units = len(rows.units)
    d = np.zeros(n_units) if s is None else s[rows.model_1] - s[rows.model_2]
    shift = rows.t * gamma[rows.judge]
    u1 = rows.y * (a[rows.judge] + shift)
    u2 = rows.y * (-a[rows.judge] + shift)
    c = rows.count * weight[rows.judge]
    l1 = np.bincount(rows.unit, weights=c * log_expit(u1), minlength=n_units)
    l2 = np.bincount(rows.unit, weights=c * log_expit(u2), minlength=n_units)
    return d, l1, l2, u1, u2, c


def _unit_objective(x: np.ndarray, rows: UnitRows, weight: np.ndarray, strengths: bool, reg: float
                   ) -> tuple[float, np.ndarray]:
    """Minus the penalised marginal log-likelihood of ``x = (s if strengths, a, gamma)`` and its gradient.

        f = -sum_u logaddexp(log sigma(D_u) + L_1u, log sigma(-D_u) + L_2u) + reg ||x||^2 / 2
        d(-f)/dD_u = r_u - sigma(D_u)
        d(-f)/da_j = sum c y [r_u sigma(-u1) - (1 - r_u) sigma(-u2)]
        d(-f)/dgamma_j = sum c y t [r_u sigma(-u1) + (1 - r_u) sigma(-u2)]

    with u1 = y (a_j + t gamma_j), u2 = y (-a_j + t gamma_j) per row and r_u = sigma(D_u + L_1u - L_2u).
    """
    n_models, m = len(rows.models), len(rows.judges)
    s = x[:n_models] if strengths else None
    a, gamma = x[-2 * m:-m], x[-m:]
    d, l1, l2, u1, u2, c = _unit_terms(rows, s, a, gamma, weight)
    value = -float(np.sum(np.logaddexp(log_expit(d) + l1, log_expit(-d) + l2))) + 0.5 * reg * float(x @ x)
    r = expit(d + l1 - l2)
    ru = r[rows.unit]
    g1, g2 = c * rows.y * expit(-u1), c * rows.y * expit(-u2)
    grad = reg * x
    grad[-2 * m:-m] -= np.bincount(rows.judge, weights=ru * g1 - (1.0 - ru) * g2, minlength=m)
    grad[-m:] -= np.bincount(rows.judge, weights=rows.t * (ru * g1 + (1.0 - ru) * g2), minlength=m)
    if strengths:
        dd = r - expit(d)
        grad[:n_models] -= (np.bincount(rows.model_1, weights=dd, minlength=n_models)
                            - np.bincount(rows.model_2, weights=dd, minlength=n_models))
    return value, grad


def unit_posteriors(rows: UnitRows, eta: np.ndarray, gamma: np.ndarray | None = None,
                    scores: np.ndarray | None = None, weight: np.ndarray | None = None) -> np.ndarray:
    """Return r_u = P(model_1 wins unit u) for given judge parameters and model log-strengths.

    The judge parameters are eta per judge, gamma per judge or 0; the model log-strengths (``scores``
    per model of ``rows.models``, or None: a flat prior); e.g. Crowd-BT's fitted (scores, eta) with
    gamma = 0.
    """
    m = len(rows.judges)
    a = logit(np.asarray(eta, dtype=float))
    g = np.zeros(m) if gamma is None else np.asarray(gamma, dtype=float)
    w = np.ones(m) if weight is None else np.asarray(weight, dtype=float)
    d, l1, l2, *_ = _unit_terms(rows, None if scores is None else np.asarray(scores, dtype=float), a, g, w)
    return expit(d + l1 - l2)


def units_table(rows: UnitRows, posterior: np.ndarray) -> pd.DataFrame:
    """Return the table of :data:`_UNIT_COLUMNS`: each unit, its verdict count, P(model_1 wins) and the winner.

    The winner is the more probable model (``tie`` at exactly 1/2).
    """
    winner = np.where(posterior > 0.5, rows.units["model_1"].to_numpy(dtype=object),
                      np.where(posterior < 0.5, rows.units["model_2"].to_numpy(dtype=object), "tie"))
    out = rows.units.copy()
    out["verdicts"] = rows.n_verdicts.astype(np.int64)
    out["p_model_1"] = posterior
    out["winner"] = winner
    return out[_UNIT_COLUMNS]


class JudgeAwareVerdicts(Estimator):
    """The unit model of the module docstring, fitted on a verdicts table.

    Parameters
    ----------
    position : bool
        Fit a position effect gamma_j per judge (default); False: gamma = 0.
    clusters : None, "auto" or mapping
        A mapping judge -> cluster, or ``"auto"``, or None. Judges sharing errors, weighted by Kish's
        n_eff / n (:func:`~manyjudges.arena.judges.clusters.judge_weights`); default ``"auto"``; None:
        every verdict weight 1.
    cluster_threshold : float
        The error correlation above which ``"auto"`` joins two judges (default 0.5).
    rho : float, optional
        Fixed within-cluster error correlation (None: estimated).
    prior_units : float
        m0 of the shrunk error correlations the clusters use
        (:func:`~manyjudges.arena.judges.measures._shrunk_correlation`).
    prior : {"strengths", "flat"}
        P(z_u = model_1) = sigma(s_1 - s_2) with fitted strengths (default), or 1/2.
    reg : float
        Ridge on (s, a, gamma) (default 0.01).
    eta_init : float
        The starting eta of every judge (in (0.5, 1)).
    max_iter : int
        L-BFGS-B's iteration cap.
    tol : float
        L-BFGS-B's projected-gradient tolerance.

    Attributes
    ----------
    units_ : pandas.DataFrame
        :data:`_UNIT_COLUMNS`.
    judges_ : pandas.DataFrame
        ``judge, skill, position_bias, cluster, weight``: skill is eta_j, position_bias is gamma_j
        (the judge's log-odds shift towards the answer shown first).
    scores_ : pandas.Series
        Log-strengths by model (NaN with ``prior="flat"``).

    Notes
    -----
    The defaults (clusters ``"auto"`` at 0.5, prior ``"strengths"``, reg 0.01) were chosen
    leave-one-panel-out on five panels (``benchmarks/defaults/judge_aware.py``; ``docs/methods.md`` 6.9).
    """

    _parameter_constraints = {
        **CLUSTER_CONSTRAINTS,
        "position": [BOOLEAN],
        "prior": [Options(PRIORS)],
        "reg": [Interval(Real, 0, None, closed="neither")],
        "eta_init": [Interval(Real, 0.5, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
    }

    def __init__(self, position: bool = True, clusters: Mapping[str, str] | str | None = "auto",
                 cluster_threshold: float = 0.5, rho: float | None = None,
                 prior: Literal["strengths", "flat"] = "strengths", reg: float = 0.01, eta_init: float = 0.8,
                 max_iter: int = 5000, tol: float = 1e-7, prior_units: float = _PRIOR_UNITS) -> None:
        self.position, self.clusters, self.cluster_threshold, self.rho = position, clusters, cluster_threshold, rho
        self.prior_units = prior_units
        self.prior, self.reg, self.eta_init, self.max_iter, self.tol = prior, reg, eta_init, max_iter, tol

    def fit(self, verdicts: pd.DataFrame) -> JudgeAwareVerdicts:
        """Fit on a verdicts table (``prompt, judge, model_a, model_b, winner``); returns self."""
        self._check_params()
        rows = _unit_rows(verdicts)
        m, n = len(rows.judges), len(rows.models)
        weights = judge_weights(verdicts, self.clusters, self.cluster_threshold, self.rho,
                                prior_units=self.prior_units)
        weight = weights.set_index("judge")["weight"].reindex(rows.judges).to_numpy(dtype=float)
        strengths = self.prior == "strengths"
        x0 = np.concatenate([np.zeros(n if strengths else 0), np.full(m, float(logit(self.eta_init))), np.zeros(m)])
        bounds: list[tuple[float | None, float | None]] = [(None, None)] * (len(x0) - m)
        bounds += [(None, None) if self.position else (0.0, 0.0)] * m
        x, _ = lbfgsb(lambda v: _unit_objective(v, rows, weight, strengths, self.reg), x0, bounds,
                      maxiter=self.max_iter, gtol=self.tol, ftol=1e-15, maxcor=20)
        s = x[:n] if strengths else None
        a, gamma = x[-2 * m:-m], x[-m:]
        posterior = unit_posteriors(rows, expit(a), gamma, s, weight)
        self.units_ = units_table(rows, posterior)
        self.judges_ = pd.DataFrame({"judge": rows.judges, "skill": expit(a), "position_bias": gamma,
                                     "cluster": weights["cluster"].to_numpy(), "weight": weight},
                                    columns=JUDGE_PARAM_COLUMNS)
        self.scores_ = pd.Series(np.full(n, np.nan) if s is None else s - s.mean(),
                                 index=pd.Index(rows.models, name="model"), name="score")
        return self


def judge_aware_verdicts(verdicts: pd.DataFrame, **params: object) -> pd.DataFrame:
    """Return ``JudgeAwareVerdicts(**params).fit(verdicts).units_``.

    One row per (prompt, unordered pair) with the posterior P(model_1 wins) and the more probable
    winner.
    """
    return JudgeAwareVerdicts(**params).fit(verdicts).units_  # type: ignore[arg-type]
