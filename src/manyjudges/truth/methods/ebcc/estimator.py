"""EBCC: enhanced Bayesian classifier combination, a mixture of judge confusions within each class.

Li, Y., Rubinstein, B. I. P. and Cohn, T. (2019). Exploiting worker correlation for label
aggregation in crowdsourcing. Proceedings of the 36th International Conference on Machine
Learning (ICML), PMLR 97, 3886-3895.

The model (the paper's generative process; with M = 1 it is the Bayesian classifier
combination of Kim, H.-C. and Ghahramani, Z. (2012), AISTATS, PMLR 22, 619-627). Item i has
a true class z_i in 0..K-1 and, within it, a subtype g_i in 0..M-1; judge j's label y_ij
depends on both:

    tau        ~ Dirichlet(alpha)                      class proportions
    pi_k       ~ Dirichlet(a_pi / M, ..., a_pi / M)    subtype proportions within class k
    v_jkm      ~ Dirichlet(beta_k),  beta_kl = a_v if l = k else b_v
                                                        judge j's confusion row for (class k, subtype m)
    z_i ~ Cat(tau),  g_i | z_i = k ~ Cat(pi_k),  y_ij | z_i = k, g_i = m ~ Cat(v_jkm)

Judges who share a subtype's confusion pattern on the same items are correlated given the
class, which a single confusion per judge cannot express; ``a_v > b_v`` puts the prior mass
on the diagonal (a judge more likely right than wrong).

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

``skills_`` is each judge's expected accuracy under it, sum_k E[tau_k] C[j, k, k] with
E[tau_k] = nu_k / sum_k' nu_k'. A repeated (item, judge) label (``duplicates="keep"``) counts
once per row.

Gold items (``fit(labels, gold=...)``, item i of known class z*_i): q(z_i = k) is 0 for k != z*_i in
every start and after every local step, r[i, z*_i, m] = exp S[i, z*_i, m] / sum_m' exp S[i, z*_i, m']
(the subtype is still inferred), so the global step learns the judges' confusions from them too.
Their term of the ELBO is log sum_m exp S[i, z*_i, m] instead of log Z_i (the bound of the constrained
q, which every step still never decreases; the restarts are compared on it). A gold item shares a
pattern (below) only with gold items of its class. The empirical class prior stays the soft-vote total.

Cost. Both steps are products of the sparse item x (judge, label) count matrix (built once per
fit) with an array of one column per active subtype column (k, m): O(labels x active columns)
per iteration, no loop over items or labels. Two savings that change nothing beyond rounding:
(1) items with identical labels (the same judges saying the same classes) have the same r after
the first local step, so from the second iteration on one row per distinct pattern is computed
and weighted by its item count in the sums over items; (2) a column (k, m) whose total sum_i
r[i, k, m] is at most tau = 1e-20 min(1, a_v, b_v)^2 is inactive: its counts are each below half
a unit in the last place of mu_jkml >= min(a_v, b_v), so its mu is beta_k exactly in float64,
its E log v_jkml is c_kl = psi(beta_kl) - psi(sum_l beta_kl) for every judge, and its score is
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

from numbers import Integral, Real
from typing import Any

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Interval, Options
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.methods.ebcc.layout import EBCCLayout, ebcc_layout, ebcc_start, soft_vote
from manyjudges.truth.methods.ebcc.mean_field import EBCCRun, ebcc_mean_field

__all__ = ["EBCC", "EBCCLayout", "EBCCRun", "ebcc_layout", "ebcc_mean_field", "ebcc_start", "soft_vote"]


class EBCC(TruthEstimator):
    """Enhanced Bayesian classifier combination (Li, Rubinstein and Cohn, ICML 2019), mean-field VI.

    Parameters
    ----------
    n_subtypes : int
        M, the subtypes (mixture components) within each class (M = 1: Bayesian
        classifier combination).
    n_restarts : int
        Random starts; the one with the largest ELBO is kept.
    max_iter : int
        Per start, at most ``max_iter`` iterations.
    tol : float
        A start stops when no class posterior moved by more than ``tol``.
    alpha : "empirical" or float
        The class-proportion prior, ``"empirical"`` (alpha_k = the soft-vote total of
        class k, the authors' runs) or a number > 0 (a symmetric Dirichlet(alpha)).
    a_pi : float
        The subtype-proportion prior's total concentration (Dirichlet(a_pi / M each)).
    a_v : float
        Each confusion row's Dirichlet prior on the diagonal.
    b_v : float
        Each confusion row's Dirichlet prior off the diagonal.
    random_state : int or None
        Seed of the numpy Generator drawing the starts.

    Attributes
    ----------
    confusions_ : pandas.DataFrame
        The judges' confusions, marginalised over subtypes; ``proba_`` and ``labels_`` as in
        :class:`~manyjudges.truth.base.TruthEstimator`.
    skills_ : pandas.Series
        Expected accuracy by judge.
    n_iter_ : int
        Iterations of the kept start.
    elbo_ : float
        The kept start's ELBO.
    elbo_trace_ : ndarray
        Its ELBO per iteration.
    restart_elbos_ : ndarray, shape (n_restarts,)
        Every start's final ELBO.
    converged_ : bool
        Whether the kept start converged.

    Notes
    -----
    Gold items (``fit(labels, gold=...)``) keep their known class in every start and
    local step, so the judges' confusions are learned from them too.
    """

    gold_use = "fit"
    _parameter_constraints = {
        **TruthEstimator._parameter_constraints,
        "n_subtypes": [Interval(Integral, 1, None)],
        "n_restarts": [Interval(Integral, 1, None)],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "alpha": [Options(("empirical",)), Interval(Real, 0, None, closed="neither")],
        "a_pi": [Interval(Real, 0, None, closed="neither")],
        "a_v": [Interval(Real, 0, None, closed="neither")],
        "b_v": [Interval(Real, 0, None, closed="neither")],
        "random_state": [Interval(Integral, 0, None), None],
    }

    def __init__(self, n_subtypes: int = 10, n_restarts: int = 40, max_iter: int = 500, tol: float = 1e-3,
                 alpha: float | str = "empirical", a_pi: float = 0.1, a_v: float = 4.0, b_v: float = 1.0,
                 random_state: int | None = 0, calibrate: str | None = None):
        self.n_subtypes, self.n_restarts, self.max_iter, self.tol = n_subtypes, n_restarts, max_iter, tol
        self.alpha, self.a_pi, self.a_v, self.b_v, self.random_state = alpha, a_pi, a_v, b_v, random_state
        self.calibrate = calibrate

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
