"""The contract every graded predictor follows, and the small optimisers they share.

``Predictor(**params).fit(panel).predict_proba()``: fitted on a panel of judges (for an
evaluation, the judges J - {k}), it returns P(label | item) for an unseen judge as an
(items x K) array; ``fit_predict_proba(grades)`` does the same from a long table and returns a
DataFrame indexed by item id. ``fit`` chooses the parameters Phi on the panel alone, by predicting each
of its judges from the others (cross induction, Wilbur and Kim, eqs. 5-7), and stores them
as ``parameters_``. Three hooks make a predictor, and let the protocols reuse work:
``choose_parameters(panel) -> Phi``, ``prepare(panel) -> state`` (work that does not depend on
Phi) and ``predict(state, Phi) -> (items x K)``; the single-parameter protocol (their Table 3)
calls ``predict`` with one named parameter set for every test judge at once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.estimator import Estimator, check_is_fitted
from manyjudges.core.natural_order import natural_order
from manyjudges.graded.panel import GradedPanel, classes_count
from manyjudges.graded.subpanel_cache import _SubpanelCache

#: probabilities are clipped to at least this before taking logs (never exactly 0)
MIN_PROBABILITY = 1e-300


class GradedMethod(Estimator):
    """Base class of the graded predictors: ``fit(panel) -> self`` then ``predict_proba()``.

    Subclasses implement the hooks ``choose_parameters`` and ``predict`` (and ``prepare`` when
    some work does not depend on the parameters).

    Subclasses set ``name``; those with one tunable parameter for the single-parameter
    protocol set ``single_parameter`` (its name), ``single_parameter_bounds`` and
    ``single_parameter_scale`` (``"linear"`` or ``"log"``).
    """

    name: str = ""
    single_parameter: str | None = None
    single_parameter_bounds: tuple[float, float] = (0.0, 1.0)
    single_parameter_scale: str = "linear"
    single_parameter_grid_points: int = 9
    #: refinement evaluations after the grid (each evaluation predicts every test judge)
    single_parameter_refinements: int = 12
    #: "brent" (cheap predictions) or "parabola" (one evaluation per step, for costly ones)
    single_parameter_refine: str = "brent"

    def fit(self, panel: GradedPanel, parameters: dict[str, Any] | None = None) -> GradedMethod:
        """Choose the parameters on ``panel`` (unless ``parameters`` are given) and prepare to predict.

        Sets ``parameters_`` (Phi) and ``n_items_``, ``n_classes_`` of the panel; ``fits_`` and
        ``capped_fits_`` count the iterative fits run since (:meth:`record_fit`).
        """
        self._check_params()
        if panel.n_entries == 0:
            raise ValueError(f"{self.name or type(self).__name__}: empty panel, no labels to fit")
        self.reset_fit_record()
        self.parameters_ = self.choose_parameters(panel) if parameters is None else dict(parameters)
        self.state_ = self.prepare(panel)
        self.n_items_, self.n_classes_ = panel.n_items, panel.n_classes
        return self

    def predict_proba(self) -> np.ndarray:
        """(n_items x K) P(label | item) for an unseen judge, from the fitted panel."""
        check_is_fitted(self, ("parameters_", "state_"))
        return self.predict(self.state_, self.parameters_)

    def fit_predict_proba(self, grades: pd.DataFrame, n_classes: int | None = None, *,
                          n_labels: int | None = None) -> pd.DataFrame:
        """Return P(label | item) for an unseen judge from a long grades table.

        ``fit`` on the panel of ``grades`` (columns ``item``, ``judge``, ``label``; ``worker`` is read as
        ``judge`` and ``task`` as ``item``; labels 0..K-1, K = ``n_classes`` (former name ``n_labels``, still
        read) or the largest label + 1), then :func:`proba_frame` of ``predict_proba()``: items (natural
        order) x labels.
        """
        table = grades.rename(columns={k: v for k, v in (("worker", "judge"), ("task", "item"))
                                       if k in grades.columns and v not in grades.columns})
        missing = [c for c in ("item", "judge", "label") if c not in table.columns]
        if missing:
            raise ValueError(f"grades: missing column(s) {', '.join(missing)} (a grades table has item (or task), "
                             "judge (or worker), label)")
        labels = table["label"].to_numpy()
        if n_labels is not None:
            n_classes = classes_count(n_classes, n_labels)
        k = int(n_classes) if n_classes is not None else int(np.max(labels)) + 1 if len(labels) else 0
        panel = GradedPanel.from_table(table, k)
        return proba_frame(panel, self.fit(panel).predict_proba())

    def reset_fit_record(self) -> None:
        """Start counting iterative fits afresh (``fit`` does; the single-parameter protocol too)."""
        self.fits_, self.capped_fits_ = 0, 0

    def record_fit(self, converged: bool) -> None:
        """Count one iterative fit (an optimiser or EM run) and whether it met its stop rule.

        ``converged=False`` means it stopped on its iteration cap (or a failed line search).
        """
        self.fits_ = getattr(self, "fits_", 0) + 1
        self.capped_fits_ = getattr(self, "capped_fits_", 0) + (not converged)

    @property
    def converged_(self) -> bool:
        """Whether every iterative fit since the last ``fit`` (or reset) met its stop rule."""
        return getattr(self, "capped_fits_", 0) == 0

    def _subpanel_cache(self) -> _SubpanelCache:
        """Return the inner-fold results shared between the cross-induction folds of this instance.

        The :mod:`~manyjudges.graded.subpanel_cache` is created on first use, kept across ``fit`` calls.
        """
        cache = self.__dict__.get("_subpanel_fits")
        if cache is None:
            cache = self._subpanel_fits = _SubpanelCache()
        return cache

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Parameters Phi chosen by predicting each training judge from the others."""
        raise NotImplementedError

    def prepare(self, train: GradedPanel) -> Any:
        """Work that does not depend on the parameters (cached across parameter values)."""
        return train

    def parameters_at_bound(self, params: dict[str, Any]) -> dict[str, tuple[str, float]]:
        """Return the chosen parameters that sit on an edge of their search range.

        A dict name -> ("lower" or "upper", the bound). The best value may lie beyond it; the protocols
        warn. None here.
        """
        return {}

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """(n_items x K) P(label | item) for an unseen judge."""
        raise NotImplementedError

    def single_parameter_grid(self) -> np.ndarray:
        """Return the grid of the single parameter: ``single_parameter_grid_points`` values between its bounds.

        Evenly spaced, or geometrically when ``single_parameter_scale`` is ``"log"``.
        """
        lo, hi = self.single_parameter_bounds
        n = self.single_parameter_grid_points
        return np.geomspace(lo, hi, n) if self.single_parameter_scale == "log" else np.linspace(lo, hi, n)


