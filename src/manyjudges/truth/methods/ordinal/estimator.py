"""Ordinal Dawid-Skene: Dawid-Skene EM with each judge's confusion an ordered-probit row family.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. Journal of the Royal Statistical Society, Series C 28(1), 20-28
(the latent-class likelihood and its EM); the confusion rows restricted to McKelvey and
Zavoina's ordered probit (1975, A statistical model for the analysis of ordinal level
dependent variables, Journal of Mathematical Sociology 4(1), 103-120: a category is the bin
of a latent Gaussian between cut points). The combination is ours; no single paper
defines this estimator.

Model. The classes 0..K-1 are ordered. Item i has a true class t_i drawn from the class
priors p; judge w, shown an item of class t, perceives mu_t + b_w + s_w e with e ~ N(0, 1)
(a bias b_w and a noise scale s_w > 0) and reports the class c whose bin (tau_c, tau_{c+1})
holds it (tau_0 = -inf, tau_K = +inf), except that with probability l_w (its lapse rate) it
labels at random, uniformly over the K classes:

    P_w(c | t) = (1 - l_w) [Phi((tau_{c+1} - mu_t - b_w) / s_w) - Phi((tau_c - mu_t - b_w) / s_w)] + l_w / K.

The class locations mu_t and the cut points tau_1 < ... < tau_{K-1} are shared by all judges
and learned (``learn_cuts``), with mu_0 = 0, mu_{K-1} = K - 1 (the scale) and the cut points'
mean (K - 1) / 2 (the location; a common shift of the cut points and the biases is not
identified); ``learn_cuts=False`` keeps mu_t = t, tau_c = c - 1/2 (equally spaced classes,
each true class in the middle of its bin). The lapse is the uniform guessing of a spammer (as
MACE's spamming, Hovy et al. 2013, NAACL, with a uniform spam distribution); ``lapse=False``
keeps l_w = 0. Three parameters per judge instead of Dawid and Skene's K(K - 1), so a judge
with few labels is still estimated; its errors land on the neighbouring classes, the farther the
rarer, plus a floor l_w / K.

The learned locations let classes sit closer than one bin when judges confuse them; the lapse
takes random labels, which a Gaussian's tails explain only with a large s_w (why both, measured:
docs/methods.md, the ordinal Dawid-Skene).

Estimation: EM for the maximum a posteriori fit, with ``smoothing`` = eps pseudo-counts in
every cell (t, c) of every judge's confusion and every class prior (as
:mod:`manyjudges.graded.dawid_skene`'s smoothing; it keeps a judge who agrees with every
posterior from reaching s_w = 0), two weak priors that keep every judge's parameters set by the
data (below), and the lapses a second latent variable, one per label:

    E-step   log T[i, t] = log p_t + sum_{labels e of i} log P_{w_e}(y_e | t) - logsumexp_t(...)
    M-step   p_t = (sum_i T[i, t] + eps) / (n_items + K eps)
             z[w, t, c] = (l_w / K) / P_w(c | t)                     (a cell's lapse share, current parameters)
             l_w = (sum_{t, c} N[w, t, c] z[w, t, c] + lambda l_0) / (sum_{t, c} N[w, t, c] + lambda)
             (b_w, s_w) = argmax f_w = sum_{t, c} N[w, t, c] (1 - z[w, t, c]) log P*_w(c | t)
                                       - rho / 2 ((a_w - 1)^2 + d_w^2)
             (mu, tau) raised on sum_w f_w with the judges held,
             N[w, t, c] = eps + sum_{labels e of w saying c} T[item_e, t]

(P*_w the probit part, in brackets above), starting from T = each item's label shares (the soft
majority vote), l_w = l_0 = 0.1 and the equally spaced classes. The priors: the lapse rate is
Beta with ``lapse_prior`` = lambda pseudo-labels at the mean l_0 (log-prior lambda (l_0 log l_w +
(1 - l_0) log(1 - l_w))), and (a_w, d_w) Gaussian around (1, 0), the noise scale 1 and no bias,
with precision ``ridge`` = rho (log-prior -rho/2 ((a_w - 1)^2 + d_w^2)). Without them the
likelihood has ridges EM crawls along for thousands of iterations without reaching a point: a
judge whose labels are all lapses leaves (a_w, d_w) free, a lapse rate creeps towards 0
(1.5e-323 after 1,600 iterations on a Snow et al. task, measured), a lapse and a wide s_w explain the same scatter.
The judge step has no closed form. In a_w = 1 / s_w and d_w = -b_w / s_w the bin edges are
affine, u_hi = a_w x_hi + d_w and u_lo = a_w x_lo + d_w with x = tau - mu_t (x_hi = c + 1/2 - t,
x_lo = c - 1/2 - t when equally spaced), and log(Phi(u_hi) - Phi(u_lo)) is jointly concave in
(u_hi, u_lo) (the log-concavity of the normal law; Pratt 1981, JASA 76, 103-106), so f_w is
concave in (a_w, d_w) (the ridge adds a concave quadratic): the M-step is Newton's method on
each judge's 2 x 2 problem, all judges at once, warm-started at the previous parameters, each
step halved until f_w rises (Armijo) and refused if it never does, so f_w never falls. With
r(u) = phi(u) / P, q(u) = u r(u) (both 0 at an infinite edge), x the edges' derivatives in a
and g = grad log P:

    d log P / d a = r(u_hi) x_hi - r(u_lo) x_lo            d log P / d d = r(u_hi) - r(u_lo)
    d2 log P / d a2  = -q(u_hi) x_hi^2 + q(u_lo) x_lo^2 - g_a^2
    d2 log P / d a dd = -q(u_hi) x_hi + q(u_lo) x_lo - g_a g_d
    d2 log P / d d2  = -q(u_hi) + q(u_lo) - g_d^2

(phi' (u) = -u phi(u)). The shared step: with the judges held, u is affine in the table x[t, j] =
tau_{j+1} - mu_t too (j = 0..K-2), so sum_w f_w is concave in x, and in the free coordinates
(mu_1..mu_{K-2}, tau on its sum-zero plane;
:func:`~manyjudges.truth.methods.ordinal.probit._cut_basis`): Newton's method with the same Armijo
halving, a step also refused unless tau and mu stay increasing. With d log P / d u_hi = r(u_hi), d
log P / d u_lo = -r(u_lo): d2 / du_hi2 = -q(u_hi) - r(u_hi)^2, d2 / du_lo2 = q(u_lo) - r(u_lo)^2, d2
/ du_hi du_lo = r(u_hi) r(u_lo), times a_w^2
(:func:`~manyjudges.truth.methods.ordinal.probit._cut_objective`). log P is computed as log Phi(y) +
log(-expm1(log Phi(x) - log Phi(y))) on (x, y) = (u_lo, u_hi), or on the reflected (-u_hi, -u_lo)
when u_lo > 0: accurate far in either tail. The lapse split is EM's E-step for the lapse indicators,
so with neither Newton step lowering its objective, EM never lowers the penalised log-likelihood

    sum_i log sum_t p_t prod_{e of i} P_{w_e}(y_e | t) + eps (sum_{w, t, c} log P_w(c | t) + sum_t log p_t)
        + the two log-priors

(tested). The M-step keeps (a_w, d_w) in the box 0.01 <= a_w <= 100, |d_w| <= 100 K (s_w in
[0.01, 100], |b_w| <= 100 K s_w), holding a coordinate at a bound its derivative points past.
EM is accelerated by SQUAREM and stops at its fixed point (:mod:`manyjudges.core.em_acceleration`):
when the posteriors' last step times max(1, r / (1 - r)), r the ratio of successive steps, is below
``tol``, an estimate of their distance to the fixed point; or after ``max_iter`` evaluations of the
EM map. An objective-gain rule stops where the likelihood is flat, which on these panels is far
from the point (0.3 in a posterior at the default of 1e-5 per label, measured), and where it stops
then depends on the last digits of the arithmetic: another processor's BLAS moved the posteriors
by 2e-5. At the fixed point the data set the answer.

Gold items (``fit(labels, gold=...)``, known classes t*_i): T[i, .] is one-hot on t*_i from the
start and after every E-step, so the priors, the lapses, every judge's (b_w, s_w) and the shared
(mu, tau) are learned from them as from the other items (semi-supervised EM, as
:mod:`manyjudges.graded.dawid_skene`'s ``known``); their term of the objective is the joint
log p_{t*} + sum_e log P_{w_e}(y_e | t*) instead of the logsumexp over t, the quantity EM then increases.

Fitted: ``proba_`` = T; ``confusions_`` = P_w(c | t); ``skills_`` = each judge's expected
accuracy sum_t p_t P_w(t | t); ``bias_``, ``scale_`` and ``lapse_`` (b_w, s_w, l_w); ``priors_``,
``locations_`` (mu_t), ``cuts_`` (tau_1..tau_{K-1}).
"""
from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.em_acceleration import EMRun, iterate_em
from manyjudges.core.parameters import BOOLEAN, Interval
from manyjudges.truth.base import EM_CONSTRAINTS, TruthEstimator, TruthFit
from manyjudges.truth.methods.ordinal.em import _OrdinalEM

