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
E[tau_k] = nu_k / sum_k' nu_k'. Both steps are products of the sparse (worker, label) x item
count matrix with a (K M)-column array, O(labels x K x M) per iteration, no loop over items
or labels. A repeated (item, worker) label (``duplicates="keep"``) counts once per row.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import digamma, gammaln

from manyjudges.coded_labels import CrowdLabels
from manyjudges.truth.base import TruthEstimator, TruthFit, check_number, posteriors_from_log_joint

__all__ = ["EBCC", "EBCCRun", "ebcc_mean_field", "ebcc_start", "soft_vote"]


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


def _log_beta(a: np.ndarray, axis: int) -> np.ndarray:
    """log B(a) = sum_c log Gamma(a_c) - log Gamma(sum_c a_c), the components along ``axis``."""
    return gammaln(a).sum(axis=axis) - gammaln(a.sum(axis=axis))


def _expected_log(a: np.ndarray, axis: int) -> np.ndarray:
    """E log theta under Dirichlet(a), the components along ``axis``."""
    return digamma(a) - digamma(a.sum(axis=axis, keepdims=True))


def _dirichlet_terms(a: np.ndarray, prior: np.ndarray, expected_log: np.ndarray, log_b0: float, axis: int) -> float:
    """sum over the factors of log B(a) - log B(prior) - (a - prior) . E log theta; ``log_b0`` = sum of log B(prior)."""
    return float(_log_beta(a, axis).sum() - log_b0 - np.sum((a - prior) * expected_log))


def soft_vote(data: CrowdLabels) -> np.ndarray:
    """(n_items, K) the share of each item's labels that say each class."""
    counts = data.class_counts.astype(float)
    return counts / counts.sum(axis=1, keepdims=True)


def ebcc_start(data: CrowdLabels, n_subtypes: int, rng: np.random.Generator) -> np.ndarray:
    """A random start r[i, k, :] = (share of item i's labels saying k) * Dirichlet(1, ..., 1) draw."""
    draws = rng.dirichlet(np.ones(n_subtypes), size=(data.n_items, data.n_classes))
    return draws * soft_vote(data)[:, :, None]


def ebcc_mean_field(data: CrowdLabels, start: np.ndarray, alpha: np.ndarray, a_pi: float = 0.1,
                    a_v: float = 4.0, b_v: float = 1.0, max_iter: int = 500, tol: float = 1e-3) -> EBCCRun:
    """Coordinate-ascent mean-field inference for EBCC from ``start`` (module docstring).

    ``start``: (n_items, K, M) r, each item's entries summing to 1; ``alpha``: (K,) the class
    prior. Each iteration is the global step from r, then the local step; it stops after the
    first iteration that moves no q(z_i = k) by more than ``tol``, or after ``max_iter``.
    """
    n, k, m = start.shape
    w = data.n_workers
    by_label = sparse.csr_matrix((np.ones(data.n_labels), (data.worker * k + data.label, data.item)),
                                 shape=(w * k, n))
    # mu and its prior held as [l, j, k, m] (the Dirichlet components first: their sums run across rows)
    beta = np.full((k, k), float(b_v))
    np.fill_diagonal(beta, float(a_v))
    beta_full = np.broadcast_to(beta.T[:, None, :, None], (k, w, k, m))
    eta0 = np.full((k, m), float(a_pi) / m)
    alpha = np.asarray(alpha, dtype=float)
    log_b0_v = w * m * float(_log_beta(beta, axis=1).sum())
    log_b0_pi = k * float(_log_beta(eta0[0], axis=0))
    log_b0_tau = float(_log_beta(alpha, axis=0))

    # r transposed, resp[(k, m), i]: every reduction over (k, m) is then across rows (fast in numpy)
    resp = np.ascontiguousarray(np.asarray(start, dtype=float).reshape(n, k * m).T)
    proba = resp.reshape(k, m, n).sum(axis=1)
    trace = []
    converged = False
    it = 0
    for it in range(1, int(max_iter) + 1):  # noqa: B007 (the count is read after the loop)
        # global step: counts[j, l, (k, m)] = sum over j's labels equal to l of r[item, k, m]
        counts = (by_label @ resp.T).reshape(w, k, k, m)
        mu = beta_full + counts.transpose(1, 0, 2, 3)
        eta = eta0 + resp.sum(axis=1).reshape(k, m)
        nu = alpha + proba.sum(axis=1)
        log_v, log_pi, log_tau = _expected_log(mu, 0), _expected_log(eta, 1), _expected_log(nu, 0)
        # local step: S[(k, m), i] = E log tau_k + E log pi_km + sum over i's labels of E log v[j, k, m, y]
        score = log_v.transpose(2, 3, 1, 0).reshape(k * m, w * k) @ by_label
        score += (log_tau[:, None] + log_pi).reshape(-1, 1)
        resp, log_z = posteriors_from_log_joint(score)
        elbo = (float(log_z.sum()) + _dirichlet_terms(nu, alpha, log_tau, log_b0_tau, 0)
                + _dirichlet_terms(eta, eta0, log_pi, log_b0_pi, 1)
                + _dirichlet_terms(mu, beta_full, log_v, log_b0_v, 0))
        trace.append(elbo)
        new_proba = resp.reshape(k, m, n).sum(axis=1)
        delta = float(np.max(np.abs(new_proba - proba)))
        proba = new_proba
        if delta <= tol:
            converged = True
            break
    return EBCCRun(np.ascontiguousarray(resp.T).reshape(n, k, m), nu, eta,
                   np.ascontiguousarray(mu.transpose(1, 2, 3, 0)), trace[-1], np.asarray(trace), it, converged)


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
    ``converged_``.
    """

    def __init__(self, n_subtypes: int = 10, n_restarts: int = 40, max_iter: int = 500, tol: float = 1e-3,
                 alpha: float | str = "empirical", a_pi: float = 0.1, a_v: float = 4.0, b_v: float = 1.0,
                 random_state: int | None = 0):
        self.n_subtypes = n_subtypes
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.tol = tol
        self.alpha = alpha
        self.a_pi = a_pi
        self.a_v = a_v
        self.b_v = b_v
        self.random_state = random_state

    def _check_params(self) -> None:
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

    def _fit(self, data: CrowdLabels) -> TruthFit:
        rng = np.random.default_rng(self.random_state)
        alpha = self.class_prior(data)
        best: EBCCRun | None = None
        elbos = []
        for _ in range(int(self.n_restarts)):
            run = ebcc_mean_field(data, ebcc_start(data, int(self.n_subtypes), rng), alpha, a_pi=float(self.a_pi),
                                  a_v=float(self.a_v), b_v=float(self.b_v), max_iter=int(self.max_iter),
                                  tol=float(self.tol))
            elbos.append(run.elbo)
            if best is None or run.elbo > best.elbo:
                best = run
        self.elbo_ = best.elbo
        self.elbo_trace_ = best.elbo_trace
        self.restart_elbos_ = np.asarray(elbos)
        self.converged_ = best.converged
        return TruthFit(proba=best.proba, skills=best.skills(), confusions=best.confusions(), n_iter=best.n_iter)