def proba_frame(panel: GradedPanel, proba: np.ndarray) -> pd.DataFrame:
    """Return (items x K) predictions on ``panel`` as a DataFrame indexed by item id.

    The index is named ``item``, rows in natural order (by number when every id is a digit string),
    with one column per label 0..K-1 (``label``).
    """
    order = natural_order([str(i) for i in panel.item_ids])
    return pd.DataFrame(np.asarray(proba)[order], index=pd.Index(np.asarray(panel.item_ids, dtype=object)[order],
                                                                  name="item"),
                        columns=pd.RangeIndex(panel.n_classes, name="label"))


def maximise_scalar(
    objective: Callable[[float], float],
    grid: np.ndarray,
    scale: str = "linear",
    refine_evaluations: int = 12,
    refine: str = "brent",
) -> tuple[float, float]:
    """Return the argmax of a one-dimensional objective and its value, (x*, objective(x*)).

    Grid search, then a refinement between the best point's neighbours (in log space for
    ``scale="log"``).

    ``refine="brent"``: bounded Brent with ``refine_evaluations`` evaluations (cheap
    objectives). ``refine="parabola"``: successive parabolic interpolation through the best
    evaluated point and its two neighbours, one evaluation per step, reusing the grid's
    values (costly objectives: every step is an evaluation that moves).
    """
    from scipy.optimize import minimize_scalar  # imported when used (scipy's optimisers load slowly)

    grid = np.asarray(grid, dtype=float)
    values = np.array([objective(float(x)) for x in grid])
    values = np.where(np.isfinite(values), values, -np.inf)
    best = int(np.argmax(values))
    x_best, f_best = float(grid[best]), float(values[best])
    if refine_evaluations <= 0 or len(grid) < 2:
        return x_best, f_best
    to_x = np.exp if scale == "log" else (lambda v: v)
    to_u = np.log if scale == "log" else (lambda v: v)
    if refine == "parabola":
        u, f = list(to_u(grid)), list(values)
        for _ in range(refine_evaluations):
            order = np.argsort(u)
            us, fs = np.asarray(u)[order], np.asarray(f)[order]
            b = int(np.argmax(fs))
            if b == 0 or b == len(us) - 1 or not np.isfinite(fs[b - 1:b + 2]).all():
                break  # optimum at an end of the range: nothing to interpolate
            (u0, u1, u2), (f0, f1, f2) = us[b - 1:b + 2], fs[b - 1:b + 2]
            den = (u1 - u0) * (f1 - f2) - (u1 - u2) * (f1 - f0)
            if den == 0:
                break
            vertex = u1 - 0.5 * ((u1 - u0) ** 2 * (f1 - f2) - (u1 - u2) ** 2 * (f1 - f0)) / den
            if not u0 < vertex < u2 or np.min(np.abs(us - vertex)) < 1e-3 * (u2 - u0):
                break
            u.append(float(vertex))
            f.append(float(objective(float(to_x(vertex)))))
        k = int(np.argmax(f))
        return float(to_x(u[k])), float(f[k])
    if refine != "brent":
        raise ValueError(f"refine must be 'brent' or 'parabola', got {refine!r}")
    lo, hi = sorted((grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]))
    a, b = to_u(lo), to_u(hi)
    res = minimize_scalar(lambda v: -objective(float(to_x(v))), bounds=(a, b), method="bounded",
                          options={"maxiter": refine_evaluations, "xatol": 1e-4 * max(1.0, abs(b - a))})
    if np.isfinite(res.fun) and -res.fun > f_best:
        return float(to_x(res.x)), float(-res.fun)
    return x_best, f_best


