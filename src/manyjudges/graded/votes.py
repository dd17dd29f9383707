"""Methods M1, M2, M3 and M23 of Wilbur and Kim: smoothed (weighted) votes of the training judges.

All four predict an unseen judge's label distribution on item dp as

    P(c | dp) = (1 - tau) * sum_s u_s V_s(c) / sum_s u_s + tau * pi_c

over the training judges' labels s on dp (docs/methods.md, graded section), where pi is the background
prior and the votes differ:

- M1: u_s = 1, V_s = one-hot(z_s): the share of training judges who said c.
- M2: u_s = w_j (one weight per judge), V_s = one-hot(z_s).
- M3: u_s = v_{j, z_s} (one weight per judge and label), V_s = D_{j, z_s}, the distribution
  of what another training judge says on the items where judge j said z_s.
- M23: the M2 and M3 votes of every label in one mixture.

Weights are exp(theta) and theta is fitted by maximising the log-probability of every
training judge i's labels predicted from the other training judges (the cross-induction
objective, eq. 5, with i as the held-out training judge), with analytic gradients
(L-BFGS-B, :func:`manyjudges.core.solvers.lbfgsb`). tau is M1's, chosen the same way. Neither D nor
pi ever sees the judge being predicted: inside the objective both are recomputed without judge i (by subtracting i's
own counts). An item no other training judge labelled is predicted by pi alone.

Computation (:class:`Votes`): a label vote's sums over an item are the item's totals minus
the target's own vote, O(labels) per evaluation; co-occurrence votes, whose value depends on
the target's judge, are the rows of one sparse matrix (one non-zero per pair of labels on an
item), so their weighted sums and the gradient's are one sparse product each.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from scipy import sparse

from manyjudges.core.parameters import BOOLEAN, Interval, invalid
from manyjudges.core.solvers import LbfgsbTolerances, lbfgsb_fit
from manyjudges.graded.base import GradedMethod, best_smoothing, log_probability
from manyjudges.graded.panel import GradedPanel, background_prior, prior_without_own

#: bounds on the log-weights theta (exp(+-15) spans every useful weight ratio, no overflow)
THETA_BOUND = 15.0
#: a weak ridge (rho / 2) ||theta||^2 on the log-weights (our choice; the paper states none).
#: The weights' common scale cancels in every prediction, so without it the objective is flat
#: along that direction, and the weights of rarely used labels drift towards 0 or infinity:
#: L-BFGS then needs thousands of evaluations. With rho = 0.1 (a N(0, 10) prior on each
#: log-weight) M23 converges in a few hundred evaluations, within about 10 nats of the
#: unpenalised optimum on 60,000 labels (measured on sim_medline).
THETA_RIDGE = 0.1
#: L-BFGS-B settings for the weight fits, run to a stationary point: a fit stops when the largest entry
#: of the projected gradient, each log-weight's scaled by :meth:`Votes.scale` (1 / sqrt(1 + the
#: predictions its votes enter)), is below ``gtol``, or when no step lowers the objective at all
#: (``ftol`` 0: it is at its rounding floor, a sum over thousands of log probabilities); never on a
#: relative reduction, which flat directions make small long before the gradient is
LBFGS_OPTIONS: LbfgsbTolerances = {"ftol": 0.0, "gtol": 1e-5}
#: iteration cap of the weight fits: far above what they need on the panels measured (at most a few
#: hundred); a fit that reaches it is counted (:meth:`GradedMethod.record_fit`) and reported
MAX_ITER = 5000


def item_pairs(panel: GradedPanel) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (t, s) of distinct entries on the same item, as entry indices."""
    order = np.argsort(panel.item, kind="stable")
    item_sorted = panel.item[order]
    counts = np.bincount(item_sorted, minlength=panel.n_items)
    starts = np.cumsum(counts) - counts
    per_entry = counts[item_sorted]
    t_rep = np.repeat(np.arange(len(order)), per_entry)
    offsets = np.arange(per_entry.sum()) - np.repeat(np.cumsum(per_entry) - per_entry, per_entry)
    s_rep = starts[item_sorted][t_rep] + offsets
    keep = s_rep != t_rep
    return order[t_rep[keep]], order[s_rep[keep]]


