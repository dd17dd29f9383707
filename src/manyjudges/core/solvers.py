"""Numerical solvers shared by the families, calling scipy's routines without their wrappers.

:func:`lbfgsb`: ``scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=..., options=...)``
runs Byrd, Lu, Nocedal and Zhu's L-BFGS-B (SIAM J. Sci. Comput. 16 (1995) 1190-1208) by
calling scipy's private ``scipy.optimize._lbfgsb.setulb`` in a loop; each objective evaluation
passes through ``ScalarFunction``, ``MemoizeJac`` and their copies and checks (with scipy 1.17,
about a third of the time of ``minimize`` on Crowd-BT's objective for a 9-item topic). On the
scipy releases listed in :data:`SETULB_SCIPY_VERSIONS`, :func:`lbfgsb` runs the same loop (their
``_minimize_lbfgsb``) in one adapter, :func:`_lbfgsb_setulb`, the only code that touches scipy's
private API: the same ``setulb`` calls with the same arguments, the objective evaluated at the
same points and a repeated point answered from the last evaluation, so it returns the same ``x``
bit for bit (tested against ``minimize``). With any other scipy release (or if the private
routine's signature changes: a TypeError) it calls the public ``minimize`` itself, with the same
numbers, only slower.

:func:`cholesky_solve`: ``cho_solve(cho_factor(a), b)``'s two LAPACK calls (dpotrf, dpotrs).

:func:`damped_newton`: Newton's method with a backtracking (Armijo) line search for a strictly convex objective;
:func:`newton_polish`: full Newton steps after it while they lower the gradient.
:func:`newton_warm`: full Newton steps from a start near the optimum, None if they stop short.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypedDict

import numpy as np
import scipy
from scipy.linalg.lapack import dpotrf, dpotrs

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]

#: the scipy releases (major, minor) whose private ``_lbfgsb.setulb`` and ``_minimize_lbfgsb`` loop
#: :func:`_lbfgsb_setulb` was written for (checked against scipy 1.17's source) and is tested
#: on; with any other release :func:`lbfgsb_fit` calls the public ``minimize`` instead
SETULB_SCIPY_VERSIONS = ((1, 15), (1, 16), (1, 17))


def setulb_supported(version: str = scipy.__version__) -> bool:
    """Tell whether the scipy release ``version`` is one of :data:`SETULB_SCIPY_VERSIONS`.

    ``version`` is e.g. ``"1.17.1"`` (the installed one by default); :func:`lbfgsb_fit` may call the
    private L-BFGS-B routine of those releases.
    """
    release = tuple(int(v) for v in version.split(".")[:2])
    return release in SETULB_SCIPY_VERSIONS


#: whether :func:`lbfgsb_fit` runs the adapter (:func:`_lbfgsb_setulb`) or the public ``minimize``
_DIRECT = setulb_supported()


class LbfgsbTolerances(TypedDict, total=False):
    """Stopping tolerances passed as keywords (``**options``) to :func:`lbfgsb` and :func:`lbfgsb_fit`."""

    ftol: float
    gtol: float


class LbfgsbResult(NamedTuple):
    """Where L-BFGS-B stopped: ``x``, the iterations run, and whether it stopped on its own test.

    Its own test: the projected gradient's largest entry at most ``gtol``, or a relative reduction of f at
    most ``ftol``; it stopped on that rather than on ``maxiter`` / ``maxfun`` or a failed line search.
    """

    x: np.ndarray
    n_iter: int
    converged: bool


def lbfgsb(fun: Objective, x0: np.ndarray, bounds: Sequence[tuple[float | None, float | None]] | None = None,
           maxiter: int = 15000, gtol: float = 1e-5, ftol: float = 2.220446049250313e-09, maxcor: int = 10,
           maxls: int = 20, maxfun: int = 15000) -> tuple[np.ndarray, int]:
    """``(x, iterations)`` of ``minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds, options=...)``.

    ``fun(x) -> (value, gradient)``; ``bounds`` as for ``minimize`` (None = unbounded), ``x0``
    inside them. :func:`lbfgsb_fit` also says whether it converged.
    """
    res = lbfgsb_fit(fun, x0, bounds, maxiter, gtol, ftol, maxcor, maxls, maxfun)
    return res.x, res.n_iter


def lbfgsb_fit(fun: Objective, x0: np.ndarray, bounds: Sequence[tuple[float | None, float | None]] | None = None,
               maxiter: int = 15000, gtol: float = 1e-5, ftol: float = 2.220446049250313e-09, maxcor: int = 10,
               maxls: int = 20, maxfun: int = 15000, scale: np.ndarray | None = None) -> LbfgsbResult:
    """Run :func:`lbfgsb` with the reason it stopped (:class:`LbfgsbResult`).

    ``ftol=0`` leaves the projected-gradient test ``gtol`` as the only stop short of the caps.

    ``scale`` (positive, one per variable): L-BFGS-B runs on u = x / scale, minimising f(scale * u)
    with gradient scale * grad f (a diagonal preconditioner: variables whose curvature differs by
    orders of magnitude, such as the weights of judges with 10 and 10,000 labels, take comparable
    steps); ``gtol`` then bounds scale * grad f, and the result's ``x`` is in the original variables.
    """
    if scale is not None:
        scale = np.asarray(scale, dtype=np.float64)

        def scaled(u: np.ndarray) -> tuple[float, np.ndarray]:
            value, gradient = fun(scale * u)
            return value, scale * gradient

        lo, hi = _bound_arrays(bounds, len(scale))
        res = lbfgsb_fit(scaled, np.asarray(x0, dtype=np.float64).ravel() / scale,
                         None if bounds is None else list(zip(lo / scale, hi / scale)), maxiter, gtol, ftol, maxcor,
                         maxls, maxfun)
        return LbfgsbResult(scale * res.x, res.n_iter, res.converged)
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    if _DIRECT:
        try:
            return _lbfgsb_setulb(fun, x0, bounds, maxiter, gtol, ftol, maxcor, maxls, maxfun)
        except TypeError:  # another setulb signature: use minimize
            pass
    from scipy.optimize import minimize  # here: importing scipy.optimize costs 0.15 s the direct path never needs

    res = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": maxiter, "gtol": gtol, "ftol": ftol, "maxcor": maxcor, "maxls": maxls,
                            "maxfun": maxfun})
    return LbfgsbResult(np.asarray(res.x, dtype=float), int(res.nit), int(res.status) == 0)


def _bound_arrays(bounds: Sequence[tuple[float | None, float | None]] | None, n: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` of ``bounds`` (as for ``minimize``) with infinities for None."""
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    lo = np.array([-np.inf if b[0] is None else b[0] for b in bounds], dtype=np.float64)
    hi = np.array([np.inf if b[1] is None else b[1] for b in bounds], dtype=np.float64)
    return lo, hi


