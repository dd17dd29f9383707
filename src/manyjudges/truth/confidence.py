"""Posteriors that mean what they say: a temperature and a floor, fitted where the truth is not used.

A method's posteriors T (n_items, K) are mapped to

    C[i, t] = (1 - K f) T_beta[i, t] + f,    T_beta[i, t] ∝ T[i, t]^beta,

a temperature beta (Guo, Pleiss, Sun and Weinberger 2017's temperature scaling, on log posteriors)
and a floor f, the least probability any class keeps (mixing with the uniform). Both keep each
item's argmax, so the labels do not change; beta < 1 softens the posteriors, f bounds how sure of a
class any item can be: at most 1 - (K - 1) f.

**The floor** f = 1 / (n + 2) for n pieces of withheld evidence: n withheld labels can vouch for
no error rate below 1 / (n + 2) (Laplace's rule of succession after n agreements), so no class is
given less; a posterior of 7e-74 on six labels says more than six labels can tell. It is fixed, not
fitted: fitted on withheld labels it soaked up the judge model's misfit (3% on a simulated
Dawid-Skene panel whose exact posteriors need none, doubling the calibration error).

**The temperature** beta maximises the mean log probability of evidence the fits did not see
(:func:`fit_confidence`): the labels withheld from fits without each fold
(:class:`~manyjudges.truth.heldout.HeldOut`: P(label c) = sum_t C[i, t] pi[w, t, c]), and, when
gold items are given, each withheld gold answer (a label from a judge who is always right). With
the floor the predictive probability is (1 - K f) P_beta + f sum_t pi[t]; the search is a bounded
scalar search of log beta in [log 0.02, log 5] (a single method's ``calibrate="tempering"``: vote
shares understate how sure a majority is) or in [log 0.02, 0] (:data:`_SOFTENING`, ``Auto``'s), kept only
where it beats beta = 1. ``Auto`` softens, never sharpens: withheld labels reward posteriors as
sure as the judges agree, and judges that share their errors agree more than they are right; on the development pool a
temperature allowed up to 5 raised the mean calibration error (0.199 -> 0.208 under one accuracy
for every judge) where softening only lowered it (0.186), chosen leave one group out
(``benchmarks/defaults/auto_calibration.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from manyjudges.truth.heldout import BETA_RANGE, HeldOut, log_score, temper

__all__ = ["Confidence", "fit_confidence"]

#: ``Auto``'s range of beta: softening only (a sharpened mixture was worse calibrated on the development pool)
_SOFTENING = (0.02, 1.0)


@dataclass(frozen=True)
class Confidence:
    """A fitted temperature ``beta`` and floor ``floor``: :meth:`apply` maps posteriors to calibrated ones."""

    beta: float = 1.0
    floor: float = 0.0

    def apply(self, posteriors: np.ndarray) -> np.ndarray:
        """C = (1 - K f) T_beta + f, rows summing to 1 (module docstring)."""
        t = temper(np.asarray(posteriors, dtype=float), self.beta)
        k = t.shape[1]
        return (1.0 - k * self.floor) * t + self.floor


def _least_floor(n_evidence: int) -> float:
    """f_min = 1 / (n + 2): the smallest error rate ``n_evidence`` withheld labels can vouch for."""
    return 1.0 / (max(int(n_evidence), 0) + 2)


def _log_score(held: HeldOut, spread: np.ndarray, beta: float, floor: float, k: int) -> float:
    """Mean log of (1 - K f) P_beta + f sum_t pi[t] over the withheld labels."""
    return log_score((1.0 - k * floor) * held.probabilities(beta) + floor * spread)


def fit_confidence(held: HeldOut, floor: float | None = None, beta_range: tuple[float, float] = BETA_RANGE
                   ) -> Confidence:
    """Fit beta in ``beta_range`` on ``held`` under the floor ``floor`` (default :func:`_least_floor` of its rows).

    Module docstring; without withheld evidence: beta = 1.
    """
    from scipy.optimize import minimize_scalar  # imported when a fit calibrates (scipy's optimisers load slowly)

    n, k = held.said.shape
    floor = min(_least_floor(n) if floor is None else float(floor), 0.5 / k)
    if n == 0:
        return Confidence(1.0, floor)
    spread = held.said.sum(axis=1)
    res = minimize_scalar(lambda x: -_log_score(held, spread, float(np.exp(x)), floor, k),
                          bounds=(np.log(beta_range[0]), np.log(beta_range[1])), method="bounded",
                          options={"xatol": 1e-2})
    beta = float(np.exp(res.x))
    # the search is local: keep beta = 1 unless the optimum beats it
    if _log_score(held, spread, beta, floor, k) > _log_score(held, spread, 1.0, floor, k):
        return Confidence(beta, floor)
    return Confidence(1.0, floor)
