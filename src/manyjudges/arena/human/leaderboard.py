"""Human-calibrated arena estimates: many LLM verdicts, a few human ones, by prediction-powered inference.

Boyeau, P., Angelopoulos, A. N., Yosef, N., Malik, J. and Jordan, M. I. (2024). AutoEval done right:
using synthetic data for model evaluation. arXiv:2403.07008. The estimator is PPI++
(:mod:`manyjudges.core.prediction_powered`): the humans' verdicts set the target (the scores humans would
give), the LLM's verdicts reduce the variance, and the rectifier removes the LLM's average bias.

**Units.** A unit is a (prompt, unordered model pair). Its outcome is the share of its verdicts won by
the pair's first model in natural order (``model_1``), a tie half (``tie (bothbad)`` a tie), over all
its verdicts: the human outcome h over the human verdicts on the unit, the LLM's prediction l over
the LLM verdicts (every judge, both presentation orders: their mean outcome). Units with a human
verdict are the labelled set (n), the other LLM units the unlabelled set (N); every human unit must
have LLM verdicts.

**Leaderboard** (:class:`HumanCalibratedLeaderboard`). Bradley-Terry with the logistic loss of a unit
with x = e_model_1 - e_model_2 and outcome y, loss(theta; y) = log(1 + e^{x.theta}) - y x.theta
(Bradley and Terry 1952; a tie half a win each way, as the leaderboard's bradley_terry), scores centred to
mean 0, plus the ridge reg ||theta||^2 / (2 (n + N)). The PPI++ objective is

    (1 - lambda) / n sum_i softplus(x_i.theta) - (1/n) sum_i (h_i - lambda l_i) x_i.theta
    + lambda / N sum_j [softplus(x_j.theta) - l_j x_j.theta]

(convex for lambda in [0, 1]: the Hessian, (1 - lambda) H_labelled + lambda H_unlabelled, does not
depend on the outcomes), fitted by damped Newton. The sandwich's Hessian H is therefore estimated
on all n + N units pooled, mean of sigma'(x.theta) x x^T (as the ``ppi_py`` package does for its
logistic regression), plus the ridge. lambda is power-tuned as in PPI++ (gradients and Hessian at a
first fit, then refitted) unless given, and capped (:func:`lambda_cap`): where the LLM's verdicts on a
model's few labelled units favour it much more than its other units do, its rectified wins (or losses)
fall with lambda and reach 0 before lambda = 1, and the objective then has no minimum; the first fit is
at the cap (1 unless it binds) and lambda is clipped to [0, cap], the cap keeping every model's rectified
wins and losses at least half their humans-alone values. Models without a human verdict are warned of:
their scores rest on the LLM alone. Intervals: ``sandwich`` (default): the
score interval theta_k +- z sqrt(Sigma_kk) with Sigma the PPI++ covariance on the centred scores (the
Hessian inverted on the sum-zero subspace); rank and win-rate intervals are percentiles over
``n_bootstrap`` draws from N(theta, Sigma) (ranked within each draw). ``bootstrap``: ``n_bootstrap``
replicates resampling the labelled and the unlabelled units separately (n of n, N of N), each refitted
with the full-data lambda; all intervals are percentiles over them.

**Win rates** (:func:`~manyjudges.arena.human.win_rates.calibrated_win_rates`): per model, the PPI++ mean
of its preference p over the baseline on the (prompt) units where it met the baseline.
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.linalg import null_space
from scipy.special import expit, ndtri

from manyjudges.arena.human.units import CalibrationUnits, calibration_units, units_without_llm
from manyjudges.arena.leaderboard.estimator import baseline_code, leaderboard_table
from manyjudges.arena.leaderboard.win_rates import _logistic_win_rate
from manyjudges.arena.verdict_codes import _BOTHBAD_RULES, code_verdicts
from manyjudges.core.estimator import Estimator
from manyjudges.core.parameters import Interval, Options
from manyjudges.core.prediction_powered import power_tuned_lambda, ppi_covariance, worth
from manyjudges.core.solvers import damped_newton
from manyjudges.io.engine.errors import DataWarning

__all__ = [
    "SUMMARY_COLUMNS", "CalibrationUnits", "HumanCalibratedLeaderboard", "calibration_units", "lambda_cap",
    "units_without_llm",
]

#: how :class:`HumanCalibratedLeaderboard` computes its intervals
_INTERVALS = ("sandwich", "bootstrap")
#: the one-row summary of a human-calibrated fit
SUMMARY_COLUMNS = ["n_human", "human_verdicts", "n_llm_units", "lambda", "worth"]
_SHOWN = 5  # models named in a warning

def _laplacian(lo: np.ndarray, hi: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """sum_u w_u x_u x_u^T with x_u = e_lo - e_hi: the (m, m) weighted graph Laplacian."""
    flat = np.bincount(lo * m + hi, weights=w, minlength=m * m) + np.bincount(hi * m + lo, weights=w, minlength=m * m)
    lap = -flat.reshape(m, m)
    lap[np.diag_indices(m)] += np.bincount(lo, weights=w, minlength=m) + np.bincount(hi, weights=w, minlength=m)
    return lap


def _gradient_rows(theta: np.ndarray, lo: np.ndarray, hi: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-unit gradients (sigma(x.theta) - y) x of the logistic loss, as (units, m) rows."""
    r = expit(theta[lo] - theta[hi]) - y
    rows = np.zeros((len(y), len(theta)))
    index = np.arange(len(y))
    rows[index, lo] = r
    rows[index, hi] = -r
    return rows