def bound_reached(value: float, bounds: tuple[float, float]) -> tuple[str, float] | None:
    """Return ("lower" or "upper", bound) when ``value`` is that bound of a search range, else None.

    The comparison has a relative tolerance of 1e-6.
    """
    for side, bound in zip(("lower", "upper"), bounds):
        if np.isclose(value, bound, rtol=1e-6, atol=0.0):
            return side, float(bound)
    return None


def log_probability(p: np.ndarray) -> np.ndarray:
    """Return log p, with p clipped to at least :data:`MIN_PROBABILITY` (never log 0)."""
    return np.log(np.maximum(p, MIN_PROBABILITY))


def best_smoothing(share: np.ndarray, has_votes: np.ndarray, prior: np.ndarray) -> float:
    """Return the tau maximising sum log((1 - tau) share + tau prior) over entries with votes.

    The objective also holds sum log prior over the entries without votes; bounded Brent on (0, 1).
    This is the smoothing of M1 and of the Dawid-Skene predictor. ``share``, ``prior``: each target
    label's probability.
    """
    from scipy.optimize import minimize_scalar  # imported when used (scipy's optimisers load slowly)

    fixed = float(log_probability(prior[~has_votes]).sum())
    share, prior = share[has_votes], prior[has_votes]

    def negative(tau: float) -> float:
        return -(fixed + float(log_probability((1 - tau) * share + tau * prior).sum()))

    res = minimize_scalar(negative, bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-7})
    return float(res.x)
