"""The mean-field iterations of EBCC: one run from one start, its global and local steps, and its ELBO.

The estimator is :class:`~manyjudges.truth.methods.ebcc.estimator.EBCC`; the model, the updates and their sources
are in that module's docstring. The Dirichlet factors of the bound: log B(a) (:func:`log_beta`), E log theta under
Dirichlet(a) (:func:`expected_log`), and a factor's term of the ELBO (:func:`dirichlet_terms`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, gammaln

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.truth.methods.ebcc.layout import EBCCLayout, ebcc_layout

__all__ = ["EBCCRun", "ebcc_mean_field"]


@dataclass(frozen=True)
class EBCCRun:
    """One run of the mean-field iterations from one start."""

    #: (n_items, K, M) r[i, k, m] = q(z_i = k, g_i = m)
    resp: np.ndarray
    #: (K,) q(tau) = Dirichlet(nu)
    nu: np.ndarray
    #: (K, M) q(pi_k) = Dirichlet(eta[k])
    eta: np.ndarray
    #: (n_judges, K, M, K) q(v_jkm) = Dirichlet(mu[j, k, m])
    mu: np.ndarray
    #: the ELBO after the last iteration (the global factors above, then ``resp`` from them)
    elbo: float
    #: (n_iter,) the ELBO after each iteration
    elbo_trace: np.ndarray
    n_iter: int
    converged: bool

    @property
    def proba(self) -> np.ndarray:
        """(n_items, K) q(z_i = k)."""
        return self.resp.sum(axis=2)

    def confusions(self) -> np.ndarray:
        """(n_judges, K, K) sum_m E[pi_km] E[v_jkml] (module docstring)."""
        weight = self.eta / self.eta.sum(axis=1, keepdims=True)
        expected_v = self.mu / self.mu.sum(axis=3, keepdims=True)
        return np.einsum("km,jkml->jkl", weight, expected_v)

    def skills(self) -> np.ndarray:
        """(n_judges,) sum_k E[tau_k] C[j, k, k]: the expected accuracy under the confusions."""
        conf = self.confusions()
        k = conf.shape[1]
        return conf[:, np.arange(k), np.arange(k)] @ (self.nu / self.nu.sum())


#: Sum_i r[i, k, m] below which subtype column (k, m) counts as inactive, times min(1, a_v, b_v)^2
_INACTIVE = 1e-20
#: log-space floor of an item's normaliser past which its scores are shifted by their largest (e^-600)
_NORMALISER_FLOOR = np.exp(-600.0)


def log_beta(a: np.ndarray, axis: int) -> np.ndarray:
    """Log B(a) = sum_c log Gamma(a_c) - log Gamma(sum_c a_c), the components along ``axis``."""
    return gammaln(a).sum(axis=axis) - gammaln(a.sum(axis=axis))


def expected_log(a: np.ndarray, axis: int) -> np.ndarray:
    """E log theta under Dirichlet(a), the components along ``axis``."""
    return digamma(a) - digamma(a.sum(axis=axis, keepdims=True))


def dirichlet_terms(a: np.ndarray, prior: np.ndarray | float, mean_log: np.ndarray, log_b0: float, axis: int) -> float:
    """Sum over the factors of log B(a) - log B(prior) - (a - prior) . E log theta.

    ``mean_log`` = E log theta under Dirichlet(a) and ``log_b0`` = sum of log B(prior).
    """
    return float(log_beta(a, axis).sum() - log_b0 - np.sum((a - prior) * mean_log))


def ebcc_mean_field(data: CrowdLabels | EBCCLayout, start: np.ndarray, alpha: np.ndarray, a_pi: float = 0.1,
                    a_v: float = 4.0, b_v: float = 1.0, max_iter: int = 500, tol: float = 1e-3,
                    trace: bool = True) -> EBCCRun:
    """Coordinate-ascent mean-field inference for EBCC from ``start`` (module docstring).

    ``start``: (n_items, K, M) r, each item's entries summing to 1 (a gold item's, when ``data`` is a
    layout with gold, all in its known class: :func:`ebcc_start` with ``gold``); ``alpha``: (K,) the class
    prior. Each iteration is the global step from r (:func:`_global_step`), then the local step
    (:func:`_local_step`); it stops after the first iteration that moves no q(z_i = k) by more than
    ``tol``, or after ``max_iter``. ``trace``: compute the ELBO (:func:`_elbo`) after every iteration
    (else after the last only; ``elbo_trace`` then holds that one value).

    Inactive subtype columns (module docstring, "Cost"): a column (k, m) with sum_i r[i, k, m] <=
    tau = INACTIVE min(1, a_v, b_v)^2 adds less than half a unit in the last place to each of its
    counts mu_jkml >= min(a_v, b_v), so its mu is beta_k and its E log v_jkml = psi(beta_kl) -
    psi(sum_l beta_kl) = c_kl for every judge: its score is E log tau_k + E log pi_km + A[i, k],
    A[i, k] = sum_l (item i's labels l) c_kl, with no product over the labels. It is computed so,
    in full, every iteration (and becomes active again if its sum passes tau).
    """
    lay = data if isinstance(data, EBCCLayout) else ebcc_layout(data)
    n_items, k, m = start.shape
    fixed = _fixed_terms(lay, k, m, alpha, a_pi, a_v, b_v)
    columns = _Columns.of(start, len(lay.multiplicity), fixed.exp_a)
    proba = columns.resp.reshape(n_items, k, m).sum(axis=2)
    trace_values = []
    converged = False
    it = 0
    for it in range(1, int(max_iter) + 1):  # noqa: B007 (the count is read after the loop)
        columns.reactivate(fixed)
        step = _global_step(lay, columns, fixed, first=it == 1)
        new_proba, total, shift = _local_step(lay, columns, step, fixed)
        if it == 1 and len(new_proba) < n_items:  # the start's q(z_i) per item against the first step's per pattern
            delta = float(np.max(np.abs(new_proba[lay.pattern] - proba)))
        else:
            delta = float(np.max(np.abs(new_proba - proba)))
        proba = new_proba
        converged = delta <= tol
        if trace or converged or it == int(max_iter):
            trace_values.append(_elbo(lay, fixed, step, total, shift))
        if converged:
            break
    resp, mu = columns.every_column(step, fixed)
    return EBCCRun(resp[lay.pattern].reshape(n_items, k, m), step.nu, step.eta, mu, trace_values[-1],
                   np.asarray(trace_values), it, converged)


@dataclass(frozen=True)
class _Fixed:
    """What does not change across the iterations of one run: the priors and the inactive columns' scores."""

    #: (K, K) the confusion rows' Dirichlet parameters: a_v on the diagonal, b_v off it
    beta: np.ndarray
    #: (K M,) the class k of each subtype column c = k M + m
    col_class: np.ndarray
    #: a_pi / M, each subtype proportion's Dirichlet parameter; (K,) alpha, the class prior
    eta0: float
    alpha: np.ndarray
    #: (K,) log B(beta_k); log B of the subtype and class priors
    log_b_beta: np.ndarray
    log_b0_pi: float
    log_b0_tau: float
    #: (n_patterns, K) A[p, k] = sum_l counts[p, l] c_kl (plus the gold patterns' class mask), and exp(A)
    a_inactive: np.ndarray
    exp_a: np.ndarray
    #: the column sum below which a column is inactive
    tau: float


def _fixed_terms(lay: EBCCLayout, k: int, m: int, alpha: np.ndarray, a_pi: float, a_v: float, b_v: float
                 ) -> _Fixed:
    """Compute the run's constants: beta, the priors' log B, and A[p, k] = sum_l counts[p, l] c_kl.

    Here c_kl = psi(beta_kl) - psi(sum_l beta_kl) (E log v of an inactive column, the same for every judge).
    """
    beta = np.full((k, k), float(b_v))
    np.fill_diagonal(beta, float(a_v))
    eta0 = float(a_pi) / m
    alpha = np.asarray(alpha, dtype=float)
    a_inactive = np.einsum("pl,kl->pk", lay.class_counts, expected_log(beta, 1))  # per pattern
    if lay.gold_patterns is not None:  # a gold pattern's closed classes score -inf: their r is 0
        a_inactive += lay.class_mask
    return _Fixed(beta, np.repeat(np.arange(k), m), eta0, alpha, log_beta(beta, axis=1),
                  k * float(log_beta(np.full(m, eta0), axis=0)), float(log_beta(alpha, axis=0)), a_inactive,
                  np.exp(a_inactive), _INACTIVE * min(1.0, float(a_v), float(b_v)) ** 2)


@dataclass
class _Columns:
    """The state after a local step: the active columns' r and what the inactive columns' r needs."""

    #: the active columns (sorted) and their r, (n_items or n_patterns, n_active)
    active: np.ndarray
    resp: np.ndarray
    #: (K M,) sum_i r[i, c], every column
    col_sum: np.ndarray
    #: (K M,) E log tau_k + E log pi_km of the last global step
    prior: np.ndarray
    #: (n_patterns,) 1 / Z_p of the last local step; (n_patterns, K) exp(A) shifted as its rows were
    inv_total: np.ndarray
    shifted_exp_a: np.ndarray

    @classmethod
    def of(cls, start: np.ndarray, n_patterns: int, exp_a: np.ndarray) -> _Columns:
        """Every column active, r = ``start`` per item."""
        n_items, k, m = start.shape
        resp = np.ascontiguousarray(np.asarray(start, dtype=float).reshape(n_items, k * m))
        return cls(np.arange(k * m), resp, resp.sum(axis=0), np.zeros(k * m), np.ones(n_patterns), exp_a)

    def inactive_resp(self, cols: np.ndarray, col_class: np.ndarray) -> np.ndarray:
        """(n_patterns, len(cols)) the closed-form r[p, c] = exp(A[p, k(c)] + prior_c) / Z_p of inactive columns."""
        return self.shifted_exp_a[:, col_class[cols]] * np.exp(self.prior[cols]) * self.inv_total[:, None]

    def reactivate(self, fixed: _Fixed) -> None:
        """Give the inactive columns whose sum passed tau their r column back (in the sorted column order)."""
        is_active = np.zeros(len(self.col_sum), dtype=bool)
        is_active[self.active] = True
        back = np.flatnonzero((self.col_sum > fixed.tau) & ~is_active)
        if back.size:
            cols = np.union1d(self.active, back)
            full = np.empty((len(self.resp), cols.size))
            full[:, np.searchsorted(cols, self.active)] = self.resp
            full[:, np.searchsorted(cols, back)] = self.inactive_resp(back, fixed.col_class)
            self.active, self.resp = cols, full

    def every_column(self, step: _GlobalStep, fixed: _Fixed) -> tuple[np.ndarray, np.ndarray]:
        """(r (n_patterns, K M), mu (n_judges, K, M, K)) of every column.

        The inactive ones' are in closed form (mu = beta_k).
        """
        w, k, n_active = step.mu.shape
        km = len(self.col_sum)
        resp = np.empty((len(self.resp), km))
        resp[:, self.active] = self.resp
        inactive = np.setdiff1d(np.arange(km), self.active)
        resp[:, inactive] = self.inactive_resp(inactive, fixed.col_class)
        mu = np.broadcast_to(fixed.beta[:, None, :], (w, k, km // k, k)).copy()  # [j, k, m, l]
        mu.reshape(w, km, k)[:, self.active, :] = step.mu.transpose(0, 2, 1)
        return resp, mu


@dataclass(frozen=True)
class _GlobalStep:
    """q(tau), q(pi), q(v) of the active columns, and their expected logs."""

    eta: np.ndarray  # (K, M)
    nu: np.ndarray  # (K,)
    mu: np.ndarray  # (W, K, n_active): mu[j, l, c]
    mu_total: np.ndarray  # (W, n_active)
    #: (W K + 1, n_active): E log v[j, l, c] in row j K + l, the columns' prior E log tau + E log pi in the last
    log_v: np.ndarray
    log_pi: np.ndarray  # (K, M)
    log_tau: np.ndarray  # (K,)
    #: (n_active,) the class k(c) of each active column
    act_class: np.ndarray


def _global_step(lay: EBCCLayout, columns: _Columns, fixed: _Fixed, first: bool) -> _GlobalStep:
    """Update the global factors from r.

    With n_c = sum_i r[i, c] and N_jlc = sum_i r[i, c] [i's label from j is l],

        eta[k, m] = a_pi / M + n_{km},    nu[k] = alpha_k + sum_m n_{km},    mu[j, c, l] = beta[k(c), l] + N_jlc

    and E log of each Dirichlet, psi(x) - psi(sum). Columns whose sum falls to tau become inactive (dropped from
    ``columns``); their expected logs are the closed-form c_kl of the local step.
    """
    w, wk = lay.n_judges, lay.n_judges * lay.n_classes
    k, m = fixed.beta.shape[0], len(fixed.col_class) // fixed.beta.shape[0]
    # (W K + 1, n_active); the last row is sum_i r[i, c]. The start is per item, later r per pattern
    counts = (lay.by_item.T if first else lay.by_pattern_weighted) @ columns.resp
    columns.col_sum[columns.active] = counts[wk]
    keep = columns.col_sum[columns.active] > fixed.tau
    if not keep.all():
        columns.active, counts = columns.active[keep], np.ascontiguousarray(counts[:, keep])
    n_active = columns.active.size
    act_class = fixed.col_class[columns.active]
    eta = fixed.eta0 + columns.col_sum.reshape(k, m)
    nu = fixed.alpha + columns.col_sum.reshape(k, m).sum(axis=1)
    mu = counts[:wk].reshape(w, k, n_active) + fixed.beta[act_class].T
    mu_total = mu.sum(axis=1)
    log_v = np.empty((wk + 1, n_active))
    log_v3 = log_v[:wk].reshape(w, k, n_active)
    digamma(mu, out=log_v3)
    log_v3 -= digamma(mu_total)[:, None, :]
    log_pi, log_tau = expected_log(eta, 1), expected_log(nu, 0)
    columns.prior = (log_tau[:, None] + log_pi).ravel()
    log_v[wk] = columns.prior[columns.active]
    return _GlobalStep(eta, nu, mu, mu_total, log_v, log_pi, log_tau, act_class)


def _local_step(lay: EBCCLayout, columns: _Columns, step: _GlobalStep, fixed: _Fixed
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Compute R from the global factors.

    S[p, c] = prior_c + sum over p's labels of E log v, r[p, c] = exp S[p, c] / Z_p
    with Z_p = sum over every column (the inactive ones' exp(prior_c + A[p, k(c)])). Returns (q(z_p = k)
    (n_patterns, K), Z_p, each pattern's shift or None), and leaves r, 1 / Z and the inactive sums in ``columns``.

    Every S <= 0, so exp(S) needs no shift unless a pattern's normaliser falls below NORMALISER_FLOOR
    (:func:`_shift_low_rows`).
    """
    km, mult, act_class = len(fixed.col_class), lay.multiplicity, step.act_class
    joint = lay.by_pattern @ step.log_v
    if lay.gold_patterns is not None:
        assert lay.class_mask is not None  # ebcc_layout sets it with gold_patterns
        joint[lay.gold_patterns] += lay.class_mask[lay.gold_patterns][:, act_class]
    np.exp(joint, out=joint)
    inactive = np.ones(km, dtype=bool)
    inactive[columns.active] = False
    inactive_weight = np.bincount(fixed.col_class[inactive], np.exp(columns.prior[inactive]),
                                  minlength=len(fixed.alpha))  # (K,)
    bounds = np.searchsorted(act_class, np.arange(len(fixed.alpha) + 1))
    columns.shifted_exp_a = fixed.exp_a
    shift = None
    class_total = _class_totals(joint, bounds, fixed.exp_a * inactive_weight)
    total = _row_sum(class_total)
    low = np.flatnonzero(total < _NORMALISER_FLOOR)
    if low.size:
        shift = _shift_low_rows(lay, columns, step, fixed, low, joint, class_total, bounds, inactive, inactive_weight)
        total = _row_sum(class_total)
    columns.inv_total = 1.0 / total
    joint *= columns.inv_total[:, None]
    columns.resp = joint
    # sum_i r[i, c] of the inactive columns (the active ones come with the next counts)
    columns.col_sum[inactive] = (np.exp(columns.prior[inactive])
                                 * np.einsum("p,pk->k", mult * columns.inv_total,
                                             columns.shifted_exp_a)[fixed.col_class[inactive]])
    return class_total * columns.inv_total[:, None], total, shift


def _shift_low_rows(lay: EBCCLayout, columns: _Columns, step: _GlobalStep, fixed: _Fixed, low: np.ndarray,
                    joint: np.ndarray, class_total: np.ndarray, bounds: np.ndarray, inactive: np.ndarray,
                    inactive_weight: np.ndarray) -> np.ndarray:
    """Recompute the ``low`` patterns' exp S (``joint``) and class totals shifted by their largest score.

    This is done in place, and their exp(A) in ``columns.shifted_exp_a``; returns each pattern's shift (0 for
    the others).
    """
    shift = np.zeros(len(joint))
    score = lay.by_pattern[low] @ step.log_v
    if lay.gold_patterns is not None:
        assert lay.class_mask is not None  # ebcc_layout sets it with gold_patterns
        score += lay.class_mask[low][:, step.act_class]
    inactive_score = columns.prior[None, inactive] + fixed.a_inactive[low][:, fixed.col_class[inactive]]
    top = np.maximum(score.max(axis=1), inactive_score.max(axis=1, initial=-np.inf))
    shift[low] = top
    joint[low] = np.exp(score - top[:, None])
    columns.shifted_exp_a = fixed.exp_a.copy()
    columns.shifted_exp_a[low] = np.exp(fixed.a_inactive[low] - top[:, None])
    class_total[low] = _class_totals(joint[low], bounds, columns.shifted_exp_a[low] * inactive_weight)
    return shift


def _elbo(lay: EBCCLayout, fixed: _Fixed, step: _GlobalStep, total: np.ndarray, shift: np.ndarray | None) -> float:
    """Compute the ELBO after a local step.

    It is sum_p n_p (log Z_p + shift_p), plus the Dirichlet terms of q(tau) and q(pi), plus those of q(v)
    (log B(mu) - log B(beta) - sum (mu - beta) E log v, the inactive columns adding 0).
    """
    mult, w = lay.multiplicity, lay.n_judges
    wk = w * lay.n_classes
    act_class = step.act_class
    log_z = float(np.sum(mult * np.log(total))) + (float(np.sum(mult * shift)) if shift is not None else 0.0)
    log_v3 = step.log_v[:wk].reshape(step.mu.shape)
    log_b_mu = float(gammaln(step.mu).sum() - gammaln(step.mu_total).sum())
    mu_terms = (log_b_mu - w * float(fixed.log_b_beta[act_class].sum())
                - float(np.sum((step.mu - fixed.beta[act_class].T) * log_v3)))
    return (log_z + dirichlet_terms(step.nu, fixed.alpha, step.log_tau, fixed.log_b0_tau, 0)
            + dirichlet_terms(step.eta, fixed.eta0, step.log_pi, fixed.log_b0_pi, 1) + mu_terms)


def _row_sum(a: np.ndarray) -> np.ndarray:
    """(n,) a[:, 0] + a[:, 1] + ..., column by column (numpy sums a few adjacent values per row slowly)."""
    out = a[:, 0].copy()
    for c in range(1, a.shape[1]):
        out += a[:, c]
    return out


def _class_totals(joint: np.ndarray, bounds: np.ndarray, inactive: np.ndarray) -> np.ndarray:
    """(n, K): sum_m of exp(S) over class k's active columns, plus the inactive columns' share.

    The active columns are ``joint[:, bounds[k]:bounds[k+1]]``, the inactive share ``inactive[:, k]``.
    Single-threaded on purpose (no BLAS call: a
    threaded one stalls when the other cores are busy): a few columns added one by one, more by einsum.
    """
    out = inactive.copy()
    for c in range(len(bounds) - 1):
        lo, hi = bounds[c], bounds[c + 1]
        if hi - lo > 4:
            out[:, c] += np.einsum("ij->i", joint[:, lo:hi])
        else:
            for col in range(lo, hi):
                out[:, c] += joint[:, col]
    return out
