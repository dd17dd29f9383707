"""GLAD: judge ability and item difficulty, one EM over all labels (Whitehill et al. 2009).

Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J. and Movellan, J. (2009). Whose vote should
count more: optimal integration of labels from labelers of unknown expertise. Advances in
Neural Information Processing Systems 22 (NIPS 2009), 2035-2043.

Model (the paper's eq. 1 for the probability of a correct label; with K classes a wrong
label is uniform over the K - 1 others, the multi-class form crowd-kit's GLAD also uses). Item
i has a true class Z_i with the prior p (fixed, uniform 1/K); judge w has an ability alpha_w
in (-inf, inf) (0: guessing, negative: adversarial); item i has an inverse difficulty
beta_i = exp(b_i) > 0 (1 / beta_i is its difficulty; beta is optimised in log space b_i so
that it stays positive, as in the authors' code). With x_e = alpha_w beta_i for label
e = (item i, judge w, label l_e):

    P(l_e = Z_i | alpha_w, beta_i) = sigma(x_e) = 1 / (1 + exp(-x_e))
    P(l_e = c | Z_i = k)           = (1 - sigma(x_e)) / (K - 1)     for c != k

Priors (the authors' code and crowd-kit: Gaussian, standard deviation 1, mean 1 on alpha
and on log beta): alpha_w ~ N(alpha_mean, alpha_sd^2), b_i ~ N(log_beta_mean, log_beta_sd^2).
EM (the paper's inference section: an E-step on Z, an M-step by gradient ascent on Q) maximises
the log posterior

    F(alpha, b) = sum_i log sum_k p_k prod_{e in i} P(l_e | Z_i = k)
                  - sum_w (alpha_w - alpha_mean)^2 / (2 alpha_sd^2) - sum_i (b_i - log_beta_mean)^2 / (2 log_beta_sd^2)

(up to a constant) by alternating

- E-step, in log space:
  log P(Z_i = k | labels) = log p_k + sum_{e in i} [l_e = k] log sigma(x_e)
                            + [l_e != k] (log(1 - sigma(x_e)) - log(K - 1)) - logsumexp_k(...)
- M-step: with q_e = P(Z_i = l_e | labels) from the E-step, maximise over alpha and b
  Q(alpha, b) = sum_e q_e log sigma(x_e) + (1 - q_e) log(1 - sigma(x_e)) + log priors
  whose gradient (the paper's dQ/dalpha and dQ/dbeta, times beta_i for the log scale) is
  dQ/dalpha_w = sum_{e of w} (q_e - sigma(x_e)) beta_i - (alpha_w - alpha_mean) / alpha_sd^2
  dQ/db_i     = sum_{e of i} (q_e - sigma(x_e)) alpha_w beta_i - (b_i - log_beta_mean) / log_beta_sd^2

The M-step runs L-BFGS-B (:func:`manyjudges.core.solvers.lbfgsb`) from the current values for at
most ``m_step_max_iter`` iterations with gradient tolerance ``m_step_tol`` (crowd-kit runs 25
conjugate-gradient iterations with gradient tolerance 0.01: the same limits). A partial
M-step still never decreases Q, so F never decreases (generalised EM). Start: alpha and b at
their prior means (as the authors' code and crowd-kit). Stop: when an iteration changes F by
at most ``tol`` times |F|, or after ``max_iter`` iterations (crowd-kit stops on the first
iteration whose Q, divided by K times the number of labels, rises by less than ``tol``, and
returns the posteriors of the E-step before its last M-step). The returned posteriors are
those of an E-step on the returned parameters. Every step is a few ``np.bincount`` over the
labels: O(labels) per objective evaluation, whatever K is.

Gold items (``fit(labels, gold=...)``: items i in G with a known class c_i): their posteriors are
one-hot on c_i from the start and after every E-step, P(Z_i = k | labels) = [k = c_i], so q_e is
1 or 0 on their labels and the M-step learns alpha (and their beta) from them too; their term of F
is the joint log p_{c_i} prod_{e in i} P(l_e | Z_i = c_i) instead of the marginal log sum_k ...,
the objective this EM then increases (and the one the stopping rule reads).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit, log_expit

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.parameters import Interval
from manyjudges.core.posteriors import posteriors_from_log_joint
from manyjudges.core.solvers import lbfgsb
from manyjudges.truth.base import TruthEstimator, TruthFit

__all__ = ["GLAD"]

def _log_sigmoids(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log sigma(x), log(1 - sigma(x))), stable for large |x| (log(1 - sigma(x)) = log sigma(x) - x)."""
    log_right = log_expit(x)
    return log_right, log_right - x