def _lbfgsb_setulb(fun: Objective, x0: np.ndarray, bounds: Sequence[tuple[float | None, float | None]] | None,
                   maxiter: int, gtol: float, ftol: float, maxcor: int, maxls: int, maxfun: int) -> LbfgsbResult:
    """Minimise ``fun`` by scipy's private L-BFGS-B routine (``setulb``): the adapter to it.

    It runs the loop of ``_minimize_lbfgsb`` of the scipy releases in :data:`SETULB_SCIPY_VERSIONS`, without
    its wrappers (module docstring).

    Everything that depends on the private API is here: the module ``scipy.optimize._lbfgsb``,
    ``setulb``'s arguments and workspace sizes, its encoding of the bounds (nbd 0 free, 1 lower
    bound only, 2 both, 3 upper only; lower / upper 0 where there is none) and its task codes.
    ``x0`` is float64 and one-dimensional.
    """
    from scipy.optimize import _lbfgsb

    fg, new_x, convergence = 3, 1, 4  # setulb's task codes: evaluate f and g at x / a new iterate / converged
    n, m = len(x0), maxcor
    lo, hi = _bound_arrays(bounds, n)
    has_lo, has_hi = np.isfinite(lo), np.isfinite(hi)
    nbd = np.select([has_lo & has_hi, has_lo, has_hi], [2, 1, 3], 0).astype(np.int32)
    low, up = np.where(has_lo, lo, 0.0), np.where(has_hi, hi, 0.0)
    x = x0.copy() if bounds is None else np.clip(x0, lo, hi)
    last_x, (f, g) = x.copy(), fun(x.copy())
    nfev, iterations = 1, 0
    f_arg: np.ndarray | float  # a 0-d array until the first evaluation, then the objective's value (as scipy's)
    f_arg, g_arg = np.array(0.0, dtype=np.float64), np.zeros(n, np.float64)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64)
    iwa = np.zeros(3 * n, np.int32)
    task, ln_task = np.zeros(2, np.int32), np.zeros(2, np.int32)
    lsave, isave, dsave = np.zeros(4, np.int32), np.zeros(44, np.int32), np.zeros(29, np.float64)
    factr = ftol / np.finfo(float).eps
    while True:
        _lbfgsb.setulb(m, x, low, up, nbd, f_arg, g_arg, factr, gtol, wa, iwa, task, lsave, isave, dsave,
                       maxls, ln_task)
        if task[0] == fg:
            if not np.array_equal(x, last_x):  # minimize's ScalarFunction answers a repeated x from memory
                last_x = x.copy()
                f, g = fun(x.copy())
                nfev += 1
            f_arg, g_arg = f, np.asarray(g).astype(np.float64)
        elif task[0] == new_x:
            iterations += 1
            if iterations >= maxiter or nfev > maxfun:
                task[0], task[1] = 5, (504 if iterations >= maxiter else 502)
        else:
            break
    return LbfgsbResult(x, iterations, int(task[0]) == convergence)


