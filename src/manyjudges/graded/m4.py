"""Method M4 (Yu et al. 2006 intrinsic judgments, as used by Wilbur and Kim) and M4 with learned weights.

M4: starting from uniform weights r, iterate (Wilbur and Kim eqs. 8-10)

    mu_dp = sum_j r_j z_j / sum_j r_j          (over the training judges who labelled dp)
    e_j^2 = mean over j's items of (z_j - mu_dp)^2
    r_j  proportional to e_j^(-2 beta),  beta = 0.5

to a fixed point. The unseen judge's label is predicted by a Gaussian around mu_dp: its mass
on [c - 1/2, c + 1/2] with open end bins (``predictive="binned"``, the default: the reading
closer to the paper's Tables 2-3, docs/methods.md), or P(c | dp) proportional to
exp(-(c - mu_dp)^2 / (2 sigma^2)) over c in 0..K-1 (``predictive="discrete"``). sigma is
chosen by cross induction (1-D, bounded Brent on log sigma).

Sparse panels: e_j^2 averages over j's items that some other judge also labelled (on an
item j labelled alone, z_j = mu_dp and the error would be 0 by construction); a judge with
no such item gets the median error of the others. An item no training judge labelled is
predicted by the background prior.

M4-learned (an extension: the paper's suggested future work): the weights r_j = exp(theta_j)
and sigma are fitted together by maximising the cross-induction objective directly
(analytic gradient, L-BFGS-B), instead of by Yu's fixed point.
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import ndtr

from manyjudges.core.parameters import Interval, Options
from manyjudges.core.solvers import lbfgsb_fit
from manyjudges.graded.base import GradedMethod, log_probability
from manyjudges.graded.panel import GradedPanel, background_prior, inner_folds, prior_without_own
from manyjudges.graded.votes import LBFGS_OPTIONS, MAX_ITER, THETA_BOUND, THETA_RIDGE

SIGMA_BOUNDS = (0.05, 20.0)
#: iteration cap of Yu's fixed point (it stops when no weight moves by 1e-9; a fit that needs the
#: whole cap is counted as not converged, :meth:`GradedMethod.record_fit`). Sparse crowd panels
#: converge slowly: sub-panels of trec_rf10 took up to 4,651 iterations (1,000, the earlier cap,
#: left mu up to 2e-4 from the fixed point)
YU_MAX_ITER = 10_000


def yu_weights(panel: GradedPanel, beta: float = 0.5, tol: float = 1e-9, max_iter: int = YU_MAX_ITER,
               min_error: float = 1e-6) -> tuple[np.ndarray, np.ndarray, int]:
    """Return Yu et al.'s fixed point: (r per judge, mu per item, iterations used).

    r is normalised over present judges; mu is NaN where unlabelled.
    """
    J = panel.n_judges
    present = panel.labels_per_judge() > 0
    if not present.any():
        raise ValueError("empty panel: no labels to weight")
    z = panel.label.astype(float)
    n_on_item = np.bincount(panel.item, minlength=panel.n_items)
    shared = n_on_item[panel.item] > 1
    n_shared = np.bincount(panel.judge[shared], minlength=J)
    # the errors are sums over shared entries only: index them once
    judge_shared, item_shared, z_shared = panel.judge[shared], panel.item[shared], z[shared]
    per_judge = np.maximum(n_shared, 1)
    has_err = present & (n_shared > 0)
    needs_fill = bool((present & ~has_err).any())  # a present judge with no shared item
    r = np.where(present, 1.0, 0.0)
    r /= r.sum()
    mu = np.full(panel.n_items, np.nan)
    for iteration in range(1, max_iter + 1):  # noqa: B007 (the count is read after the loop)
        rw = r[panel.judge]
        den = np.bincount(panel.item, rw, minlength=panel.n_items)
        mu = np.bincount(panel.item, rw * z, minlength=panel.n_items) / np.where(den > 0, den, np.nan)
        sq = (z_shared - mu[item_shared]) ** 2
        err = np.bincount(judge_shared, sq, minlength=J) / per_judge
        if needs_fill:
            fill = np.median(err[has_err]) if has_err.any() else 1.0
            err = np.where(has_err, err, fill)
        err = np.maximum(err, min_error)
        new = np.where(present, err ** (-beta), 0.0)
        new /= new.sum()
        change = float(np.max(np.abs(new - r)))
        r = new
        if change < tol:
            break
    rw = r[panel.judge]
    den = np.bincount(panel.item, rw, minlength=panel.n_items)
    mu = np.bincount(panel.item, rw * z, minlength=panel.n_items) / np.where(den > 0, den, np.nan)
    return r, mu, iteration


def gaussian_log_predictive(mu: np.ndarray, sigma: float, n_classes: int, predictive: str = "discrete") -> np.ndarray:
    """Log P(c | mu) for c in 0..K-1, shape (len(mu), K)."""
    if predictive == "discrete":
        # class-major (K x N): the normalisation over the K labels is element-wise between rows
        logits = (np.arange(n_classes, dtype=float)[:, None] - np.asarray(mu, dtype=float)[None, :]) ** 2
        logits /= -(2.0 * sigma**2)
        top = np.maximum.reduce(logits, axis=0)
        logits -= np.log(np.add.reduce(np.exp(logits - top), axis=0)) + top   # logsumexp's own steps
        return np.ascontiguousarray(logits.T)
    if predictive == "binned":
        return _bin_log_mass(np.arange(n_classes, dtype=float)[None, :], np.asarray(mu, dtype=float)[:, None],
                             sigma, n_classes)
    raise ValueError(f"predictive must be 'discrete' or 'binned', got {predictive!r}")


def gaussian_label_log_predictive(mu: np.ndarray, sigma: float, n_classes: int, labels: np.ndarray,
                                  predictive: str = "discrete") -> np.ndarray:
    """Log P(labels[e] | mu[e]), shape (len(mu),): :func:`gaussian_log_predictive` at one label per entry.

    The binned predictive needs only the label's own bin, O(N) rather than O(N K); the same numbers.
    """
    if predictive == "binned":
        return _bin_log_mass(np.asarray(labels, dtype=float), np.asarray(mu, dtype=float), sigma, n_classes)
    return gaussian_log_predictive(mu, sigma, n_classes, predictive)[np.arange(len(labels)), labels]


def _bin_log_mass(c: np.ndarray, mu: np.ndarray, sigma: float, n_classes: int) -> np.ndarray:
    """Log of the N(mu, sigma^2) mass of label c's bin [c - 1/2, c + 1/2], the end bins open (broadcast)."""
    upper = np.where(c == n_classes - 1, np.inf, (c + 0.5 - mu) / sigma)
    lower = np.where(c == 0, -np.inf, (c - 0.5 - mu) / sigma)
    # the bin's Gaussian mass, from whichever tail keeps precision
    p = np.where(lower > 0, ndtr(-lower) - ndtr(-upper), ndtr(upper) - ndtr(lower))
    return np.log(np.maximum(p, 1e-300))


