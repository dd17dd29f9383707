"""Fixed-point iteration of an EM map, plain or accelerated by SQUAREM, stopped near its fixed point.

An EM fit is the iteration x_{n+1} = F(x_n) of its map F (one M-step and one E-step) on a state x
(a flat vector: the posteriors, and whatever else the M-step reads). Near a fixed point x* EM
converges linearly, x_{n+1} - x* ~ J (x_n - x*) with J = F'(x*), at the rate r = the spectral radius
of J; a slow EM (r close to 1) takes tiny steps far from x*. Two remedies live here.

The stopping rule. With s_n = max |F(x_n) - x_n| over the monitored coordinates (the posteriors)
and r estimated by the ratio of successive steps s_{n+1} / s_n of the plain map (the largest of the
last RATE_WINDOW estimates, clipped to [0, RATE_MAX]), the distance of x_{n+1} = F(x_n) to x* along
the slowest direction is the geometric tail

    d_n = s_n * r / (1 - r)      (x_{n+1} - x* = sum_{m >= 1} r^m (x_n - x_{n+1}))

and the iteration stops at the first n with max(s_n, d_n) < ``tol``, i.e. s_n max(1, r / (1 - r)) < tol
(an error estimate from the ratio of successive steps, as in Aitken's delta-squared process;
for EM, McLachlan and Krishnan 2008, The EM Algorithm and Extensions, 2nd ed., section 3.9).
Before the first rate estimate only an exact fixed point (s_n = 0) stops. A rule on the
objective's gain instead stops where the objective is flat, which for a slow EM can be far from x*.

SQUAREM (``accelerate=True``): Varadhan, R. and Roland, C. (2008). Simple and globally convergent
methods for accelerating the convergence of any EM algorithm. Scandinavian Journal of Statistics
35(2), 335-353, scheme S3. From x0, two EM steps x1 = F(x0), x2 = F(x1), then with
r = x1 - x0, v = x2 - 2 x1 + x0 and the step length alpha = -||r|| / ||v||, clamped into [-m, -1] (m
starts at 1 and is multiplied by STEP_FACTOR = 4 each time it binds, divided by 4 when the
objective falls: the defaults of the authors' R package SQUAREM, which keep the first cycles close
to plain EM, in its basin of attraction),

    x' = project(x0 - 2 alpha r + alpha^2 v),        x0 <- F(x')  (the stabilising EM step)

(alpha = -1 gives x' = x2: plain EM). ``project`` maps x' back into the parameter space (it may
return None: no admissible point, the cycle falls back). The fall-back: when the objective at
F(x') is below the objective at x2, the cycle keeps x2 instead (two plain EM steps), so the
objective never decreases from one accepted state to the next. ``n_iter`` counts evaluations of
F (three per accelerated cycle), so ``max_iter`` bounds the work as for plain EM.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EMRun", "iterate_em"]

#: the largest rate estimate used by the stopping rule (a factor r / (1 - r) of at most ~1e4)
_RATE_MAX = 0.9999
#: the cap on the step length |alpha| starts at 1 (plain EM) and is multiplied by STEP_FACTOR each time it binds,
#: divided by it (down to 1) each time the objective falls: the default of Varadhan's SQUAREM package
_STEP_FACTOR = 4.0
#: how many recent rate estimates the stopping rule takes the largest of
_RATE_WINDOW = 3

#: an EM map: state -> (F(state), the objective at F(state), a payload kept with the state: its parameters)
EMMap = Callable[[np.ndarray], tuple[np.ndarray, float, Any]]


@dataclass(frozen=True)
class EMRun:
    """The last accepted state of an EM iteration (always an output of the map) and how it got there."""

    #: the state F(x) of the last accepted evaluation
    state: np.ndarray
    #: the objective at ``state``
    objective: float
    #: what the map returned with ``state`` (its parameters)
    payload: Any
    #: the objective of every accepted state, in order (non-decreasing for an EM map)
    trace: np.ndarray
    #: evaluations of the map
    n_iter: int
    #: True when the rule held before ``max_iter`` evaluations
    converged: bool
    #: the last estimate max(s, s r / (1 - r)) of the monitored coordinates' distance to the fixed point
    distance: float


def _remaining_distance(step: float, rate: float) -> float:
    """Return max(s, s r / (1 - r)) with r clipped into [0, RATE_MAX].

    A bound on the distance of a linearly converging iteration's last point to its limit, from its last
    step s and its rate r.
    """
    r = min(max(float(rate), 0.0), _RATE_MAX)
    return float(step) * max(1.0, r / (1.0 - r))


def iterate_em(em_map: EMMap, x0: np.ndarray, *, tol: float, max_iter: int, accelerate: bool = True,
               project: Callable[[np.ndarray], np.ndarray | None] | None = None,
               monitor: slice | None = None) -> EMRun:
    """Iterate ``em_map`` from ``x0`` until the stopping rule holds at ``tol`` or ``max_iter`` evaluations ran.

    The stopping rule is the module docstring's.

    ``monitor`` selects the coordinates whose step the rule measures (all by default).
    """
    it = _Iteration(em_map, monitor if monitor is not None else slice(None), tol)
    x, objective, payload, step = it.evaluate(np.asarray(x0, dtype=float))
    it.trace.append(objective)
    # the first step: no rate yet
    first = step == 0.0
    if first or max_iter <= 1:
        return EMRun(x, objective, payload, np.asarray(it.trace), it.n, first, step if first else np.inf)
    it.x, it.objective, it.payload, it.previous_step = x, objective, payload, step
    while it.n < max_iter:
        # one plain step (and, accelerated, a second and the extrapolation)
        x0_ = it.x
        if it.accept(*it.evaluate(x0_)):
            return it.result(True)
        if not accelerate or it.n >= max_iter:
            continue
        x1 = it.x
        if it.accept(*it.evaluate(x1)):
            return it.result(True)
        if it.n >= max_iter:
            break
        if it.extrapolate(x0_, x1, project):
            return it.result(True)
    return it.result(False)


class _Iteration:
    """The state of one :func:`iterate_em` run: the last accepted state, the evaluations, the rate estimates."""

    def __init__(self, em_map: EMMap, watch: slice, tol: float):
        self.em_map, self.watch, self.tol = em_map, watch, tol
        self.rates: deque[float] = deque(maxlen=_RATE_WINDOW)
        self.trace: list[float] = []
        self.n = 0
        self.distance = np.inf
        self.x = np.empty(0)
        self.objective = -np.inf
        self.payload: Any = None
        #: the last plain step's length s (0 after an extrapolation: the next step gives no rate)
        self.previous_step = 0.0
        #: the cap m on the step length |alpha| (module docstring)
        self.step_max = 1.0

    def evaluate(self, x: np.ndarray) -> tuple[np.ndarray, float, Any, float]:
        """(F(x), the objective there, the payload, s = max |F(x) - x| over the monitored coordinates)."""
        y, objective, payload = self.em_map(x)
        self.n += 1
        return y, float(objective), payload, float(np.max(np.abs(y[self.watch] - x[self.watch]), initial=0.0))

    def accept(self, y: np.ndarray, objective: float, payload: Any, step: float, plain: bool = True) -> bool:
        """Make ``y`` the current state; a plain step's ratio s / s_previous is a rate estimate.

        True when the stopping rule holds: max(s, s r / (1 - r)) < tol with r the largest recent rate
        (before any rate, s = 0).
        """
        if plain and self.previous_step > 0:
            self.rates.append(step / self.previous_step)
        self.x, self.objective, self.payload = y, objective, payload
        self.trace.append(objective)
        self.previous_step = step if plain else 0.0
        if not self.rates:
            return step == 0.0  # no rate yet: only an exact fixed point stops
        self.distance = _remaining_distance(step, max(self.rates))
        return self.distance < self.tol

    def extrapolate(self, x0: np.ndarray, x1: np.ndarray, project: Callable[[np.ndarray], np.ndarray | None] | None
                    ) -> bool:
        """Take SQUAREM's step from x0 with x1 = F(x0) and the current state x2 = F(x1).

        r = x1 - x0, v = x2 - 2 x1 + x0, alpha = -||r|| / ||v|| clamped into [-m, -1], then
        F(project(x0 - 2 alpha r + alpha^2 v)) replaces x2 unless its objective is lower. True when the
        stopping rule holds at the new state.
        """
        x2 = self.x
        r = x1 - x0
        v = x2 - 2.0 * x1 + x0
        norm_v = float(np.linalg.norm(v))
        if norm_v == 0.0:
            return False
        length = float(np.linalg.norm(r)) / norm_v
        alpha = -min(max(length, 1.0), self.step_max)
        if length >= self.step_max:  # the cap binds: let the next cycles go further
            self.step_max *= _STEP_FACTOR
        if alpha == -1.0:
            return False  # x' = x2: the plain step already taken
        candidate: np.ndarray | None = x0 - 2.0 * alpha * r + alpha * alpha * v
        if project is not None and candidate is not None:
            candidate = project(candidate)
        if candidate is None or not np.all(np.isfinite(candidate)):
            return False
        x3, obj3, pay3, s3 = self.evaluate(candidate)
        if not obj3 >= self.objective:  # the objective fell (or is NaN): keep x2, two plain EM steps, and step less far
            self.step_max = max(1.0, self.step_max / _STEP_FACTOR)
            return False
        # the next plain step's ratio would compare it with a step from the extrapolated point: not a rate
        return self.accept(x3, obj3, pay3, s3, plain=False)

    def result(self, converged: bool) -> EMRun:
        """Return the run as it stands."""
        return EMRun(self.x, self.objective, self.payload, np.asarray(self.trace), self.n, converged, self.distance)
