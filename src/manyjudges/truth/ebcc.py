"""EBCC: enhanced Bayesian classifier combination, a mixture of worker confusions within each class.

Li, Y., Rubinstein, B. I. P. and Cohn, T. (2019). Exploiting worker correlation for label
aggregation in crowdsourcing. Proceedings of the 36th International Conference on Machine
Learning (ICML), PMLR 97, 3886-3895.

The model (the paper's generative process; with M = 1 it is the Bayesian classifier
combination of Kim, H.-C. and Ghahramani, Z. (2012), AISTATS, PMLR 22, 619-627). Item i has
a true class z_i in 0..K-1 and, within it, a subtype g_i in 0..M-1; worker j's label y_ij
depends on both:

    tau        ~ Dirichlet(alpha)                      class proportions
    pi_k       ~ Dirichlet(a_pi / M, ..., a_pi / M)    subtype proportions within class k
    v_jkm      ~ Dirichlet(beta_k),  beta_kl = a_v if l = k else b_v
                                                        worker j's confusion row for (class k, subtype m)
    z_i ~ Cat(tau),  g_i | z_i = k ~ Cat(pi_k),  y_ij | z_i = k, g_i = m ~ Cat(v_jkm)

Workers who share a subtype's confusion pattern on the same items are correlated given the
class, which a single confusion per worker cannot express; ``a_v > b_v`` puts the prior mass
on the diagonal (a worker more likely right than wrong).

Mean-field variational inference, q = q(tau) q(pi) q(v) prod_i q(z_i, g_i), by coordinate
ascent; with r[i, k, m] = q(z_i = k, g_i = m):

    global step   nu_k      = alpha_k + sum_i sum_m r[i, k, m]              q(tau) = Dir(nu)
                  eta_km    = a_pi / M + sum_i r[i, k, m]                   q(pi_k) = Dir(eta_k)
                  mu_jkml   = beta_kl + sum_{i: y_ij = l} r[i, k, m]        q(v_jkm) = Dir(mu_jkm)
    local step    log r[i, k, m] = E log tau_k + E log pi_km + sum_{j labelled i} E log v_jkm[y_ij] - log Z_i

with E log theta_c = digamma(a_c) - digamma(sum_c a_c) under Dir(a). The evidence lower bound
of q after a local step (r is then the softmax of the bracket S[i, k, m] above) is

    ELBO = sum_i log Z_i + sum over the Dirichlet factors f of
           [log B(a_f) - log B(prior_f) - sum_c (a_fc - prior_fc) E log theta_fc],

B the multivariate Beta function (the expected log-likelihood, the priors and the entropies
collected: sum_i log Z_i = E_q log p(y, z, g | theta) + H(q(z, g))). Each step maximises the
ELBO over one factor, so it never decreases (tested). The authors' reference code reports the
ELBO without the constant - sum_f log B(prior_f) (the same for every start), so its values are
this one plus sum_f log B(prior_f).

Defaults and protocol (the authors' published runs, whose reference implementation and
notebook fix what the paper leaves open): M = 10 subtypes, a_pi = 0.1, a_v = 4, b_v = 1,
the empirical class prior alpha_k = sum_i (share of item i's labels that say k), the start
r[i, k, :] = (share of item i's labels that say k) * (a Dirichlet(1, ..., 1) draw), at most
500 iterations, stopping when no class posterior q(z_i = k) moved by more than 1e-3; 40
random starts, keeping the one with the largest ELBO. A class no label uses gets alpha_k = 1
under the empirical prior (its total would be 0, an improper Dirichlet).

Fitted quantities: ``proba_`` is q(z_i = k) = sum_m r[i, k, m]; ``confusions_`` is the
expected confusion marginalised over subtypes,

    C[j, k, l] = sum_m E[pi_km] E[v_jkml] = sum_m (eta_km / sum_m' eta_km') (mu_jkml / sum_l' mu_jkml');

``skills_`` is each worker's expected accuracy under it, sum_k E[tau_k] C[j, k, k] with
E[tau_k] = nu_k / sum_k' nu_k'. A repeated (item, worker) label (``duplicates="keep"``) counts
once per row.

Gold items (``fit(labels, gold=...)``, item i of known class z*_i): q(z_i = k) is 0 for k != z*_i in
every start and after every local step, r[i, z*_i, m] = exp S[i, z*_i, m] / sum_m' exp S[i, z*_i, m']
(the subtype is still inferred), so the global step learns the workers' confusions from them too.
Their term of the ELBO is log sum_m exp S[i, z*_i, m] instead of log Z_i (the bound of the constrained
q, which every step still never decreases; the restarts are compared on it). A gold item shares a
pattern (below) only with gold items of its class. The empirical class prior stays the soft-vote total.

Cost. Both steps are products of the sparse item x (worker, label) count matrix (built once per
fit) with an array of one column per active subtype column (k, m): O(labels x active columns)
per iteration, no loop over items or labels. Two savings that change nothing beyond rounding:
(1) items with identical labels (the same workers saying the same classes) have the same r after
the first local step, so from the second iteration on one row per distinct pattern is computed
and weighted by its item count in the sums over items; (2) a column (k, m) whose total sum_i
r[i, k, m] is at most tau = 1e-20 min(1, a_v, b_v)^2 is inactive: its counts are each below half
a unit in the last place of mu_jkml >= min(a_v, b_v), so its mu is beta_k exactly in float64,
its E log v_jkml is c_kl = psi(beta_kl) - psi(sum_l beta_kl) for every worker, and its score is
E log tau_k + E log pi_km + A[i, k] with A[i, k] = sum_l (item i's labels l) c_kl: computed in
full every iteration from the (items x K) table A, not from the labels, and active again if its
total passes tau. The sparse prior (a_pi / M = 0.01) empties most subtypes: in the runs measured
(trec, sentiment, a simulated million labels) at most 6 of the 20 columns were left after 15-85
iterations, 2-5 at the end. Every S[i, k, m] is <= 0 (a sum of expected logs of probabilities),
so exp(S) needs no per-item shift; an item whose normaliser falls below e^-600 has its row
shifted by its largest score. The results are those of the full computation up to floating-point
rounding (tested against a direct loop). The starts run one after another without their ELBO
trace; the kept start is run again with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import digamma, gammaln

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.truth.base import TruthEstimator, TruthFit, check_number
from manyjudges.truth.ebcc_dirichlet import dirichlet_terms, expected_log, log_beta
from manyjudges.truth.ebcc_layout import EBCCLayout, ebcc_layout, ebcc_start, soft_vote

__all__ = ["EBCC", "EBCCLayout", "EBCCRun", "ebcc_layout", "ebcc_mean_field", "ebcc_start", "soft_vote"]


@dataclass(frozen=True)
class EBCCRun:
    """One run of the mean-field iterations from one start."""

    #: (n_items, K, M) r[i, k, m] = q(z_i = k, g_i = m)
    resp: np.ndarray
    #: (K,) q(tau) = Dirichlet(nu)
    nu: np.ndarray
    #: (K, M) q(pi_k) = Dirichlet(eta[k])
    eta: np.ndarray
    #: (n_workers, K, M, K) q(v_jkm) = Dirichlet(mu[j, k, m])
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
        """(n_workers, K, K) sum_m E[pi_km] E[v_jkml] (module docstring)."""
        weight = self.eta / self.eta.sum(axis=1, keepdims=True)
        expected_v = self.mu / self.mu.sum(axis=3, keepdims=True)
        return np.einsum("km,jkml->jkl", weight, expected_v)

    def skills(self) -> np.ndarray:
        """(n_workers,) sum_k E[tau_k] C[j, k, k]: the expected accuracy under the confusions."""
        conf = self.confusions()
        k = conf.shape[1]
        return conf[:, np.arange(k), np.arange(k)] @ (self.nu / self.nu.sum())


#: Sum_i r[i, k, m] below which subtype column (k, m) counts as inactive, times min(1, a_v, b_v)^2
INACTIVE = 1e-20
#: log-space floor of an item's normaliser past which its scores are shifted by their largest (e^-600)
NORMALISER_FLOOR = np.exp(-600.0)


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
    psi(sum_l beta_kl) = c_kl for every worker: its score is E log tau_k + E log pi_km + A[i, k],
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
    """The run's constants: beta, the priors' log B, and A[p, k] = sum_l counts[p, l] c_kl with
    c_kl = psi(beta_kl) - psi(sum_l beta_kl) (E log v of an inactive column, the same for every worker)."""
    beta = np.full((k, k), float(b_v))
    np.fill_diagonal(beta, float(a_v))
    eta0 = float(a_pi) / m
    alpha = np.asarray(alpha, dtype=float)
    a_inactive = np.einsum("pl,kl->pk", lay.class_counts, expected_log(beta, 1))  # per pattern
    if lay.gold_patterns is not None:  # a gold pattern's closed classes score -inf: their r is 0
        a_inactive += lay.class_mask
    return _Fixed(beta, np.repeat(np.arange(k), m), eta0, alpha, log_beta(beta, axis=1),
                  k * float(log_beta(np.full(m, eta0), axis=0)), float(log_beta(alpha, axis=0)), a_inactive,
                  np.exp(a_inactive), INACTIVE * min(1.0, float(a_v), float(b_v)) ** 2)


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
        """(r (n_patterns, K M), mu (n_workers, K, M, K)) of every column: the inactive ones' in closed form
        (mu = beta_k)."""
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
    """The global factors from r: with n_c = sum_i r[i, c] and N_jlc = sum_i r[i, c] [i's label from j is l],

        eta[k, m] = a_pi / M + n_{km},    nu[k] = alpha_k + sum_m n_{km},    mu[j, c, l] = beta[k(c), l] + N_jlc

    and E log of each Dirichlet, psi(x) - psi(sum). Columns whose sum falls to tau become inactive (dropped from
    ``columns``); their expected logs are the closed-form c_kl of the local step."""
    w, wk = lay.n_workers, lay.n_workers * lay.n_classes
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
    """r from the global factors: S[p, c] = prior_c + sum over p's labels of E log v, r[p, c] = exp S[p, c] / Z_p
    with Z_p = sum over every column (the inactive ones' exp(prior_c + A[p, k(c)])). Returns (q(z_p = k)
    (n_patterns, K), Z_p, each pattern's shift or None), and leaves r, 1 / Z and the inactive sums in ``columns``.

    Every S <= 0, so exp(S) needs no shift unless a pattern's normaliser falls below NORMALISER_FLOOR
    (:func:`_shift_low_rows`)."""
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
    low = np.flatnonzero(total < NORMALISER_FLOOR)
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
    """Recompute the ``low`` patterns' exp S (``joint``) and class totals shifted by their largest score, in
    place, and their exp(A) in ``columns.shifted_exp_a``; returns each pattern's shift (0 for the others)."""
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
    """The ELBO after a local step: sum_p n_p (log Z_p + shift_p), plus the Dirichlet terms of q(tau) and q(pi),
    plus those of q(v) (log B(mu) - log B(beta) - sum (mu - beta) E log v, the inactive columns adding 0)."""
    mult, w = lay.multiplicity, lay.n_workers
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
    """(n, K): sum_m of exp(S) over class k's active columns (``joint[:, bounds[k]:bounds[k+1]]``) plus
    ``inactive[:, k]``, the inactive columns' share. Single-threaded on purpose (no BLAS call: a
    threaded one stalls when the other cores are busy): a few columns added one by one, more by einsum."""
    out = inactive.copy()
    for c in range(len(bounds) - 1):
        lo, hi = bounds[c], bounds[c + 1]
        if hi - lo > 4:
            out[:, c] += np.einsum("ij->i", joint[:, lo:hi])
        else:
            for col in range(lo, hi):
                out[:, c] += joint[:, col]
    return out


class EBCC(TruthEstimator):
    """Enhanced Bayesian classifier combination (Li, Rubinstein and Cohn, ICML 2019), mean-field VI.

    Parameters
    ----------
    n_subtypes : M, the subtypes (mixture components) within each class (M = 1: Bayesian
        classifier combination).
    n_restarts : random starts; the one with the largest ELBO is kept.
    max_iter, tol : per start, at most ``max_iter`` iterations, stopping when no class
        posterior moved by more than ``tol``.
    alpha : the class-proportion prior, ``"empirical"`` (alpha_k = the soft-vote total of
        class k, the authors' runs) or a number > 0 (a symmetric Dirichlet(alpha)).
    a_pi : the subtype-proportion prior's total concentration (Dirichlet(a_pi / M each)).
    a_v, b_v : each confusion row's Dirichlet prior, a_v on the diagonal, b_v off it.
    random_state : seed of the numpy Generator drawing the starts.

    After ``fit``: ``proba_``, ``labels_``, ``confusions_`` (marginalised over subtypes),
    ``skills_`` (expected accuracy), ``n_iter_`` (of the kept start), ``elbo_`` (its ELBO),
    ``elbo_trace_`` (its ELBO per iteration), ``restart_elbos_`` (every start's final ELBO),
    ``converged_``. Gold items (``fit(labels, gold=...)``) keep their known class in every start and
    local step, so the workers' confusions are learned from them too.
    """

    gold_use = "fit"

    def __init__(self, n_subtypes: int = 10, n_restarts: int = 40, max_iter: int = 500, tol: float = 1e-3,
                 alpha: float | str = "empirical", a_pi: float = 0.1, a_v: float = 4.0, b_v: float = 1.0,
                 random_state: int | None = 0, calibrate: str | None = None):
        self.n_subtypes, self.n_restarts, self.max_iter, self.tol = n_subtypes, n_restarts, max_iter, tol
        self.alpha, self.a_pi, self.a_v, self.b_v, self.random_state = alpha, a_pi, a_v, b_v, random_state
        self.calibrate = calibrate

    def _check_params(self) -> None:
        super()._check_params()
        check_number("n_subtypes", self.n_subtypes, low=1, integer=True)
        check_number("n_restarts", self.n_restarts, low=1, integer=True)
        check_number("max_iter", self.max_iter, low=1, integer=True)
        check_number("tol", self.tol, low=0)
        if not (isinstance(self.alpha, str) and self.alpha == "empirical"):
            if isinstance(self.alpha, str):
                raise ValueError(f"alpha must be 'empirical' or a number > 0, got {self.alpha!r}")
            check_number("alpha", self.alpha, low=0, low_open=True)
        check_number("a_pi", self.a_pi, low=0, low_open=True)
        check_number("a_v", self.a_v, low=0, low_open=True)
        check_number("b_v", self.b_v, low=0, low_open=True)
        if self.random_state is not None:
            check_number("random_state", self.random_state, low=0, integer=True)

    def class_prior(self, data: CrowdLabels) -> np.ndarray:
        """(K,) alpha: the soft-vote totals (1 for a class no label uses) or the constant."""
        if isinstance(self.alpha, str):
            total = soft_vote(data).sum(axis=0)
            return np.where(total > 0, total, 1.0)
        return np.full(data.n_classes, float(self.alpha))

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        rng = np.random.default_rng(self.random_state)
        alpha = self.class_prior(data)
        layout, subtypes = ebcc_layout(data, gold), int(self.n_subtypes)
        params: dict[str, Any] = {"a_pi": float(self.a_pi), "a_v": float(self.a_v), "b_v": float(self.b_v),
                                  "max_iter": int(self.max_iter), "tol": float(self.tol)}
        best_state, best_elbo = None, -np.inf
        elbos = []
        for _ in range(int(self.n_restarts)):
            state = rng.bit_generator.state
            run = ebcc_mean_field(layout, ebcc_start(data, subtypes, rng, gold), alpha, trace=False, **params)
            elbos.append(run.elbo)
            if best_state is None or run.elbo > best_elbo:
                best_state, best_elbo = state, run.elbo
        # the kept start again, with its ELBO after every iteration (the same arithmetic, so the same run)
        again = np.random.default_rng()
        assert best_state is not None  # n_restarts >= 1 (_check_params)
        again.bit_generator.state = best_state
        best = ebcc_mean_field(layout, ebcc_start(data, subtypes, again, gold), alpha, trace=True, **params)
        self.elbo_ = best.elbo
        self.elbo_trace_ = best.elbo_trace
        self.restart_elbos_ = np.asarray(elbos)
        self.converged_ = best.converged
        return TruthFit(proba=best.proba, skills=best.skills(), confusions=best.confusions(), n_iter=best.n_iter)