def label_counts(panel: GradedPanel) -> np.ndarray:
    """(items x K) number of the panel's labels of each value on each item."""
    k = panel.n_classes
    return np.bincount(panel.item * k + panel.label, minlength=panel.n_items * k).reshape(panel.n_items, k)


def share_of_others(panel: GradedPanel) -> tuple[np.ndarray, np.ndarray]:
    """Per entry: share of the other labels on its item equal to its own, and whether any exist."""
    per_label = label_counts(panel)
    n = per_label.sum(1)
    others = n[panel.item] - 1
    same = per_label[panel.item, panel.label] - 1
    has = others > 0
    return np.where(has, same / np.maximum(others, 1), 0.0), has


def vote_shares(panel: GradedPanel) -> tuple[np.ndarray, np.ndarray]:
    """(items x K) share of the panel's labels on each item, and which items have labels."""
    per_label = label_counts(panel)
    n = per_label.sum(1, keepdims=True).astype(float)
    return per_label / np.maximum(n, 1), n[:, 0] > 0


class M1(GradedMethod):
    """M1: P(c | dp) = (1 - tau) n_c(dp) / n(dp) + tau pi_c (Wilbur and Kim, method M1)."""

    name = "m1"
    single_parameter = "tau"
    single_parameter_bounds = (0.01, 0.99)

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Choose ``tau`` by cross induction: each training label predicted from the other judges' shares."""
        share, has = share_of_others(train)
        prior = prior_without_own(train)[np.arange(train.n_entries), train.label]
        return {"tau": best_smoothing(share, has, prior)}

    def prepare(self, train: GradedPanel) -> Any:
        """Return the vote shares per item, which items have votes, and the background prior."""
        shares, has = vote_shares(train)
        return shares, has, background_prior(train)

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """Return (n_items x K) the vote shares smoothed towards the prior by ``tau``; the prior without votes."""
        shares, has, prior = state
        tau = float(params["tau"])
        return np.where(has[:, None], (1 - tau) * shares + tau * prior[None, :], prior[None, :])