def cholesky_solve(a: np.ndarray, b: np.ndarray, check_finite: bool = False) -> np.ndarray | None:
    """``a^{-1} b`` for a symmetric positive definite ``a`` (float64), None when its Cholesky factor fails.

    The LAPACK calls of ``scipy.linalg.cho_solve(cho_factor(a), b)`` (dpotrf on the upper
    triangle, then dpotrs), without the wrappers' conversions: the same numbers.
    ``check_finite``: a ValueError for an inf or NaN in ``a`` or ``b``, as those functions' default.
    """
    if check_finite and not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("array must not contain infs or NaNs")
    if a.shape[0] == 0:
        return np.zeros(0)
    factor, info = dpotrf(a, lower=False, clean=False, overwrite_a=False)
    if info > 0:
        return None
    if info < 0:
        raise ValueError(f"dpotrf: illegal value in argument {-info}")
    x, info = dpotrs(factor, b, lower=False, overwrite_b=False)
    if info != 0:
        raise ValueError(f"dpotrs: illegal value in argument {-info}")
    return x


def damped_newton(fun: Objective, hess: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, max_iter: int,
                  tol: float) -> np.ndarray | None:
    """Damped Newton for a strictly convex ``fun`` (returning value, gradient) with Hessian ``hess``.

    Step -H^{-1} g by Cholesky, halved until the Armijo condition f(x + t p) <= f(x) + 1e-4 t g.p
    holds; stops at max |g| <= tol. None when H is not numerically positive definite or the line
    search stalls (the caller falls back to L-BFGS-B).
    """
    x = x0
    f, g = fun(x)
    for _ in range(max_iter):
        if np.abs(g).max() <= tol:
            return x
        delta = cholesky_solve(hess(x), g, check_finite=True)
        if delta is None:
            return None
        step = -delta
        slope = float(g @ step)
        if -slope <= 1e-13 * max(1.0, abs(f)):
            return x  # Newton decrement at floating-point precision: nothing left to gain
        t = 1.0
        while True:
            f_new, g_new = fun(x + t * step)
            if f_new <= f + 1e-4 * t * slope:
                break
            t *= 0.5
            if t < 1e-12:
                return x if np.abs(g).max() <= 1e3 * tol else None
        x, f, g = x + t * step, f_new, g_new
    return x


def _full_step(fun: Objective, hess: Callable[[np.ndarray], np.ndarray], x: np.ndarray, grad: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """One full Newton step from ``x`` (gradient ``grad``): the new point and its gradient.

    None when the Hessian is not numerically positive definite or the step does not lower max |gradient|.
    """
    delta = cholesky_solve(hess(x), grad, check_finite=True)
    if delta is None:
        return None
    new_x = x - delta
    new_grad = fun(new_x)[1]
    if not np.abs(new_grad).max() < np.abs(grad).max():
        return None
    return new_x, new_grad


def newton_warm(fun: Objective, hess: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, tol: float,
                max_steps: int = 10) -> np.ndarray | None:
    """Full Newton steps from a start near the optimum (a bootstrap replicate starts from the full-data fit).

    Each step -H^{-1} g is kept only while it lowers max |gradient|; returns ``x`` as soon as
    max |g| <= ``tol``, None if the steps stop short of it (the caller then runs
    :func:`damped_newton` from ``x0``). Near the optimum of a strictly convex objective full steps
    converge quadratically, so this skips the line search's evaluations; far from it a step can
    overshoot, which the max |g| test catches.
    """
    x, grad = x0, fun(x0)[1]
    for _ in range(max_steps):
        if np.abs(grad).max() <= tol:
            return x
        step = _full_step(fun, hess, x, grad)
        if step is None:
            return None
        x, grad = step
    return x if np.abs(grad).max() <= tol else None


def newton_polish(fun: Objective, hess: Callable[[np.ndarray], np.ndarray], x: np.ndarray, max_steps: int = 5,
                  tol: float = 0.0) -> np.ndarray:
    """Full Newton steps from a near-optimal ``x``, each kept only while it lowers max |gradient|.

    :func:`damped_newton` stops when the Newton decrement is below the objective's floating-point
    resolution (1e-13 |f|); with millions of observations |f| is large and the gradient there can
    still be ~1e-3, although the objective no longer changes visibly. Near the optimum full steps
    converge quadratically, so a few of them bring the gradient down to its own rounding level.
    ``tol``: ``x`` is returned as it is when max |gradient| <= tol already (damped Newton stopped on
    the gradient, not on the decrement); 0 always tries the steps.
    """
    grad = fun(x)[1]
    if np.abs(grad).max() <= tol:
        return x
    for _ in range(max_steps):
        step = _full_step(fun, hess, x, grad)
        if step is None:
            break
        x, grad = step
    return x


def newton_fit(fun: Objective, hess: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, warm: bool, max_iter: int,
               tol: float) -> np.ndarray | None:
    """Newton's optimum of a strictly convex ``fun`` from ``x0``, or None when Newton fails.

    From a warm start (``warm``: ``x0`` near the optimum, a bootstrap replicate's full-data fit)
    :func:`newton_warm` first; else, or when it fails, :func:`damped_newton` then :func:`newton_polish`.
    The callers fall back to L-BFGS-B on None.
    """
    x = newton_warm(fun, hess, x0, tol) if warm else None
    if x is None:
        x = damped_newton(fun, hess, x0, max_iter, tol)
        if x is not None:
            x = newton_polish(fun, hess, x, tol=tol)
    return x
