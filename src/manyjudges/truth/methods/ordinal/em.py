"""The EM of the ordinal Dawid-Skene model (``OrdinalDawidSkene``, in this package), on a flat state.

The model, its estimation and its references are in :mod:`manyjudges.truth.methods.ordinal.estimator`; this module
holds the EM map it iterates (start, E-step, M-step, the judges' Newton steps, the objective and the projection onto the
parameters' domain).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.posteriors import posteriors_from_log_joint
from manyjudges.truth.methods.ordinal.probit import (
    _clip_to_box,
    _default_cuts,
    _log_probit_confusion,
    _mix_lapse,
    _newton_cut_step,
    _newton_m_step,
    _spacing_prior,
)

if TYPE_CHECKING:
    from manyjudges.truth.methods.ordinal.estimator import OrdinalDawidSkene


#: every judge's lapse rate l_w before the first M-step
_LAPSE_START = 0.1
#: the largest lapse rate: l_w = 1 (a judge all of whose labels are random) leaves log(1 - l_w) = -inf, and a
#: rounding past 1 NaN, in every confusion cell; held just below, the judge's probit part keeps a finite weight
_LAPSE_MAX = 1.0 - 1e-9


#: the parameters of one state of the EM: (posteriors (K, n), lapses or None, precisions, shifts, cut table)
_Parameters = tuple[np.ndarray, "np.ndarray | None", np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _OrdinalEM:
    """The EM map of one fit on a flat state.

    The state holds the posteriors (K x n), then each judge's lapse (when learned), precision a_w and shift
    d_w, then the (K, K - 1) cut table (module docstring).
    """

    k: int
    n: int
    w: int
    #: (W K, n) CSR: row w K + c counts judge w's labels c of each item
    by_label: sparse.csr_matrix
    gold: tuple[np.ndarray, np.ndarray] | None
    eps: float
    ridge: float
    lapse_prior: float
    spacing: float
    learn_cuts: bool
    lapse: bool

    @classmethod
    def of(cls, est: OrdinalDawidSkene, data: CrowdLabels, gold: tuple[np.ndarray, np.ndarray] | None
           ) -> _OrdinalEM:
        """Build the EM of one fit of ``est`` on ``data`` (with the gold items, if any)."""
        k, n, w = data.n_classes, data.n_items, data.n_judges
        by_label = sparse.csr_matrix((np.ones(data.n_labels), (data.judge * k + data.label, data.item)),
                                     shape=(w * k, n))
        return cls(k, n, w, by_label, gold, float(est.smoothing), float(est.ridge), float(est.lapse_prior),
                   float(est.spacing), bool(est.learn_cuts), bool(est.lapse))

    def start(self, data: CrowdLabels) -> np.ndarray:
        """Return the first state.

        T = each item's label shares (gold items one-hot), l_w = LAPSE_START, a_w = 1, d_w = 0, the equally
        spaced cuts.
        """
        counts = data.class_counts.astype(float)
        post = np.ascontiguousarray((counts / counts.sum(axis=1, keepdims=True)).T)  # T transposed: post[t, i]
        self._pin_gold(post)
        lapse0 = np.full(self.w, _LAPSE_START) if self.lapse else np.zeros(0)
        return np.concatenate([post.ravel(), lapse0, np.ones(self.w), np.zeros(self.w), _default_cuts(self.k).ravel()])

    def unpack(self, x: np.ndarray) -> _Parameters:
        """Split the state into its parts (views of ``x``)."""
        k, w = self.k, self.w
        sizes = np.cumsum([k * self.n, w if self.lapse else 0, w, w])
        post, lapse, precision, shift, cuts = np.split(x, sizes)
        return post.reshape(k, self.n), (lapse if self.lapse else None), precision, shift, cuts.reshape(k, k - 1)

    @staticmethod
    def pack(post: np.ndarray, lapse: np.ndarray | None, precision: np.ndarray, shift: np.ndarray,
             cuts: np.ndarray) -> np.ndarray:
        """Return the flat state of the parts."""
        return np.concatenate([post.ravel(), lapse if lapse is not None else [], precision, shift, cuts.ravel()])

    def _pin_gold(self, post: np.ndarray) -> None:
        """Gold items one-hot on their known class, T[t, i] = [t = c_i], in place."""
        if self.gold is not None:
            post[:, self.gold[0]] = 0.0
            post[self.gold[1], self.gold[0]] = 1.0

    def em_map(self, x: np.ndarray) -> tuple[np.ndarray, float, tuple[np.ndarray, np.ndarray]]:
        """Run one iteration (M-step, then E-step) from the state ``x``.

        Returns the new state, the penalised log-likelihood at the new parameters, and (the class priors,
        log P_w(c | t)).
        """
        post, lapse, precision, shift, cuts = self.unpack(x)
        priors, lapse, precision, shift, cuts = self.m_step(post, lapse, precision, shift, cuts)
        log_conf = _mix_lapse(_log_probit_confusion(precision, shift, cuts), lapse)
        with np.errstate(divide="ignore"):
            log_priors = np.log(priors)
        new_post, log_z = self.e_step(log_conf, log_priors)
        objective = float(log_z.sum()) + self.log_prior(log_conf, log_priors, precision, shift, lapse, cuts)
        return self.pack(new_post, lapse, precision, shift, cuts), objective, (priors, log_conf)

    def m_step(self, post: np.ndarray, lapse: np.ndarray | None, precision: np.ndarray, shift: np.ndarray,
               cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
        """(priors, lapses, precisions, shifts, cuts) from the posteriors.

        With weights[w, t, c] = sum over w's labels
        equal to c of T[item, t] + eps and p_t = (sum_i T[i, t] + eps) / (n + K eps): each lapse from its cells'
        lapse shares (:meth:`lapse_step`), then one Newton step on each judge's (a_w, d_w) and one on the cuts.
        """
        k, w = self.k, self.w
        weights = (self.by_label @ post.T).reshape(w, k, k).transpose(0, 2, 1) + self.eps
        priors = (post.sum(axis=1) + self.eps) / (self.n + k * self.eps)
        if lapse is not None:
            lapse, weights = self.lapse_step(weights, lapse, precision, shift, cuts)
        precision, shift = _newton_m_step(precision, shift, weights, cuts=cuts, ridge=self.ridge)
        if self.learn_cuts:
            cuts = _newton_cut_step(precision, shift, weights, cuts, spacing=self.spacing)
        return priors, lapse, precision, shift, cuts

    def lapse_step(self, weights: np.ndarray, lapse: np.ndarray, precision: np.ndarray, shift: np.ndarray,
                   cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(l_w, the probit part's weights) from each cell's lapse share.

        Each cell's lapse share is z = (l_w / K) / P_w(c | t) at the current
        parameters, l_w = (sum weights z + lambda l_0) / (sum weights + lambda) (at most LAPSE_MAX), and the
        weights times 1 - z.
        """
        log_probit = _log_probit_confusion(precision, shift, cuts)
        with np.errstate(divide="ignore"):
            share = np.exp(np.log(lapse / self.k)[:, None, None] - _mix_lapse(log_probit, lapse))
        np.clip(share, 0.0, 1.0, out=share)
        lapse = np.minimum((np.sum(weights * share, axis=(1, 2)) + self.lapse_prior * _LAPSE_START)
                           / (weights.sum(axis=(1, 2)) + self.lapse_prior), _LAPSE_MAX)
        return lapse, weights * (1.0 - share)

    def e_step(self, log_conf: np.ndarray, log_priors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(T (K, n), log_z (n,)): score[t, i] = log p_t + sum over i's labels of log P_w(y | t), normalised over t.

        Normalised by :func:`posteriors_from_log_joint`: gold items one-hot, their log_z the joint
        log P(labels, known class).
        """
        k, w = self.k, self.w
        score = log_conf.transpose(1, 0, 2).reshape(k, w * k) @ self.by_label
        score += log_priors[:, None]
        return posteriors_from_log_joint(score, self.gold)

    def log_prior(self, log_conf: np.ndarray, log_priors: np.ndarray, precision: np.ndarray, shift: np.ndarray,
                  lapse: np.ndarray | None, cuts: np.ndarray) -> float:
        """Return the penalty.

        It holds the eps pseudo-counts, the ridge on (a_w - 1, d_w), the lapses' Beta prior, the locations'
        spacing prior (when learned).
        """
        eps = self.eps
        value = eps * (float(log_conf.sum()) + float(log_priors.sum())) if eps > 0 else 0.0
        if self.learn_cuts:
            value += _spacing_prior(cuts, self.spacing)[0]
        value -= 0.5 * self.ridge * float(np.sum((precision - 1.0) ** 2 + shift ** 2))
        if lapse is not None and self.lapse_prior > 0:
            value += self.lapse_prior * float(np.sum(_LAPSE_START * np.log(lapse)
                                                     + (1.0 - _LAPSE_START) * np.log1p(-lapse)))
        return value

    def project(self, x: np.ndarray) -> np.ndarray | None:
        """Project an extrapolated state back into the parameter space.

        The posteriors go onto their simplexes (gold items one-hot), the lapses into [0, LAPSE_MAX], (a_w, d_w)
        into the M-step's box; None when the cut points or the class locations are no longer increasing.
        """
        post, lapse, precision, shift, cuts = self.unpack(x.copy())
        if np.any(np.diff(cuts, axis=1) <= 0) or np.any(np.diff(cuts[:, 0]) >= 0):
            return None
        np.clip(post, 0.0, None, out=post)
        post /= post.sum(axis=0)
        self._pin_gold(post)
        if lapse is not None:
            np.clip(lapse, 0.0, _LAPSE_MAX, out=lapse)
        precision, shift = _clip_to_box(precision, shift, self.k)
        return self.pack(post, lapse, precision, shift, cuts)
