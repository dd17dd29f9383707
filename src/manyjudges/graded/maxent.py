"""Method M5 of Wilbur and Kim: a maximum-entropy (multinomial logistic) classifier.

One instance per label z[dp, j] of a training judge j: the target is z[dp, j], the features
are one-hot (judge m, label z[dp, m]) for every other training judge m who labelled dp,
plus a bias. With weights W[m, c', c] and bias b[c] the score of class c is

    s_c = b_c + sum_{m != j} W[m, z_m, c] = b_c + F_dp[c] - W[j, z_j, c],
    F_dp = sum over every training label on dp of W[m, z_m, :],

so the item sums F are computed once per evaluation and every instance costs O(K): the
same likelihood as listing (or count-aggregating) the instances, in O(labels x K) per
gradient. Objective (our scaling of the L2 penalty, docs/methods.md, graded section):

    (1/N) sum_instances -log softmax(s)[target] + (lambda / 2) ||W||^2     (b not penalised)

minimised by L-BFGS with the analytic gradient. The unseen judge's prediction on dp is
softmax(b + F_dp). lambda is chosen by cross induction: for each training judge i (or
inner fold), fit without i, predict i; the lambda with the best total log-probability over
a log grid (default 1e-3, 1e-2, 1e-1, 1), refined by two steps of parabolic interpolation
in log lambda through the best point and its neighbours, wins (each evaluation is one fit
per inner fold, so the search is kept short). Each inner fit is warm-started from the same
fold's fit at the previous lambda (never from a fit that saw the held-out judge).
The final fit on the whole training panel starts from the mean of the inner fits at the
chosen lambda (all on subsets of that panel) and runs to the optimum (``FINAL_LBFGS_OPTIONS``).
A lambda on a bound of ``lambda_bounds`` (the best may lie beyond it) is reported by
:meth:`M5.parameters_at_bound`: the protocols log a warning naming the judges, and mark the
parameter ``at_bound``.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from manyjudges.core.parameters import Interval, Pair, invalid
from manyjudges.core.solvers import LbfgsbResult
from manyjudges.graded.base import GradedMethod, bound_reached, maximise_scalar
from manyjudges.graded.panel import GradedPanel, inner_folds
from manyjudges.graded.subpanel_cache import _panel_digest

#: L-BFGS-B tolerances on the mean negative log-likelihood (about 1.4 nats per label): a
#: relative change of 1e-7 is about 0.01 nats summed over 60,000 instances
LBFGS_OPTIONS = {"ftol": 1e-7, "gtol": 1e-5}
#: looser for the inner fits that only choose lambda (measured on sim_medline: the held-out
#: judge's log probability moves by about 1 nat of 6,600, far less than between grid points)
INNER_LBFGS_OPTIONS = {"ftol": 1e-6, "gtol": 1e-5}
#: the final fit of a cross-induction fold, started from the mean of its inner fits: run to the
#: optimum (a start this close would stop the relative-reduction test above after a few steps,
#: further from the optimum than a fit from zero; measured on sim_medline: within 1e-6 nats of
#: the objective's minimum, the held-out judge's log probability within 0.002 nats of a fit to
#: ftol 1e-15, where a fit from zero with LBFGS_OPTIONS is up to 0.03 nats and 1.2 nats away)
FINAL_LBFGS_OPTIONS = {"ftol": 1e-12, "gtol": 1e-8}


def _unpack(x: np.ndarray, n_judges: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    return x[:k], x[k:].reshape(n_judges, k, k)


@dataclass(frozen=True)
class MaxentData:
    """A panel's instances as flat index arrays, built once per fit.

    Arrays over instances are held class-major, (K x E): the softmax's reductions over the K
    classes are then element-wise operations between K rows instead of reductions along a
    short last axis. Two layouts of the instances, the same sums:

    - ragged (any panel): the entries ordered by item, so an item's instances are one contiguous
      run; sums over an item are ``np.add.reduceat``, spreading an item's value to its instances
      ``np.repeat``, and sums over a feature's occurrences ``np.bincount``;
    - complete (every present judge labelled every item once, a panel like MEDLINE's): instance
      ``s * n_items + item`` is the label of the s-th present judge, so an item's sum is a sum over
      w slots of (K x items) rows, spreading is ``np.tile``, and a feature's sums are one batched
      matrix product with each slot's one-hot labels. Measured: 40% less time per evaluation on a
      5,000 x 12 panel, about 10% less CPU for M5 on sim_medline (the L-BFGS steps and the
      softmax's element-wise work are the same).
    """

    panel: GradedPanel       # the panel, entries in the layout's order
    key_index: np.ndarray    # (K * E,) c * J * K + judge[e] * K + label[e]: a (K x E) array into (K x J*K)
    target_index: np.ndarray  # (E,) label[e] * E + e: each instance's target in a flattened (K x E) array
    target: np.ndarray       # (K x E) one-hot of each instance's target (1.0 at [label[e], e])
    per_item: np.ndarray     # (n_items,) instances per item
    starts: np.ndarray       # first instance of each item that has one (ragged layout)
    slot_judges: np.ndarray | None = None  # (w,) the present judges, one per slot (complete layout)
    slot_onehot: np.ndarray | None = None  # (w x items x K) one-hot labels of each slot (complete layout)

    @classmethod
    def of(cls, panel: GradedPanel, layout: str = "auto") -> MaxentData:
        """Build the index arrays of ``panel``: ``layout`` "ragged", "complete" or "auto" (complete when it applies)."""
        if layout not in ("auto", "ragged", "complete"):
            raise ValueError(f"layout must be 'auto', 'ragged' or 'complete', got {layout!r}")
        e, k, n = panel.n_entries, panel.n_classes, panel.n_items
        per_item = np.bincount(panel.item, minlength=n)
        judges = np.flatnonzero(np.bincount(panel.judge, minlength=panel.n_judges))
        # a panel never holds two labels of one judge on one item (GradedPanel checks), so w labels on
        # every item, w present judges, is every judge on every item once
        complete = layout != "ragged" and e > 0 and bool((per_item == len(judges)).all())
        if layout == "complete" and not complete:
            raise ValueError("the complete layout needs every present judge to label every item once")
        # complete: by (judge, item), so instance s * n_items + item is judge s's label; ragged: by item (stable)
        order = np.lexsort((panel.item, panel.judge)) if complete else np.argsort(panel.item, kind="stable")
        panel = GradedPanel(panel.item[order], panel.judge[order], panel.label[order], n, panel.n_judges, k,
                            panel.item_ids, panel.judge_ids)
        key = panel.judge * k + panel.label
        key_index = (np.arange(k)[:, None] * (panel.n_judges * k) + key[None, :]).ravel()
        starts = (np.cumsum(per_item) - per_item)[per_item > 0]
        slot_judges = slot_onehot = None
        if complete:
            slot_judges = judges
            slot_onehot = (panel.label.reshape(len(judges), n)[:, :, None] == np.arange(k)).astype(float)
        target = (panel.label[None, :] == np.arange(k)[:, None]).astype(float)
        return cls(panel, key_index, panel.label * e + np.arange(e), target, per_item, starts, slot_judges,
                   slot_onehot)

    def item_sums(self, values: np.ndarray) -> np.ndarray:
        """(K x items) sums over each item's instances of a (K x E) array."""
        k, n = self.panel.n_classes, self.panel.n_items
        if self.slot_judges is not None:
            return np.add.reduce(values.reshape(k, len(self.slot_judges), n), axis=1)
        out = np.zeros((k, n))
        if len(self.starts):
            out[:, self.per_item > 0] = np.add.reduceat(values, self.starts, axis=1)
        return out

    def at_items(self, values: np.ndarray) -> np.ndarray:
        """(K x E) the (K x items) array at each instance's item."""
        if self.slot_judges is not None:
            return np.tile(values, (1, len(self.slot_judges)))
        return np.repeat(values, self.per_item, axis=1)

    def key_sums(self, values: np.ndarray) -> np.ndarray:
        """(K x J*K) sums over each feature's occurrences of a (K x E) array."""
        k, size = self.panel.n_classes, self.panel.n_judges * self.panel.n_classes
        if self.slot_judges is not None and self.slot_onehot is not None:
            w = len(self.slot_judges)
            # per slot: (K x items) @ (items x K) one-hot of its labels = its judge's (class, label) sums
            per_slot = np.matmul(values.reshape(k, w, self.panel.n_items).transpose(1, 0, 2), self.slot_onehot)
            out = np.zeros((k, self.panel.n_judges, k))
            out[:, self.slot_judges, :] = per_slot.transpose(1, 0, 2)
            return out.reshape(k, size)
        return np.bincount(self.key_index, values.ravel(), minlength=k * size).reshape(k, size)

    def feature_sums(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K x items) F[:, dp] = sum over the labels on dp of W[m, z_m, :]; and (K x E) W at each label."""
        k = self.panel.n_classes
        at_entry = np.take(np.ascontiguousarray(W.reshape(-1, k).T), self.key_index).reshape(k, -1)
        return self.item_sums(at_entry), at_entry


def maxent_objective(x: np.ndarray, data: MaxentData, lam: float) -> tuple[float, np.ndarray]:
    """Return the penalised mean negative log-likelihood and its gradient (b, then W flattened).

    Instance (dp, j) has scores s = b + F_dp - W[j, z_j] (K of them); with P = softmax(s) and
    R = (P - onehot(z_j)) / N, the gradient is sum R over instances for b and, for feature
    (m, c'), sum over the instances it occurs in of R: every label on dp is a feature of the
    other instances on dp, so that sum is (item sums of R)[dp] - R at the label itself.
    """
    panel = data.panel
    J, k, n = panel.n_judges, panel.n_classes, panel.n_entries
    b, W = _unpack(x, J, k)
    F, at_entry = data.feature_sums(W)
    scores = data.at_items(F)
    scores -= at_entry
    scores += b[:, None]
    scores -= np.maximum.reduce(scores, axis=0)
    R = np.exp(scores)
    norm = np.add.reduce(R, axis=0)
    nll = float(np.log(norm).sum() - scores.ravel()[data.target_index].sum()) / n
    R /= norm
    R -= data.target   # minus 1.0 at each target, minus 0.0 (exactly nothing) elsewhere
    R *= 1.0 / n
    G = data.at_items(data.item_sums(R))
    G -= R
    grad_W = data.key_sums(G).T.reshape(J, k, k) + lam * W
    f = nll + 0.5 * lam * float((W * W).sum())
    return f, np.concatenate([R.sum(1), grad_W.ravel()])


def fit_maxent(data: MaxentData, lam: float, x0: np.ndarray | None = None, max_iter: int = 1000,
               options: dict[str, float] | None = None) -> np.ndarray:
    """Fitted parameters (b, W) of the maximum-entropy model on every label of the panel."""
    return maxent_fit(data, lam, x0, max_iter, options).x


def maxent_fit(data: MaxentData, lam: float, x0: np.ndarray | None = None, max_iter: int = 1000,
               options: dict[str, float] | None = None) -> LbfgsbResult:
    """:func:`fit_maxent` with whether L-BFGS-B stopped on its tolerances (not its cap)."""
    from scipy.optimize import minimize  # imported when used (scipy's optimisers load slowly)

    panel = data.panel
    if panel.n_entries == 0:
        raise ValueError("empty panel: no instances to fit the maximum-entropy model on")
    size = panel.n_classes + panel.n_judges * panel.n_classes**2
    x0 = np.zeros(size) if x0 is None else x0
    res = minimize(maxent_objective, x0, args=(data, float(lam)), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, **(options or LBFGS_OPTIONS)})
    return LbfgsbResult(res.x, int(res.nit), int(res.status) == 0)


def maxent_log_proba(x: np.ndarray, data: MaxentData) -> np.ndarray:
    """Log P(label | item) for an unseen judge, every training label on the item a feature."""
    panel = data.panel
    b, W = _unpack(x, panel.n_judges, panel.n_classes)
    scores = data.feature_sums(W)[0].T + b[None, :]
    scores -= scores.max(axis=1, keepdims=True)
    return scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))


class M5(GradedMethod):
    """M5: maximum entropy with an L2 penalty lambda chosen by cross induction."""

    name = "m5"
    single_parameter = "lambda"
    single_parameter_scale = "log"
    single_parameter_refine = "parabola"
    _parameter_constraints = {
        "inner_folds": [Interval(Integral, 2, None), None],
        "grid_points": [Interval(Integral, 2, None)],
        "refine_evaluations": [Interval(Integral, 0, None)],
        "lambda_bounds": [Pair(Interval(Real, 0, None, closed="neither"))],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(self, inner_folds: int | None = None, grid_points: int = 4, refine_evaluations: int = 2,
                 lambda_bounds: tuple[float, float] = (1e-3, 1.0), max_iter: int = 1000):
        self.inner_folds, self.grid_points, self.refine_evaluations = inner_folds, grid_points, refine_evaluations
        self.lambda_bounds, self.max_iter = lambda_bounds, max_iter

    # the single-parameter protocol's search, from the parameters
    @property
    def single_parameter_bounds(self) -> tuple[float, float]:  # type: ignore[override]
        """Search range of lambda: ``lambda_bounds``."""
        return float(self.lambda_bounds[0]), float(self.lambda_bounds[1])

    @property
    def single_parameter_grid_points(self) -> int:  # type: ignore[override]
        """Grid points of the lambda search: ``grid_points``."""
        return self.grid_points

    @property
    def single_parameter_refinements(self) -> int:  # type: ignore[override]
        """Refinement evaluations of the lambda search: ``refine_evaluations``."""
        return self.refine_evaluations

    def _check_params(self) -> None:
        """Check the declared constraints, then that ``lambda_bounds`` is (low, high) with low < high."""
        super()._check_params()
        low, high = self.lambda_bounds
        if not low < high:
            raise invalid(type(self).__name__, "lambda_bounds", "(low, high) with low < high", self.lambda_bounds)

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Choose lambda by cross induction: grid, then parabolic refinement, of the inner folds' log-probability."""
        folds = [(MaxentData.of(rest), train.select(mask), _panel_digest(rest))
                 for mask, rest in inner_folds(train, self.inner_folds)]
        warm: dict[int, np.ndarray] = {}
        fits: dict[float, list[np.ndarray]] = {}
        lambdas: list[float] = []
        cache = self._subpanel_cache()

        def objective(lam: float) -> float:
            # each inner fit starts from the same fold's fit at the previous lambda (never from
            # a fit that saw the held-out judge i); a fit is determined by the fold's sub-panel and
            # the lambdas so far, so one judge's fold reuses another's (SubpanelCache)
            lambdas.append(lam)
            key = ("m5_fit", self.max_iter, tuple(lambdas))
            total = 0.0
            for f, (rest, held, digest) in enumerate(folds):
                fit = cache.get(digest, key, lambda f=f, rest=rest: maxent_fit(  # type: ignore[misc]  # mypy#15459
                    rest, lam, warm.get(f), self.max_iter, INNER_LBFGS_OPTIONS))
                self.record_fit(fit.converged)
                x = warm[f] = fit.x
                fits.setdefault(lam, []).append(x)
                logp = maxent_log_proba(x, rest)
                total += float(logp[held.item, held.label].sum())
            return total

        lam, _ = maximise_scalar(objective, self.single_parameter_grid()[::-1], "log", self.refine_evaluations,
                                 "parabola")
        # the final fit on all of train starts from the mean of the inner fits at the chosen lambda
        # (none of them saw a judge outside train); see prepare
        chosen = min(fits, key=lambda v: abs(np.log(v / lam)))  # lam is exp(log(a value evaluated))
        self._start = (train, lam, np.mean(fits[chosen], axis=0))
        return {"lambda": lam}

    def parameters_at_bound(self, params: dict[str, Any]) -> dict[str, tuple[str, float]]:
        """{"lambda": (side, bound)} when lambda is a bound of ``lambda_bounds``, else {}."""
        edge = bound_reached(float(params["lambda"]), self.single_parameter_bounds)
        return {"lambda": edge} if edge else {}

    def prepare(self, train: GradedPanel) -> Any:
        """Return the fit's data of ``train`` and its warm start (the inner fits' mean right after choosing)."""
        start = getattr(self, "_start", None)
        if start is not None and start[0] is train:  # fit(train) right after choose_parameters(train)
            return {"data": MaxentData.of(train), "warm": start[2], "options": FINAL_LBFGS_OPTIONS}
        return {"data": MaxentData.of(train), "warm": None, "options": LBFGS_OPTIONS}

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """Fit the maximum-entropy model at ``params["lambda"]`` and return its (n_items x K) probabilities."""
        fit = maxent_fit(state["data"], float(params["lambda"]), state["warm"], self.max_iter, state["options"])
        self.record_fit(fit.converged)
        x = state["warm"] = fit.x
        state["options"] = LBFGS_OPTIONS
        return np.exp(maxent_log_proba(x, state["data"]))
