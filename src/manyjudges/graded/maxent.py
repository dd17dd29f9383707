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
A lambda on a bound of ``lambda_bounds`` (the best may lie beyond it) is reported by
:meth:`M5.parameters_at_bound`: the protocols log a warning naming the judges, and mark the
parameter ``at_bound``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from manyjudges.graded.base import GradedMethod, bound_reached, maximise_scalar
from manyjudges.graded.panel import GradedPanel, inner_folds

#: L-BFGS-B tolerances on the mean negative log-likelihood (about 1.4 nats per label): a
#: relative change of 1e-7 is about 0.01 nats summed over 60,000 instances
LBFGS_OPTIONS = {"ftol": 1e-7, "gtol": 1e-5}
#: looser for the inner fits that only choose lambda (measured on sim_medline: the held-out
#: judge's log probability moves by about 1 nat of 6,600, far less than between grid points)
INNER_LBFGS_OPTIONS = {"ftol": 1e-6, "gtol": 1e-5}


def _unpack(x: np.ndarray, n_judges: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    return x[:k], x[k:].reshape(n_judges, k, k)


@dataclass(frozen=True)
class MaxentData:
    """A panel's instances as sparse incidence matrices, built once per fit."""

    panel: GradedPanel
    key: np.ndarray          # (E,) judge * K + label: the feature each label contributes
    by_item: sparse.csr_matrix   # (items x E): sums over each item's labels
    by_key: sparse.csr_matrix    # (J*K x E): sums over each feature's occurrences

    @classmethod
    def of(cls, panel: GradedPanel) -> MaxentData:
        e = panel.n_entries
        ones = np.ones(e)
        key = panel.judge * panel.n_labels + panel.label
        by_item = sparse.csr_matrix((ones, (panel.item, np.arange(e))), shape=(panel.n_items, e))
        by_key = sparse.csr_matrix((ones, (key, np.arange(e))), shape=(panel.n_judges * panel.n_labels, e))
        return cls(panel, key, by_item, by_key)


def _softmax_parts(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores shifted by their row max, log of the row sums of exp): log p = shifted - log_norm."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    norm = exp.sum(axis=1, keepdims=True)
    return shifted, exp / norm, np.log(norm[:, 0])


def maxent_objective(x: np.ndarray, data: MaxentData, lam: float) -> tuple[float, np.ndarray]:
    """The penalised mean negative log-likelihood and its gradient (b, then W flattened)."""
    panel = data.panel
    J, k, n = panel.n_judges, panel.n_labels, panel.n_entries
    b, W = _unpack(x, J, k)
    at_entry = W.reshape(J * k, k)[data.key]           # W[j, z_j, :] per label
    F = data.by_item @ at_entry                          # item sums
    shifted, R, log_norm = _softmax_parts(b[None, :] + F[panel.item] - at_entry)
    rows = np.arange(n)
    nll = float((log_norm - shifted[rows, panel.label]).sum()) / n
    R[rows, panel.label] -= 1.0
    R /= n
    G = (data.by_item @ R)[panel.item] - R               # each label is a feature of the other instances
    grad_W = (data.by_key @ G).reshape(J, k, k) + lam * W
    f = nll + 0.5 * lam * float((W * W).sum())
    return f, np.concatenate([R.sum(0), grad_W.ravel()])


def fit_maxent(data: MaxentData, lam: float, x0: np.ndarray | None = None, max_iter: int = 1000,
               options: dict[str, float] | None = None) -> np.ndarray:
    """Fitted parameters (b, W) of the maximum-entropy model on every label of the panel."""
    panel = data.panel
    if panel.n_entries == 0:
        raise ValueError("empty panel: no instances to fit the maximum-entropy model on")
    size = panel.n_labels + panel.n_judges * panel.n_labels**2
    x0 = np.zeros(size) if x0 is None else x0
    res = minimize(maxent_objective, x0, args=(data, float(lam)), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, **(options or LBFGS_OPTIONS)})
    return res.x


def maxent_log_proba(x: np.ndarray, data: MaxentData) -> np.ndarray:
    """log P(label | item) for an unseen judge, every training label on the item a feature."""
    panel = data.panel
    b, W = _unpack(x, panel.n_judges, panel.n_labels)
    F = data.by_item @ W.reshape(-1, panel.n_labels)[data.key]
    shifted, _, log_norm = _softmax_parts(b[None, :] + F)
    return shifted - log_norm[:, None]


class M5(GradedMethod):
    """M5: maximum entropy with an L2 penalty lambda chosen by cross induction."""

    name = "m5"
    single_parameter = "lambda"
    single_parameter_scale = "log"
    single_parameter_refine = "parabola"

    def __init__(self, inner_folds: int | None = None, grid_points: int = 4, refine_evaluations: int = 2,
                 lambda_bounds: tuple[float, float] = (1e-3, 1.0), max_iter: int = 1000):
        self.inner_folds, self.grid_points, self.refine_evaluations = inner_folds, grid_points, refine_evaluations
        self.lambda_bounds, self.max_iter = lambda_bounds, max_iter

    # the single-parameter protocol's search, from the parameters
    @property
    def single_parameter_bounds(self) -> tuple[float, float]:  # type: ignore[override]
        return float(self.lambda_bounds[0]), float(self.lambda_bounds[1])

    @property
    def single_parameter_grid_points(self) -> int:  # type: ignore[override]
        return self.grid_points

    @property
    def single_parameter_refinements(self) -> int:  # type: ignore[override]
        return self.refine_evaluations

    def _check_params(self) -> None:
        low, high = self.single_parameter_bounds
        if not 0 < low < high:
            raise ValueError(f"lambda_bounds must be 0 < low < high, got {self.lambda_bounds!r}")
        if self.grid_points < 2:
            raise ValueError(f"grid_points must be >= 2, got {self.grid_points!r}")

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        folds = [(MaxentData.of(rest), train.select(mask)) for mask, rest in inner_folds(train, self.inner_folds)]
        warm: dict[int, np.ndarray] = {}

        def objective(lam: float) -> float:
            # each inner fit starts from the same fold's fit at the previous lambda (never from
            # a fit that saw the held-out judge i)
            total = 0.0
            for f, (rest, held) in enumerate(folds):
                x = warm[f] = fit_maxent(rest, lam, warm.get(f), self.max_iter, INNER_LBFGS_OPTIONS)
                logp = maxent_log_proba(x, rest)
                total += float(logp[held.item, held.label].sum())
            return total

        lam, _ = maximise_scalar(objective, self.single_parameter_grid()[::-1], "log", self.refine_evaluations,
                                 "parabola")
        return {"lambda": lam}

    def parameters_at_bound(self, params: dict[str, Any]) -> dict[str, tuple[str, float]]:
        """{"lambda": (side, bound)} when lambda is a bound of ``lambda_bounds``, else {}."""
        edge = bound_reached(float(params["lambda"]), self.single_parameter_bounds)
        return {"lambda": edge} if edge else {}

    def prepare(self, train: GradedPanel) -> Any:
        return {"data": MaxentData.of(train), "warm": None}

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        x = fit_maxent(state["data"], float(params["lambda"]), state["warm"], self.max_iter)
        state["warm"] = x
        return np.exp(maxent_log_proba(x, state["data"]))