class _Weights(NamedTuple):
    """The PPI++ objective as sum_u a_u softplus(x_u.theta) - b_u x_u.theta over the units (module docstring)."""

    a: np.ndarray
    b: np.ndarray


def _objective_weights(units: CalibrationUnits, lam: float, take: np.ndarray | None = None) -> _Weights:
    """Per-unit weights of the PPI++ objective; ``take`` (unit indices, a bootstrap draw) or all units."""
    take = np.arange(len(units.llm)) if take is None else take
    labelled = units.labelled[take]
    n, big_n = int(labelled.sum()), int((~labelled).sum())
    h, f = np.nan_to_num(units.human[take]), units.llm[take]
    a = np.where(labelled, (1.0 - lam) / n, lam / max(big_n, 1))
    b = np.where(labelled, (h - lam * f) / n, lam * f / max(big_n, 1))
    return _Weights(a, b)


def _solve(lo: np.ndarray, hi: np.ndarray, weights: _Weights, m: int, ridge: float) -> np.ndarray:
    """Minimise the weighted objective plus (ridge / 2) ||theta||^2 + (sum theta)^2 / 2 by damped Newton."""
    a, b = weights

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[lo] - theta[hi]
        total = float(theta.sum())
        value = float(a @ np.logaddexp(0.0, d) - b @ d) + 0.5 * ridge * float(theta @ theta) + 0.5 * total * total
        r = a * expit(d) - b
        grad = np.bincount(lo, weights=r, minlength=m) - np.bincount(hi, weights=r, minlength=m)
        return value, grad + ridge * theta + total

    def hess(theta: np.ndarray) -> np.ndarray:
        p = expit(theta[lo] - theta[hi])
        return _laplacian(lo, hi, a * p * (1.0 - p), m) + ridge * np.eye(m) + 1.0

    theta = damped_newton(fun, hess, np.zeros(m), 200, 1e-12)
    if theta is None:
        raise ValueError("the human-calibrated Bradley-Terry fit did not converge (a comparison graph in pieces?)")
    return theta


class _CalibratedFit(NamedTuple):
    """A human-calibrated Bradley-Terry fit.

    Centred ``scores``, ``lam``, ``covariance`` (sandwich), ``covariance_alone`` (humans alone, lambda = 0,
    at the same scores), ``worth``, the unit counts ``n`` (labelled) and ``n_unlabelled``, and ``cap``
    (:func:`lambda_cap`).
    """

    scores: np.ndarray
    lam: float
    covariance: np.ndarray
    covariance_alone: np.ndarray
    worth: float
    n: int
    n_unlabelled: int
    cap: float


def _centred_inverse(hessian: np.ndarray) -> np.ndarray:
    """Return the inverse of ``hessian`` on the sum-zero subspace: Q (Q^T H Q)^-1 Q^T, Q an orthonormal basis of it."""
    basis = null_space(np.ones((1, len(hessian))))
    return basis @ np.linalg.solve(basis.T @ hessian @ basis, basis.T)