@dataclass(frozen=True)
class Votes:
    """The leave-one-judge-out objective's data on a training panel, per target entry t (E of them).

    Label votes reduce to item sums: the votes on t are every other label s on t's item, so
    sum_{s != t} w_{j_s} [z_s = z_t] = S[d_t, z_t] - w_{j_t} and sum_{s != t} w_{j_s} = S[d_t] - w_{j_t},
    with S the item totals of w (O(E) per evaluation, no pair list). Co-occurrence votes depend
    on the pair (their value D^(-j_t)_{j_s, z_s}(z_t) leaves the target's judge out), so they are
    the rows of a sparse matrix ``cooc`` (E x n_params, one non-zero per pair): their weighted
    sum is one sparse product.
    """

    item: np.ndarray            # (E,) the target's item
    label: np.ndarray           # (E,) the target's label
    n_items: int
    n_classes: int
    judge_param: np.ndarray | None  # (E,) index of w_{j_t} in theta (label votes), or None
    cooc_param: np.ndarray | None   # (E,) index of v_{j_t, z_t} in theta (co-occurrence votes), or None
    cooc: sparse.csr_matrix | None  # (E x n_params) D^(-j_t)_{j_s, z_s}(z_t) at column v_{j_s, z_s}
    cooc_t: sparse.csc_matrix | None  # its transpose (a view), for the gradient
    prior: np.ndarray           # (E,) pi^(-i) of each target's label
    has_votes: np.ndarray       # (E,) whether any other training judge labelled the target's item
    n_params: int
    vote_counts: np.ndarray     # (n_params,) how many (target, vote) pairs each weight's votes are in

    def scale(self) -> np.ndarray:
        """Return the fit's diagonal preconditioner, 1 / sqrt(1 + pairs) per weight.

        The objective's curvature along a log-weight grows with the predictions its votes enter (a judge
        with 10,000 labels and one with 10 differ a thousandfold), so scaled, L-BFGS-B takes comparable
        steps in all of them.
        """
        return 1.0 / np.sqrt(1.0 + self.vote_counts)

    def item_sum(self, x: np.ndarray) -> np.ndarray:
        """(n_items,) sum of ``x`` over each item's entries."""
        return np.bincount(self.item, x, minlength=self.n_items)

    def item_label_sum(self, x: np.ndarray) -> np.ndarray:
        """(n_items * K,) sum of ``x`` over each item's entries of each label, flat index item * K + label."""
        return np.bincount(self.item * self.n_classes + self.label, x, minlength=self.n_items * self.n_classes)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return per target t (sum_s x_s V_s(z_t), sum_s x_s) over its votes s.

        The weights ``x`` are (n_params,), not logs.
        """
        num = np.zeros(len(self.item))
        den = np.zeros(len(self.item))
        if self.judge_param is not None:
            u = x[self.judge_param]
            num += self.item_label_sum(u)[self.item * self.n_classes + self.label] - u
            den += self.item_sum(u)[self.item] - u
        if self.cooc is not None:
            v = x[self.cooc_param]
            num += self.cooc @ x
            den += self.item_sum(v)[self.item] - v
        return num, den

    def backward(self, y_num: np.ndarray, y_den: np.ndarray) -> np.ndarray:
        """Apply the transpose of :meth:`forward`, shape (n_params,).

        Per weight a: the sum over its votes s and their targets t of y_num[t] V_s(z_t) + y_den[t].
        """
        others = self.item_sum(y_den)[self.item] - y_den      # sum of y_den over the other targets on the item
        out = np.zeros(self.n_params)
        if self.judge_param is not None:
            same = self.item_label_sum(y_num)[self.item * self.n_classes + self.label] - y_num
            out += np.bincount(self.judge_param, same + others, minlength=self.n_params)
        if self.cooc is not None:
            assert self.cooc_param is not None  # set with cooc (WeightedVotes._votes)
            out += self.cooc_t @ y_num + np.bincount(self.cooc_param, others, minlength=self.n_params)
        return out


def cooccurrence(panel: GradedPanel) -> np.ndarray:
    """C[j, c, c']: over items, judge j said c and another judge said c' (pairs counted).

    Without listing the pairs: an entry of judge j with label c on item dp adds the item's count
    of each label c', less its own label, to C[j, c, :] (O(labels x K)).
    """
    k, J = panel.n_classes, panel.n_judges
    others = label_counts(panel)[panel.item] - (panel.label[:, None] == np.arange(k))
    vote = panel.judge * k + panel.label
    return np.stack([np.bincount(vote, others[:, c], minlength=J * k) for c in range(k)], axis=1).reshape(J, k, k)


def conditional_distributions(panel: GradedPanel) -> np.ndarray:
    """D[j, c, :] = P(another judge says . | judge j said c) on this panel (pi where j never said c)."""
    counts = cooccurrence(panel)
    rows = counts.sum(2, keepdims=True)
    prior = background_prior(panel)
    return np.where(rows > 0, counts / np.maximum(rows, 1), prior[None, None, :])


#: largest judge x judge x label x label table counted densely (else by sorting the pair keys)
DENSE_PAIR_TABLE = 1 << 27


def _count_of_each(key: np.ndarray, size: int) -> np.ndarray:
    """For every element of ``key`` (ints in 0..size-1), how often its value occurs in ``key``."""
    if size <= DENSE_PAIR_TABLE:
        return np.bincount(key, minlength=size)[key]
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return counts[inverse]


def _cooc_values_without_target(panel: GradedPanel, t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """D^(-i)_{j_s, z_s}(z_t) for every pair: D recomputed without the target's judge i."""
    k, J = panel.n_classes, panel.n_judges
    zt = panel.label[t]
    vote = panel.judge[s] * k + panel.label[s]       # (j_s, z_s), flat
    cell = vote * k + zt                             # C[j_s, z_s, z_t] (:func:`cooccurrence`), flat
    counts = np.bincount(cell, minlength=J * k * k).astype(float)
    rows = counts.reshape(J * k, k).sum(1)
    # co-occurrences of (j_s said z_s, i said z_t) and of (j_s said z_s, i said anything)
    row_key = vote * J + panel.judge[t]
    pair_count = _count_of_each(row_key * k + zt, J * J * k * k)
    pair_rows = _count_of_each(row_key, J * J * k)
    num = counts[cell] - pair_count
    den = rows[vote] - pair_rows
    prior_t = prior_without_own(panel).ravel()[t * k + zt]
    return np.where(den > 0, num / np.maximum(den, 1), prior_t)


class _VotesObjective:
    """f(theta) = -sum_t log p_t + (rho / 2) ||theta||^2 and its gradient.

    With w = exp(theta), N_t = sum_s w_s V_s(z_t) and D_t = sum_s w_s over target t's votes s (both
    linear in w, :meth:`Votes.forward`), q_t = N_t / D_t and p_t = (1 - tau) q_t + tau pi_t:

        d f / d theta_x = -w_x r_x + rho theta_x,   r_x = sum over the votes s of weight x and their
        targets t of a_t (V_s(z_t) - q_t),   a_t = (1 - tau) / (p_t D_t)

    (r is :meth:`Votes.backward` of (a, -a q)). Targets without votes (p_t = pi_t) do not depend
    on theta.
    """

    def __init__(self, votes: Votes, tau: float):
        self.votes, self.tau = votes, float(tau)
        self._every_target_has_votes = bool(votes.has_votes.all())

    def value_and_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        votes, tau = self.votes, self.tau
        w = np.exp(theta)
        num, den = votes.forward(w)
        if self._every_target_has_votes:   # the same numbers as the masked branch, without the masks
            q = num / den
            p = (1 - tau) * q + tau * votes.prior
            a = (1 - tau) / (p * den)
        else:
            has = votes.has_votes
            safe_den = np.where(has, den, 1.0)
            q = np.where(has, num / safe_den, 0.0)
            p = np.where(has, (1 - tau) * q + tau * votes.prior, votes.prior)
            a = np.where(has, (1 - tau) / (p * safe_den), 0.0)
        f = -float(log_probability(p).sum()) + 0.5 * THETA_RIDGE * float(theta @ theta)
        return f, -w * votes.backward(a, -a * q) + THETA_RIDGE * theta


class WeightedVotes(GradedMethod):
    """M2 (``label_votes``), M3 (``cooccurrence_votes``) or M23 (both), weights fitted by L-BFGS."""

    name = "weighted_votes"
    _parameter_constraints = {"label_votes": [BOOLEAN], "cooccurrence_votes": [BOOLEAN],
                              "max_iter": [Interval(Integral, 1, None)]}

    def __init__(self, label_votes: bool = True, cooccurrence_votes: bool = False, max_iter: int = MAX_ITER):
        self.label_votes, self.cooccurrence_votes, self.max_iter = label_votes, cooccurrence_votes, max_iter

    def _check_params(self) -> None:
        """Check the declared constraints, then that some votes are on."""
        super()._check_params()
        if not (self.label_votes or self.cooccurrence_votes):
            raise invalid(type(self).__name__, "cooccurrence_votes", "true when label_votes is false",
                          self.cooccurrence_votes)

    # parameter layout: [w_j for each judge] then [v_{j,c} for each judge and label]
    def _n_params(self, panel: GradedPanel) -> int:
        return panel.n_judges * (self.label_votes + self.cooccurrence_votes * panel.n_classes)

    def _votes(self, train: GradedPanel) -> Votes:
        J, k, E = train.n_judges, train.n_classes, train.n_entries
        n_params = self._n_params(train)
        judge_param = train.judge if self.label_votes else None
        cooc_param = cooc = cooc_t = None
        if self.cooccurrence_votes:
            t, s = item_pairs(train)
            cooc_param = J * self.label_votes + train.judge * k + train.label
            cooc = sparse.csr_matrix((_cooc_values_without_target(train, t, s), (t, cooc_param[s])),
                                     shape=(E, n_params))
            # the transpose as a CSC view: its product scatter-adds row by row, which sums each
            # column's terms in the same order as a CSR copy would, without a second copy in memory
            cooc_t = cooc.T
        prior = prior_without_own(train)[np.arange(E), train.label]
        others = np.bincount(train.item, minlength=train.n_items)[train.item] - 1   # each label votes for these
        counts = np.zeros(n_params)
        for param in (judge_param, cooc_param):
            if param is not None:
                counts += np.bincount(param, others, minlength=n_params)
        return Votes(train.item, train.label, train.n_items, k, judge_param, cooc_param, cooc, cooc_t, prior,
                     others > 0, n_params, counts)

    @staticmethod
    def objective(theta: np.ndarray, votes: Votes, tau: float) -> tuple[float, np.ndarray]:
        """Minus the leave-one-judge-out log-probability (plus the tiny ridge), and its gradient."""
        return _VotesObjective(votes, tau).value_and_gradient(theta)

    def choose_parameters(self, train: GradedPanel) -> dict[str, Any]:
        """Choose ``tau`` as M1 does, then the log-weights theta by L-BFGS-B on the leave-one-judge-out objective."""
        tau = M1().choose_parameters(train)["tau"]
        votes = self._votes(train)
        theta0 = np.zeros(votes.n_params)
        fit = lbfgsb_fit(_VotesObjective(votes, tau).value_and_gradient, theta0,
                         bounds=[(-THETA_BOUND, THETA_BOUND)] * votes.n_params, maxiter=self.max_iter,
                         maxfun=4 * self.max_iter, scale=votes.scale(), **LBFGS_OPTIONS)
        self.record_fit(fit.converged)
        return {"tau": tau, "theta": fit.x}

    def prepare(self, train: GradedPanel) -> Any:
        """Return the panel and, with co-occurrence votes, its conditional distributions D."""
        return train, (conditional_distributions(train) if self.cooccurrence_votes else None)

    def predict(self, state: Any, params: dict[str, Any]) -> np.ndarray:
        """Return (n_items x K) the weighted votes' shares smoothed towards the prior by ``tau``."""
        train, cond = state
        J, k = train.n_judges, train.n_classes
        theta, tau = np.asarray(params["theta"]), float(params["tau"])
        w = np.exp(theta)
        num = np.zeros((train.n_items, k))
        den = np.zeros(train.n_items)
        if self.label_votes:
            u = w[train.judge]
            num += np.bincount(train.item * k + train.label, u, minlength=train.n_items * k).reshape(-1, k)
            den += np.bincount(train.item, u, minlength=train.n_items)
        if self.cooccurrence_votes:
            u = w[J * self.label_votes + train.judge * k + train.label]
            dist = cond[train.judge, train.label]  # (E, K)
            for c in range(k):
                num[:, c] += np.bincount(train.item, u * dist[:, c], minlength=train.n_items)
            den += np.bincount(train.item, u, minlength=train.n_items)
        prior = background_prior(train)
        has = den > 0
        shares = num / np.where(has, den, 1.0)[:, None]
        return np.where(has[:, None], (1 - tau) * shares + tau * prior[None, :], prior[None, :])
