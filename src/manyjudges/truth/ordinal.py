"""Ordinal Dawid-Skene: Dawid-Skene EM with each worker's confusion an ordered-probit row family.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. Journal of the Royal Statistical Society, Series C 28(1), 20-28
(the latent-class likelihood and its EM); the confusion rows restricted to McKelvey and
Zavoina's ordered probit (1975, A statistical model for the analysis of ordinal level
dependent variables, Journal of Mathematical Sociology 4(1), 103-120: a category is the bin
of a latent Gaussian between cut points). The combination is ours; no single paper
defines this estimator.

Model. The classes 0..K-1 are ordered. Item i has a true class t_i drawn from the class
priors p; worker w, shown an item of class t, perceives mu_t + b_w + s_w e with e ~ N(0, 1)
(a bias b_w and a noise scale s_w > 0) and reports the class c whose bin (tau_c, tau_{c+1})
holds it (tau_0 = -inf, tau_K = +inf), except that with probability l_w (its lapse rate) it
labels at random, uniformly over the K classes:

    P_w(c | t) = (1 - l_w) [Phi((tau_{c+1} - mu_t - b_w) / s_w) - Phi((tau_c - mu_t - b_w) / s_w)] + l_w / K.

The class locations mu_t and the cut points tau_1 < ... < tau_{K-1} are shared by all workers
and learned (``learn_cuts``), with mu_0 = 0, mu_{K-1} = K - 1 (the scale) and the cut points'
mean (K - 1) / 2 (the location; a common shift of the cut points and the biases is not
identified); ``learn_cuts=False`` keeps mu_t = t, tau_c = c - 1/2 (equally spaced classes,
each true class in the middle of its bin). The lapse is the uniform guessing of a spammer (as
MACE's spamming, Hovy et al. 2013, NAACL, with a uniform spam distribution); ``lapse=False``
keeps l_w = 0. Three parameters per worker instead of Dawid and Skene's K(K - 1), so a worker
with few labels is still estimated; its errors land on the neighbouring classes, the farther the
rarer, plus a floor l_w / K.

The learned locations let classes sit closer than one bin when workers confuse them; the lapse
takes random labels, which a Gaussian's tails explain only with a large s_w (why both, measured:
docs/methods.md, the ordinal Dawid-Skene).

Estimation: EM for the maximum a posteriori fit, with ``smoothing`` = eps pseudo-counts in
every cell (t, c) of every worker's confusion and every class prior (as
:mod:`manyjudges.graded.dawid_skene`'s smoothing; it keeps a worker who agrees with every
posterior from reaching s_w = 0), the lapses a second latent variable, one per label:

    E-step   log T[i, t] = log p_t + sum_{labels e of i} log P_{w_e}(y_e | t) - logsumexp_t(...)
    M-step   p_t = (sum_i T[i, t] + eps) / (n_items + K eps)
             z[w, t, c] = (l_w / K) / P_w(c | t)                     (a cell's lapse share, current parameters)
             l_w = sum_{t, c} N[w, t, c] z[w, t, c] / sum_{t, c} N[w, t, c]
             (b_w, s_w) = argmax f_w = sum_{t, c} N[w, t, c] (1 - z[w, t, c]) log P*_w(c | t)
             (mu, tau) raised on sum_w f_w with the workers held,
             N[w, t, c] = eps + sum_{labels e of w saying c} T[item_e, t]

(P*_w the probit part, in brackets above), starting from T = each item's label shares (the soft
majority vote), l_w = 0.1 and the equally spaced classes. The worker step has no closed form.
In a_w = 1 / s_w and d_w = -b_w / s_w the bin edges are affine, u_hi = a_w x_hi + d_w and u_lo
= a_w x_lo + d_w with x = tau - mu_t (x_hi = c + 1/2 - t, x_lo = c - 1/2 - t when equally
spaced), and log(Phi(u_hi) - Phi(u_lo))
is jointly concave in (u_hi, u_lo) (the log-concavity of the normal law; Pratt 1981, JASA
76, 103-106), so f_w is concave in (a_w, d_w): the M-step is Newton's method on each
worker's 2 x 2 problem, all workers at once, warm-started at the previous parameters, each
step halved until f_w rises (Armijo) and refused if it never does, so f_w never falls. With
r(u) = phi(u) / P, q(u) = u r(u) (both 0 at an infinite edge), x the edges' derivatives in a
and g = grad log P:

    d log P / d a = r(u_hi) x_hi - r(u_lo) x_lo            d log P / d d = r(u_hi) - r(u_lo)
    d2 log P / d a2  = -q(u_hi) x_hi^2 + q(u_lo) x_lo^2 - g_a^2
    d2 log P / d a dd = -q(u_hi) x_hi + q(u_lo) x_lo - g_a g_d
    d2 log P / d d2  = -q(u_hi) + q(u_lo) - g_d^2

(phi' (u) = -u phi(u)). The shared step: with the workers held, u is affine in the table x[t,
j] = tau_{j+1} - mu_t too (j = 0..K-2), so sum_w f_w is concave in x, and in the free coordinates
(mu_1..mu_{K-2}, tau on its sum-zero plane; :func:`cut_basis`): Newton's method with the same
Armijo halving, a step also refused unless tau and mu stay increasing. With d log P / d u_hi =
r(u_hi), d log P / d u_lo = -r(u_lo): d2 / du_hi2 = -q(u_hi) - r(u_hi)^2, d2 / du_lo2 = q(u_lo)
- r(u_lo)^2, d2 / du_hi du_lo = r(u_hi) r(u_lo), times a_w^2 (:func:`cut_objective`). log P is
computed as log Phi(y) + log(-expm1(log Phi(x) - log Phi(y))) on (x, y) = (u_lo, u_hi), or on
the reflected (-u_hi, -u_lo) when u_lo > 0: accurate far in either tail. The lapse split is
EM's E-step for the lapse indicators, so with neither Newton step lowering its objective, EM
never lowers the penalised log-likelihood

    sum_i log sum_t p_t prod_{e of i} P_{w_e}(y_e | t) + eps (sum_{w, t, c} log P_w(c | t) + sum_t log p_t)

(tested). The M-step keeps (a_w, d_w) in the box 0.01 <= a_w <= 100, |d_w| <= 100 K (s_w in
[0.01, 100], |b_w| <= 100 K s_w), holding a coordinate at a bound its derivative points past.
EM stops after the first iteration whose objective gains less than ``tol`` per label (as
:mod:`manyjudges.truth.dawid_skene`), or after ``max_iter`` iterations.

Gold items (``fit(labels, gold=...)``, known classes t*_i): T[i, .] is one-hot on t*_i from the
start and after every E-step, so the priors, the lapses, every worker's (b_w, s_w) and the shared
(mu, tau) are learned from them as from the other items (semi-supervised EM, as
:mod:`manyjudges.graded.dawid_skene`'s ``known``); their term of the objective is the joint
log p_{t*} + sum_e log P_{w_e}(y_e | t*) instead of the logsumexp over t, the quantity EM then increases.

Fitted: ``proba_`` = T; ``confusions_`` = P_w(c | t); ``skills_`` = each worker's expected
accuracy sum_t p_t P_w(t | t); ``bias_``, ``scale_`` and ``lapse_`` (b_w, s_w, l_w); ``priors_``,
``locations_`` (mu_t), ``cuts_`` (tau_1..tau_{K-1}).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from manyjudges.coded_labels import CrowdLabels
from manyjudges.truth.base import TruthEstimator, TruthFit, check_em_params, posteriors_from_log_joint
from manyjudges.truth.ordinal_probit import (
    cut_basis,
    cut_objective,
    default_cuts,
    log_probit_confusion,
    mix_lapse,
    newton_cut_step,
    newton_m_step,
    ordinal_confusion,
    ordinal_log_confusion,
    worker_objective,
)

__all__ = ["OrdinalDawidSkene", "cut_basis", "cut_objective", "default_cuts", "newton_cut_step", "newton_m_step",
           "ordinal_confusion", "ordinal_log_confusion", "worker_objective"]

#: every worker's lapse rate l_w before the first M-step
LAPSE_START = 0.1
#: the largest lapse rate: l_w = 1 (a worker all of whose labels are random) leaves log(1 - l_w) = -inf, and a
#: rounding past 1 NaN, in every confusion cell; held just below, the worker's probit part keeps a finite weight
LAPSE_MAX = 1.0 - 1e-9



class OrdinalDawidSkene(TruthEstimator):
    """Dawid-Skene EM with ordered-probit confusions: a bias, a noise scale and a lapse rate per worker.

    Parameters
    ----------
    max_iter : EM iterations at most.
    tol : stop after the first iteration whose penalised log-likelihood gains less than ``tol`` per
        label (Dawid-Skene's rule, :mod:`manyjudges.truth.dawid_skene`).
    smoothing : eps, the pseudo-count in every confusion cell and class prior (MAP EM; 0 is
        maximum likelihood).
    learn_cuts : learn the class locations mu_1..mu_{K-2} and the cut points tau_1..tau_{K-1},
        shared by all workers (False: mu_t = t, tau_c = c - 1/2, equally spaced).
    lapse : give each worker a lapse rate l_w, the share of its labels drawn uniformly from the
        K classes whatever the truth (False: l_w = 0).

    For ordered classes (lowest first: pass ``classes`` to ``fit`` when the labels are not
    integers 0..K-1). After ``fit``: ``proba_``, ``labels_``, ``confusions_``; ``skills_`` the
    expected accuracy sum_t p_t P_w(t | t); ``bias_``, ``scale_``, ``lapse_`` (per worker),
    ``priors_`` and ``locations_`` (mu_t, per class), ``cuts_`` (tau_c, c = 1..K-1),
    ``objective_`` (the penalised log-likelihood) and ``objective_trace_`` (after each
    iteration), ``converged_``. Gold items (``fit(labels, gold=...)``) keep their known class in every
    E-step, so the workers' parameters are learned from them too.
    """

    gold_use = "fit"

    def __init__(self, max_iter: int = 500, tol: float = 1e-5, smoothing: float = 0.01, learn_cuts: bool = True,
                 lapse: bool = True, calibrate: str | None = None):
        self.max_iter, self.tol, self.smoothing, self.learn_cuts = max_iter, tol, smoothing, learn_cuts
        self.lapse, self.calibrate = lapse, calibrate

    def _check_params(self) -> None:
        check_em_params(self.max_iter, self.tol, self.smoothing)
        for name in ("learn_cuts", "lapse"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        k, n, w = data.n_classes, data.n_items, data.n_workers
        eps = float(self.smoothing)
        by_label = sparse.csr_matrix((np.ones(data.n_labels), (data.worker * k + data.label, data.item)),
                                     shape=(w * k, n))
        counts = data.class_counts.astype(float)
        post = np.ascontiguousarray((counts / counts.sum(axis=1, keepdims=True)).T)  # T transposed: post[t, i]
        if gold is not None:  # gold items: T one-hot on the known class from the start and after every E-step
            gold_items, gold_classes = gold
            post[:, gold_items] = 0.0
            post[gold_classes, gold_items] = 1.0
        precision, shift = np.ones(w), np.zeros(w)
        cuts = default_cuts(k)
        lapse = np.full(w, LAPSE_START) if self.lapse else None
        trace = []
        converged = False
        it = 0
        for it in range(1, int(self.max_iter) + 1):  # noqa: B007 (the count is read after the loop)
            # M-step: weights[w, t, c] = sum over w's labels equal to c of T[item, t], plus eps
            weights = (by_label @ post.T).reshape(w, k, k).transpose(0, 2, 1) + eps
            priors = (post.sum(axis=1) + eps) / (n + k * eps)
            if lapse is not None:  # each cell's lapse share z at the current parameters, then l_w, the probit's weights
                log_probit = log_probit_confusion(precision, shift, cuts)
                with np.errstate(divide="ignore"):
                    share = np.exp(np.log(lapse / k)[:, None, None] - mix_lapse(log_probit, lapse))
                np.clip(share, 0.0, 1.0, out=share)
                lapse = np.minimum(np.sum(weights * share, axis=(1, 2)) / weights.sum(axis=(1, 2)), LAPSE_MAX)
                weights = weights * (1.0 - share)
            precision, shift = newton_m_step(precision, shift, weights, cuts=cuts)
            if self.learn_cuts:
                cuts = newton_cut_step(precision, shift, weights, cuts)
            log_conf = mix_lapse(log_probit_confusion(precision, shift, cuts), lapse)
            # E-step: score[t, i] = log p_t + sum over i's labels of log P_w(y | t)
            with np.errstate(divide="ignore"):
                log_priors = np.log(priors)
            score = log_conf.transpose(1, 0, 2).reshape(k, w * k) @ by_label
            score += log_priors[:, None]
            # gold items: one-hot, their term of the objective the joint log P(labels, known class)
            new_post, log_z = posteriors_from_log_joint(score, gold)
            penalty = eps * (float(log_conf.sum()) + float(log_priors.sum())) if eps > 0 else 0.0
            trace.append(float(log_z.sum()) + penalty)
            post = new_post
            if len(trace) > 1 and trace[-1] - trace[-2] < self.tol * data.n_labels:
                converged = True
                break
        bias, scale = -shift / precision, 1.0 / precision
        conf = np.exp(log_conf)
        skills = conf[:, np.arange(k), np.arange(k)] @ priors
        workers = pd.Index(data.workers, name="worker")
        classes = pd.Index(data.classes, name="label")
        self.bias_ = pd.Series(bias, index=workers, name="bias")
        self.scale_ = pd.Series(scale, index=workers, name="scale")
        self.lapse_ = pd.Series(np.zeros(w) if lapse is None else lapse, index=workers, name="lapse")
        self.priors_ = pd.Series(priors, index=classes, name="prior")
        self.locations_ = pd.Series(cuts[0, 0] - cuts[:, 0], index=classes, name="location")  # mu_0 = 0
        self.cuts_ = pd.Series(cuts[0], index=pd.RangeIndex(1, k, name="cut"), name="cut")
        self.objective_ = trace[-1]
        self.objective_trace_ = np.asarray(trace)
        self.converged_ = converged
        return TruthFit(proba=np.ascontiguousarray(post.T), skills=skills, confusions=conf, n_iter=it)