def _e_step(data: CrowdLabels, alpha: np.ndarray, log_beta: np.ndarray,
            known: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    """(posteriors (n_items, K), log-likelihood sum_i log P(item i's labels)) under a uniform class prior.

    ``known = (items, classes)``: gold items, one-hot on their class, their term log P(labels, class).
    """
    k, n = data.n_classes, data.n_items
    x = alpha[data.judge] * np.exp(log_beta[data.item])
    log_right, log_wrong = _log_sigmoids(x)
    log_wrong -= np.log(k - 1)
    # every label contributes log_wrong to each class, and log_right - log_wrong more to its own class;
    # (K, n_items) so that the sums over the classes are K-term element-wise operations
    joint = np.bincount(data.label * n + data.item, weights=log_right - log_wrong, minlength=k * n).reshape(k, n)
    joint += np.bincount(data.item, weights=log_wrong, minlength=n) - np.log(k)
    post, log_z = posteriors_from_log_joint(joint, known)
    return np.ascontiguousarray(post.T), float(log_z.sum())


def _neg_q(params: np.ndarray, data: CrowdLabels, q: np.ndarray, prior: tuple[float, float, float, float]
           ) -> tuple[float, np.ndarray]:
    """-Q and its gradient over (alpha, log beta) stacked; ``q[e]`` = P(Z = l_e) from the E-step.

    Q drops the terms that do not depend on the parameters (the class prior and (1 - q) log(K - 1)).
    """
    n_judges = data.n_judges
    alpha, log_beta = params[:n_judges], params[n_judges:]
    alpha_mean, alpha_sd, beta_mean, beta_sd = prior
    beta = np.exp(log_beta)
    beta_e = beta[data.item]
    alpha_e = alpha[data.judge]
    x = alpha_e * beta_e
    da, db = alpha - alpha_mean, log_beta - beta_mean
    # q log sigma(x) + (1 - q) log(1 - sigma(x)) = log sigma(x) - (1 - q) x
    value = float(log_expit(x).sum() - (1.0 - q) @ x) - 0.5 * (da @ da / alpha_sd**2 + db @ db / beta_sd**2)
    resid = q - expit(x)
    grad_alpha = np.bincount(data.judge, weights=resid * beta_e, minlength=n_judges) - da / alpha_sd**2
    grad_log_beta = np.bincount(data.item, weights=resid * x, minlength=data.n_items) - db / beta_sd**2
    return -value, -np.concatenate([grad_alpha, grad_log_beta])  # type: ignore[return-value]  # stubs: 1-D @ scalar


def _log_prior(alpha: np.ndarray, log_beta: np.ndarray, prior: tuple[float, float, float, float]) -> float:
    """Return the Gaussian log priors up to their constant."""
    alpha_mean, alpha_sd, beta_mean, beta_sd = prior
    return float(-0.5 * (np.sum((alpha - alpha_mean) ** 2) / alpha_sd**2
                         + np.sum((log_beta - beta_mean) ** 2) / beta_sd**2))


class GLAD(TruthEstimator):
    """GLAD (Whitehill et al. 2009): P(correct) = sigmoid(alpha_judge * beta_item), EM with Gaussian priors.

    Parameters
    ----------
    max_iter : int
        EM iterations at most (>= 1).
    tol : float
        Stop when an iteration changes the log posterior by at most ``tol`` times its size (>= 0).
    alpha_mean, alpha_sd : float
        Gaussian prior on each judge's ability (sd > 0); the start value is the mean.
    log_beta_mean, log_beta_sd : float
        Gaussian prior on each item's log inverse difficulty (sd > 0).
    m_step_max_iter : int
        L-BFGS-B iterations per M-step (>= 1).
    m_step_tol : float
        L-BFGS-B's gradient tolerance in the M-step (> 0).

    Attributes
    ----------
    skills_ : pandas.Series
        Alpha by judge.
    betas_ : pandas.Series
        Beta = exp(b) by item: larger is easier.
    difficulty_ : pandas.Series
        1 / beta by item.
    log_posterior_ : float
        F at the returned parameters, up to its constant.
    objective_history_ : list of float
        F at the start and after each iteration.
    converged_ : bool
        Whether the EM converged.
    confusions_ : None
        None: GLAD's errors depend on the item; the other base attributes as in
        :class:`~manyjudges.truth.base.TruthEstimator`.

    Notes
    -----
    Gold items keep their known class throughout the EM (module docstring).
    """

    gold_use = "fit"
    _parameter_constraints = {
        **TruthEstimator._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "alpha_mean": [Interval(Real)],
        "alpha_sd": [Interval(Real, 0, None, closed="neither")],
        "log_beta_mean": [Interval(Real)],
        "log_beta_sd": [Interval(Real, 0, None, closed="neither")],
        "m_step_max_iter": [Interval(Integral, 1, None)],
        "m_step_tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, max_iter: int = 100, tol: float = 1e-5, alpha_mean: float = 1.0, alpha_sd: float = 1.0,
                 log_beta_mean: float = 1.0, log_beta_sd: float = 1.0, m_step_max_iter: int = 25,
                 m_step_tol: float = 1e-2, calibrate: str | None = None):
        self.max_iter, self.tol, self.alpha_mean, self.alpha_sd = max_iter, tol, alpha_mean, alpha_sd
        self.log_beta_mean, self.log_beta_sd, self.m_step_max_iter = log_beta_mean, log_beta_sd, m_step_max_iter
        self.m_step_tol, self.calibrate = m_step_tol, calibrate

    def _fit(self, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None = None) -> TruthFit:
        prior = (float(self.alpha_mean), float(self.alpha_sd), float(self.log_beta_mean), float(self.log_beta_sd))
        n_judges = data.n_judges
        alpha = np.full(n_judges, prior[0])
        log_beta = np.full(data.n_items, prior[2])
        post, loglik = _e_step(data, alpha, log_beta, gold)
        objective = loglik + _log_prior(alpha, log_beta, prior)
        self.objective_history_ = [objective]
        converged = False
        n_iter = 0
        for n_iter in range(1, int(self.max_iter) + 1):  # noqa: B007 (the count is read after the loop)
            q = post[data.item, data.label]
            params, _ = lbfgsb(lambda p, q=q: _neg_q(p, data, q, prior),  # type: ignore[misc]  # mypy#15459
                               np.concatenate([alpha, log_beta]),
                               maxiter=int(self.m_step_max_iter), gtol=float(self.m_step_tol))
            alpha, log_beta = params[:n_judges], params[n_judges:]
            post, loglik = _e_step(data, alpha, log_beta, gold)
            new_objective = loglik + _log_prior(alpha, log_beta, prior)
            self.objective_history_.append(new_objective)
            change = abs(new_objective - objective)
            objective = new_objective
            if change <= float(self.tol) * abs(objective):
                converged = True
                break
        items = pd.Index(data.items, name="item")
        self.betas_ = pd.Series(np.exp(log_beta), index=items, name="beta")
        self.difficulty_ = pd.Series(np.exp(-log_beta), index=items, name="difficulty")
        self.log_posterior_ = objective
        self.converged_ = converged
        return TruthFit(proba=post, skills=alpha, n_iter=n_iter)