def _sandwich(units: CalibrationUnits, theta: np.ndarray, ridge: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(grad_h, grad_l, grad_u, inverse Hessian)`` at ``theta``; the Hessian pooled over all n + N units."""
    lab = units.labelled
    lo, hi, m = units.lo, units.hi, len(theta)
    p = expit(theta[lo] - theta[hi])
    curvature = p * (1.0 - p)
    hessian = _laplacian(lo, hi, curvature, m) / len(lo) + ridge * np.eye(m)  # pooled: it has no outcome in it
    grad_h = _gradient_rows(theta, lo[lab], hi[lab], units.human[lab])
    grad_l = _gradient_rows(theta, lo[lab], hi[lab], units.llm[lab])
    grad_u = _gradient_rows(theta, lo[~lab], hi[~lab], units.llm[~lab])
    return grad_h, grad_l, grad_u, _centred_inverse(hessian)


def _ridge(units: CalibrationUnits, reg: float) -> float:
    """Return the mean-scale ridge reg / (n + N) (``reg`` on the scale of summed units, as the leaderboard's)."""
    return reg / len(units.llm)


def _model_sides(units: CalibrationUnits, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Each model's rectified wins and losses in the PPI++ objective at ``lam`` (module docstring's weights)."""
    a, b = _objective_weights(units, lam)
    m = len(units.models)
    wins = np.bincount(units.lo, b, m) + np.bincount(units.hi, a - b, m)
    losses = np.bincount(units.lo, a - b, m) + np.bincount(units.hi, b, m)
    return wins, losses


def lambda_cap(units: CalibrationUnits) -> float:
    """Return the largest lambda in [0, 1] at which every model keeps half its humans-alone wins and losses.

    A model's rectified wins W_k(lambda) = sum over its units of its share in (h - lambda l) / n (labelled)
    and lambda l / N (unlabelled), its losses likewise, are linear in lambda. Where they reach 0 the
    objective has no minimum in that model's score (it runs off to +-infinity, held only by the ridge),
    which happens before lambda = 1 when the LLM's verdicts on a model's few labelled units favour it much
    more than its other units do. The cap is min over models and sides of W_k(0) / (2 (W_k(0) - W_k(1)))
    where W_k falls from W_k(0) > 0, so that W_k(lambda) >= W_k(0) / 2 (a side already 0 without the LLM,
    a model the humans saw only win or only lose, is held by the ridge at any lambda and does not cap it).
    """
    if units.labelled.all():
        return 1.0
    zero, one = np.concatenate(_model_sides(units, 0.0)), np.concatenate(_model_sides(units, 1.0))
    falls = (one < zero) & (zero > 0)  # a side with no humans-alone wins (losses) has no minimum at lambda 0 either
    caps = zero[falls] / (2.0 * (zero[falls] - one[falls]))
    return float(min(1.0, caps.min())) if len(caps) else 1.0


def _fit_calibrated_scores(units: CalibrationUnits, lam: float | None = None, reg: float = 0.01) -> _CalibratedFit:
    """Fit the human-calibrated Bradley-Terry scores (module docstring); ``lam`` None: power-tuned.

    The power-tuned lambda is PPI++'s closed form at the fit with lambda = :func:`lambda_cap` (1 unless a
    model's rectified wins or losses fall to half), clipped to [0, cap]. A given lambda above the cap is
    fitted, with a warning. Refused (ValueError): fewer than 2 labelled units, lambda outside [0, 1].
    """
    n, big_n = int(units.labelled.sum()), int((~units.labelled).sum())
    if n < 2:
        raise ValueError(f"at least 2 units (prompt, model pair) with a human verdict are needed, got {n}")
    if lam is not None and not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam}")
    m, ridge, cap = len(units.models), _ridge(units, reg), lambda_cap(units)
    if lam is None:
        lam = 0.0
        if big_n and cap > 0:
            first = _solve(units.lo, units.hi, _objective_weights(units, cap), m, ridge)
            lam = min(power_tuned_lambda(*_sandwich(units, first, ridge)), cap)
    elif lam > cap:
        warnings.warn(f"lambda {lam:g} is above {cap:.3g}, where some model keeps only half its humans-alone wins "
                      "or losses: its calibrated score may be held only by the ridge", DataWarning, stacklevel=2)
    theta = _solve(units.lo, units.hi, _objective_weights(units, lam), m, ridge)
    grad_h, grad_l, grad_u, hinv = _sandwich(units, theta, ridge)
    covariance = ppi_covariance(grad_h, grad_l, grad_u, hinv, lam)
    alone = ppi_covariance(grad_h, grad_l, grad_u, hinv, 0.0)
    return _CalibratedFit(theta, float(lam), covariance, alone, worth(n, alone, covariance), n, big_n, cap)


def _normal_draws(fit: _CalibratedFit, n_draws: int, seed: int) -> np.ndarray:
    """``n_draws`` seeded draws from N(scores, covariance), by the covariance's eigen-decomposition."""
    values, vectors = np.linalg.eigh((fit.covariance + fit.covariance.T) / 2.0)
    z = np.random.default_rng(seed).standard_normal((n_draws, len(values)))
    return fit.scores + (z * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def _bootstrap_draws(units: CalibrationUnits, fit: _CalibratedFit, n_draws: int, seed: int, reg: float) -> np.ndarray:
    """``n_draws`` replicates resampling labelled and unlabelled units separately, refitted with ``fit.lam``."""
    rng = np.random.default_rng(seed)
    labelled, unlabelled = np.flatnonzero(units.labelled), np.flatnonzero(~units.labelled)
    m, ridge = len(units.models), _ridge(units, reg)
    out = np.empty((n_draws, m))
    for r in range(n_draws):
        take = np.concatenate([rng.choice(labelled, len(labelled)), rng.choice(unlabelled, len(unlabelled))])
        out[r] = _solve(units.lo[take], units.hi[take], _objective_weights(units, fit.lam, take), m, ridge)
    return out


class HumanCalibratedLeaderboard(Estimator):
    """Human-calibrated Bradley-Terry leaderboard from LLM verdicts and a few human verdicts (module docstring).

    Parameters
    ----------
    intervals : {"sandwich", "bootstrap"}
    n_bootstrap : int
        Normal draws (sandwich: rank and win-rate intervals) or bootstrap replicates; 0: no intervals.
    ci : float
    seed : int
    lam : float, optional
        PPI++'s lambda in [0, 1]; None: power-tuned.
    reg : float
        Ridge on the scale of summed units (0.01, as the leaderboard's bradley_terry).
    bothbad : {"tie", "drop"}
    baseline : str, optional
        win_rate against this model rather than the pool's average model.

    Attributes
    ----------
    table_ : pandas.DataFrame
        The leaderboard's columns (:func:`~manyjudges.arena.leaderboard.estimator.leaderboard_table`; ``verdicts``
        counts LLM verdicts), then ``human_verdicts``.
    summary_ : pandas.DataFrame
        One row: :data:`SUMMARY_COLUMNS`.
    fit_ : CalibratedFit
    replicates_ : numpy.ndarray
    """

    _parameter_constraints = {
        "intervals": [Options(_INTERVALS)],
        "n_bootstrap": [Interval(Integral, 0, None)],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "seed": [Interval(Integral, 0, None)],
        "lam": [Interval(Real, 0, 1), None],
        "reg": [Interval(Real, 0, None)],
        "bothbad": [Options(_BOTHBAD_RULES)],
        "baseline": [str, None],
    }

    def __init__(self, intervals: str = "sandwich", n_bootstrap: int = 1000, ci: float = 0.95, seed: int = 0,
                 lam: float | None = None, reg: float = 0.01, bothbad: str = "tie", baseline: str | None = None
                 ) -> None:
        self.intervals, self.n_bootstrap, self.ci, self.seed = intervals, n_bootstrap, ci, seed
        self.lam, self.reg, self.bothbad, self.baseline = lam, reg, bothbad, baseline

    def fit(self, llm: pd.DataFrame, human: pd.DataFrame) -> HumanCalibratedLeaderboard:
        """Fit on the LLM verdicts and the human verdicts (both verdicts tables)."""
        self._check_params()
        units = calibration_units(llm, human, self.bothbad)
        data = code_verdicts(llm, self.bothbad)
        baseline_code(data, self.baseline)
        unseen = np.setdiff1d(np.arange(len(units.models)), np.concatenate(
            [units.lo[units.labelled], units.hi[units.labelled]]))
        if len(unseen):
            warnings.warn(f"{len(unseen)} models have no human verdict ({', '.join(units.models[unseen][:_SHOWN])}"
                          f"{', ...' if len(unseen) > _SHOWN else ''}): their scores rest on the LLM verdicts alone, "
                          "uncalibrated", DataWarning, stacklevel=2)
        fit = _fit_calibrated_scores(units, self.lam, self.reg)
        draws = np.empty((0, len(units.models)))
        if self.n_bootstrap and self.intervals == "sandwich":
            draws = _normal_draws(fit, self.n_bootstrap, self.seed)
        elif self.n_bootstrap:
            draws = _bootstrap_draws(units, fit, self.n_bootstrap, self.seed, self.reg)
        table = leaderboard_table(data, fit.scores, draws, self.ci, _logistic_win_rate, self.baseline)
        code = pd.Series(np.arange(len(units.models)), index=units.models)[table["model"]].to_numpy()
        if self.intervals == "sandwich":
            half = ndtri(0.5 + self.ci / 2.0) * np.sqrt(np.clip(np.diag(fit.covariance), 0.0, None))
            table["ci_low"] = fit.scores[code] - half[code]
            table["ci_high"] = fit.scores[code] + half[code]
        m = len(units.models)
        human_counts = np.bincount(units.lo, units.human_verdicts, m) + np.bincount(units.hi, units.human_verdicts, m)
        table["human_verdicts"] = human_counts.astype(np.int64)[code]
        self.fit_, self.replicates_, self.table_ = fit, draws, table
        self.summary_ = pd.DataFrame([[fit.n, int(units.human_verdicts.sum()), len(units.llm), fit.lam, fit.worth]],
                                     columns=SUMMARY_COLUMNS)
        return self