__all__ = ["OrdinalDawidSkene"]

class OrdinalDawidSkene(TruthEstimator):
    """Dawid-Skene EM with ordered-probit confusions: a bias, a noise scale and a lapse rate per judge.

    For ordered classes (lowest first: pass ``classes`` to ``fit`` when the labels are not
    integers 0..K-1).

    Parameters
    ----------
    max_iter : int
        Evaluations of the EM map at most (three per SQUAREM cycle).
    tol : float
        Stop when the posteriors' estimated distance to EM's fixed point is below ``tol``
        (module docstring).
    smoothing : float
        eps, the pseudo-count in every confusion cell and class prior (MAP EM; 0 is
        maximum likelihood).
    learn_cuts : bool
        Learn the class locations mu_1..mu_{K-2} and the cut points tau_1..tau_{K-1},
        shared by all judges (False: mu_t = t, tau_c = c - 1/2, equally spaced).
    lapse : bool
        Give each judge a lapse rate l_w, the share of its labels drawn uniformly from the
        K classes whatever the truth (False: l_w = 0).
    ridge : float
        rho, the precision of the Gaussian prior on each judge's (a_w, d_w) = (1 / s_w,
        -b_w / s_w) around (1, 0) (0: none).
    lapse_prior : float
        lambda, the Beta prior's pseudo-labels on each lapse rate, at the mean l_0 = 0.1
        (0: none).
    accelerate : bool
        SQUAREM (False: plain EM, the same fixed point, more iterations).

    Attributes
    ----------
    confusions_ : pandas.DataFrame
        The judges' confusions; ``proba_`` and ``labels_`` as in
        :class:`~manyjudges.truth.base.TruthEstimator`.
    skills_ : pandas.Series
        The expected accuracy sum_t p_t P_w(t | t) by judge.
    bias_, scale_, lapse_ : pandas.Series
        Per judge.
    priors_ : pandas.Series
        Per class.
    locations_ : pandas.Series
        mu_t, per class.
    cuts_ : pandas.Series
        tau_c, c = 1..K-1.
    objective_ : float
        The penalised log-likelihood.
    objective_trace_ : ndarray
        The penalised log-likelihood after each iteration.
    converged_ : bool
        Whether the EM converged.

    Notes
    -----
    Gold items (``fit(labels, gold=...)``) keep their known class in every
    E-step, so the judges' parameters are learned from them too.
    """

    gold_use = "fit"
    _parameter_constraints = {
        **TruthEstimator._parameter_constraints,
        **EM_CONSTRAINTS,
        "learn_cuts": [BOOLEAN],
        "lapse": [BOOLEAN],
        "ridge": [Interval(Real, 0, None)],
        "lapse_prior": [Interval(Real, 0, None)],
        "spacing": [Interval(Real, 0, None)],
        "accelerate": [BOOLEAN],
    }

    def __init__(self, max_iter: int = 5000, tol: float = 1e-7, smoothing: float = 0.01, learn_cuts: bool = True,
                 lapse: bool = True, calibrate: str | None = None, ridge: float = 0.3, lapse_prior: float = 5.0,
                 spacing: float = 1.0, accelerate: bool = True):
        self.max_iter, self.tol, self.smoothing, self.learn_cuts = max_iter, tol, smoothing, learn_cuts
        self.lapse, self.calibrate = lapse, calibrate
        self.ridge, self.lapse_prior, self.spacing, self.accelerate = ridge, lapse_prior, spacing, accelerate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        em = _OrdinalEM.of(self, data, gold)
        run = iterate_em(em.em_map, em.start(data), tol=float(self.tol), max_iter=int(self.max_iter),
                         accelerate=bool(self.accelerate), project=em.project, monitor=slice(0, em.k * em.n))
        return self._keep(data, em, run)

    def _keep(self, data: CrowdLabels, em: _OrdinalEM, run: EMRun) -> TruthFit:
        """Set the fitted attributes from the last state of the run; the posteriors, skills and confusions."""
        k, w = em.k, em.w
        post, lapse, precision, shift, cuts = em.unpack(run.state)
        priors, log_conf = run.payload
        conf = np.exp(log_conf)
        skills = conf[:, np.arange(k), np.arange(k)] @ priors
        judges = pd.Index(data.judges, name="judge")
        classes = pd.Index(data.classes, name="label")
        self.bias_ = pd.Series(-shift / precision, index=judges, name="bias")
        self.scale_ = pd.Series(1.0 / precision, index=judges, name="scale")
        self.lapse_ = pd.Series(np.zeros(w) if lapse is None else lapse, index=judges, name="lapse")
        self.priors_ = pd.Series(priors, index=classes, name="prior")
        self.locations_ = pd.Series(cuts[0, 0] - cuts[:, 0], index=classes, name="location")  # mu_0 = 0
        self.cuts_ = pd.Series(cuts[0], index=pd.RangeIndex(1, k, name="cut"), name="cut")
        self.objective_ = run.objective
        self.objective_trace_ = np.asarray(run.trace)
        self.converged_ = run.converged
        return TruthFit(proba=np.ascontiguousarray(post.T), skills=skills, confusions=conf, n_iter=run.n_iter)