class M4(GradedMethod):
    """M4: Yu et al.'s weighted mean mu_dp and a Gaussian predictive of width sigma."""

    name = "m4"
    single_parameter = "sigma"
    single_parameter_bounds = (0.25, 6.0)
    single_parameter_scale = "log"
    _parameter_constraints = {
        "beta": [Interval(Real, 0, None)],
        "predictive": [Options(("discrete", "binned"))],
        "inner_folds": [Interval(Integral, 2, None), None],
    }

    def __init__(self, beta: float = 0.5, predictive: str = "binned", inner_folds: int | None = None):
        self.beta, self.predictive, self.inner_folds = beta, predictive, inner_folds

    def _held_out_means(self, train: GradedPanel) -> tuple[np.ndarray, np.ndarray]:
        """mu^(-g) at every entry of every inner fold g (NaN where no one else labelled the item)."""
        mu_at = np.full(train.n_entries, np.nan)
        cache = self._subpanel_cache()
        for mask, rest in inner_folds(train, self.inner_folds):
            mu, converged = cache.get(rest, ("yu_mu", self.beta),
                                      lambda rest=rest: self._fixed_point(rest))  # type: ignore[misc]  # mypy#15459
            self.record_fit(converged)
            mu_at[mask] = mu[train.item[mask]]
        return mu_at, np.isfinite(mu_at)

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Choose ``sigma`` by bounded Brent on the cross-induction log-probability of the held-out means."""
        from scipy.optimize import minimize_scalar  # imported when used (scipy's optimisers load slowly)

        mu_at, has = self._held_out_means(train)
        prior = prior_without_own(train)[np.arange(train.n_entries), train.label]
        fixed = float(log_probability(prior[~has]).sum())
        mu, z = mu_at[has], train.label[has]

        def negative(log_sigma: float) -> float:
            logp = gaussian_label_log_predictive(mu, float(np.exp(log_sigma)), train.n_classes, z, self.predictive)
            return -(fixed + float(logp.sum()))

        res = minimize_scalar(negative, bounds=tuple(np.log(SIGMA_BOUNDS)), method="bounded", options={"xatol": 1e-6})
        return {"sigma": float(np.exp(res.x))}

    def _fixed_point(self, panel: GradedPanel) -> tuple[np.ndarray, bool]:
        """Yu's mu on ``panel``, and whether the fixed point converged within its cap."""
        _, mu, n_iter = yu_weights(panel, self.beta, max_iter=YU_MAX_ITER)
        return mu, n_iter < YU_MAX_ITER

    def prepare(self, train: GradedPanel) -> Any:
        """Return Yu's mu on ``train``, the background prior and K (none depends on ``sigma``)."""
        mu, converged = self._fixed_point(train)
        self.record_fit(converged)
        return mu, background_prior(train), train.n_classes

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """Return (n_items x K) the Gaussian predictive around mu; the prior where no judge labelled the item."""
        mu, prior, k = state
        has = np.isfinite(mu)
        out = np.tile(prior, (len(mu), 1))
        out[has] = np.exp(gaussian_log_predictive(mu[has], float(params["sigma"]), k, self.predictive))
        return out


class M4Learned(GradedMethod):
    """M4 with judge weights and sigma learned by maximising the cross-induction objective."""

    name = "m4_learned"

    _parameter_constraints = {"max_iter": [Interval(Integral, 1, None)]}

    def __init__(self, max_iter: int = MAX_ITER):
        self.max_iter = max_iter

    @staticmethod
    def objective(x: np.ndarray, train: GradedPanel, prior_t: np.ndarray, n_others: np.ndarray) -> tuple[float,
                                                                                                         np.ndarray]:
        """Minus the leave-one-judge-out log-probability and its gradient in (theta, log sigma)."""
        J, k = train.n_judges, train.n_classes
        theta, log_sigma = x[:J], x[J]
        sigma2 = np.exp(2 * log_sigma)
        z = train.label.astype(float)
        r = np.exp(theta)[train.judge]
        s1 = np.bincount(train.item, r * z, minlength=train.n_items)
        s0 = np.bincount(train.item, r, minlength=train.n_items)
        has = n_others > 0
        den = np.where(has, s0[train.item] - r, 1.0)
        mu = np.where(has, (s1[train.item] - r * z) / den, 0.0)
        # class-major (K x E): the sums over the K labels are element-wise between K rows
        c = np.arange(k, dtype=float)[:, None]
        logits = (c - mu) ** 2
        logits *= -1.0 / (2 * sigma2)
        logits -= np.maximum.reduce(logits, axis=0)
        p_all = np.exp(logits)
        norm = np.add.reduce(p_all, axis=0)
        p_all /= norm
        logp_all = logits.ravel()[train.label * len(z) + np.arange(len(z))] - np.log(norm)
        logp = np.where(has, logp_all, log_probability(prior_t))
        f = -float(logp.sum()) + 0.5 * THETA_RIDGE * float(theta @ theta)
        mean_c = c[:, 0] @ p_all
        g = np.where(has, (z - mean_c) / sigma2, 0.0)              # d log p / d mu
        second = (c[:, 0] ** 2) @ p_all - 2 * mu * mean_c + mu**2  # E_P[(c - mu)^2]
        d_log_sigma = np.where(has, ((z - mu) ** 2 - second) / sigma2, 0.0)
        h = g / den
        H = np.bincount(train.item, h, minlength=train.n_items)
        HM = np.bincount(train.item, h * mu, minlength=train.n_items)
        d_r = z * (H[train.item] - h) - (HM[train.item] - h * mu)
        grad_theta = np.bincount(train.judge, r * d_r, minlength=J)
        return f, -np.concatenate([grad_theta - THETA_RIDGE * theta, [d_log_sigma.sum()]])

    @staticmethod
    def scale(train: GradedPanel, n_others: np.ndarray) -> np.ndarray:
        """Return the fit's diagonal preconditioner (as M2's, :meth:`manyjudges.graded.votes.Votes.scale`).

        1 / sqrt(1 + the predictions judge j's labels enter) for theta_j, 1 / sqrt(1 + labels) for log sigma.
        """
        entering = np.bincount(train.judge, n_others, minlength=train.n_judges)
        return 1.0 / np.sqrt(1.0 + np.r_[entering, train.n_entries])

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Learn the judge weights theta and sigma by L-BFGS-B on the cross-induction objective."""
        J = train.n_judges
        prior_t = prior_without_own(train)[np.arange(train.n_entries), train.label]
        n_others = np.bincount(train.item, minlength=train.n_items)[train.item] - 1
        x0 = np.zeros(J + 1)
        bounds = [(-THETA_BOUND, THETA_BOUND)] * J + [tuple(np.log(SIGMA_BOUNDS))]
        fit = lbfgsb_fit(lambda x: self.objective(x, train, prior_t, n_others), x0, bounds, maxiter=self.max_iter,
                         maxfun=4 * self.max_iter, scale=self.scale(train, n_others), **LBFGS_OPTIONS)
        self.record_fit(fit.converged)
        return {"theta": fit.x[:J], "sigma": float(np.exp(fit.x[J]))}

    def prepare(self, train: GradedPanel) -> Any:
        """Return the panel itself (every step depends on the parameters)."""
        return train

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """Return (n_items x K) the Gaussian predictive at the theta-weighted mean; the prior on unlabelled items."""
        train = state
        r = np.exp(np.asarray(params["theta"]))[train.judge]
        s0 = np.bincount(train.item, r, minlength=train.n_items)
        s1 = np.bincount(train.item, r * train.label, minlength=train.n_items)
        has = s0 > 0
        prior = background_prior(train)
        out = np.tile(prior, (train.n_items, 1))
        out[has] = np.exp(gaussian_log_predictive(s1[has] / s0[has], float(params["sigma"]), train.n_classes))
        return out
