"""CrowdAgg: listwise rank aggregation by expected ranking measures (Niu et al., WSDM 2015, s.4-5).

For annotator i (docs/methods.md, crowd section, which wins over the paper):

- ``N_i(x)``: the number of contests x wins among i's strict preferences (eq 7; ties are
  the paper's Null).
- ``p_st`` (s above t), ``margin`` reading (default):
  ``1/2 + (N_i(s) - N_i(t)) / (2 (n - 1))`` when i compared s and t, else ``1/2``;
  ``paper_literal``: eq (6) as printed, ``(N_s - N_t)/n`` if ``N_s > N_t``,
  ``1 - (N_t - N_s)/n`` if ``N_s < N_t``, ``1/2`` if equal or not compared.
- skill (eq 9): ``p'_st = eta_i p_st + (1 - eta_i)(1 - p_st)``.
- rank of j (eq 12, 0-based): ``r = sum_{l != j} Bernoulli(1 - p'_jl)``.
- ``F(j) = sum_i E f(r_ij)``, ``f(r) = 1/log2(r + 2)`` (NDCG) or ``(1 - p) p^r`` (RBP);
  ranking = F descending (Algorithm 3: rearrangement inequality).
- alternate (s.5.4): ``eta = 1`` -> ranking -> ``eta_i`` = share of i's preferences that
  agree with it (eq 17) -> ... until the ranking stops changing or ``max_iter``.

Repeated statements of one pair by one judge (**reading**): the pair is *compared* when
the judge gave at least one strict preference on it, and it counts once, in its net
direction (sign of wins minus losses): eq (7) and eq (17) sum over item pairs, so each pair
is one term. ``N_i(x)`` counts the opponents x beats on net (so ``N_i <= n - 1`` and the
margin ``p`` stays in [0, 1]); eq (17) counts the pairs with a net direction. A pair with as
many wins as losses is compared (its ``p_st`` comes from the ``N`` formula, not the 1/2 of an
uncompared pair) but wins for neither side and is left out of eq (17).

Fast path (exact, no per-judge n x n matrices):

1. ``p'_jl - 1/2 = (2 eta_i - 1)(p_jl - 1/2)``, so every l that i did not compare with j,
   or compared with ``p_jl = 1/2``, gives a fair coin. With ``c`` the number of other l,
   ``r = R_c + B``, ``R_c`` the sum of the ``c`` informative Bernoullis and
   ``B ~ Binomial(n - 1 - c, 1/2)`` independent of it.
2. ``E f(R_c + B) = sum_r P(R_c = r) g_c(r)`` with ``g_c(r) = E f(r + B)``: one table
   per topic, by a Pascal recursion on the fair coins (:func:`_g_table`).
3. The pmfs of ``R_c`` for all (judge, item) rows with ``c >= 1`` come from
   :func:`~manyjudges.crowd.rank_distribution.bernoulli_sum_pmf` (Algorithm 2, FFT divide
   and conquer), one batched call per bucket of rows with the same padded length (``c``
   rounded up to a power of two; padding factors are ``[1, 0]``).
4. A row with ``c = 0`` (e.g. an item the judge never compared) contributes the constant
   ``g_0(0) = E f(Binomial(n - 1, 1/2))``, added for every (judge, item).

The bucket layout and the ``g`` weights depend only on the data; each iteration refills the
``q`` values from the new ``eta`` and reruns step 3.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from manyjudges.core.parameters import BOOLEAN, Interval, Options
from manyjudges.crowd.base import CrowdAggregator, ranking_from_scores
from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.crowd.rank_distribution import bernoulli_sum_pmf

MEASURES = ("ndcg", "rbp")
PAIRWISE = ("margin", "paper_literal")


def utility(r: np.ndarray, measure: str, rbp_p: float = 0.95) -> np.ndarray:
    """``f(r)`` at 0-based rank r: ``1 / log2(r + 2)`` (ndcg) or ``(1 - p) p^r`` (rbp).

    Table 1 of Niu et al.; docs/methods.md (crowd section).
    """
    r = np.asarray(r, dtype=float)
    if measure == "ndcg":
        return 1.0 / np.log2(r + 2.0)
    if measure == "rbp":
        return (1.0 - rbp_p) * rbp_p**r
    raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")


def pairwise_probability(n_s: np.ndarray, n_t: np.ndarray, n: int, pairwise: str) -> np.ndarray:
    """``p_st`` for compared pairs from the win counts ``N_i(s)``, ``N_i(t)`` (docs/methods.md, crowd section; eq 6).

    margin: ``1/2 + (N_s - N_t) / (2 (n - 1))``; paper_literal: ``(N_s - N_t)/n`` if
    ``N_s > N_t``, ``1 - (N_t - N_s)/n`` if ``N_s < N_t``, ``1/2`` if equal.
    """
    diff = np.asarray(n_s, dtype=float) - np.asarray(n_t, dtype=float)
    if pairwise == "margin":
        return 0.5 + diff / (2.0 * max(n - 1, 1))
    if pairwise == "paper_literal":
        return np.where(diff > 0, diff / n, np.where(diff < 0, 1.0 + diff / n, 0.5))
    raise ValueError(f"pairwise must be one of {PAIRWISE}, got {pairwise!r}")


def net_pairs(topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each judge's strictly judged pairs, once: ``(judge, a, b, net)`` with ``a < b``.

    ``net`` = (judgments preferring a) - (judgments preferring b); ties are ignored.
    """
    n = topic.n_items
    w, win, lose = topic.strict()
    a, b = np.minimum(win, lose), np.maximum(win, lose)
    key = (w.astype(np.int64) * n + a) * n + b
    keys, inverse = np.unique(key, return_inverse=True)
    net = np.bincount(inverse, weights=np.where(win == a, 1.0, -1.0), minlength=len(keys)).astype(np.int64)
    return keys // (n * n), (keys // n) % n, keys % n, net


def win_counts(n_judges: int, n_items: int, judge: np.ndarray, a: np.ndarray, b: np.ndarray,
               net: np.ndarray) -> np.ndarray:
    """(m, n) ``N_i(x)`` (eq 7): the number of pairs judge i judged with x the net winner."""
    decided = net != 0
    winner = np.where(net > 0, a, b)[decided]
    counts = np.bincount(judge[decided] * n_items + winner, minlength=n_judges * n_items)
    return counts.reshape(n_judges, n_items).astype(float)


def agreement_skill(ranking: np.ndarray, n_judges: int, judge: np.ndarray, a: np.ndarray,
                      b: np.ndarray, net: np.ndarray) -> np.ndarray:
    """Eq (17): per judge, the share of net-directed pairs ordered as in ``ranking``; NaN if none."""
    position = np.empty(len(ranking), dtype=np.int64)
    position[ranking] = np.arange(len(ranking))
    decided = net != 0
    winner = np.where(net > 0, a, b)[decided]
    loser = np.where(net > 0, b, a)[decided]
    agree = (position[winner] < position[loser]).astype(float)
    total = np.bincount(judge[decided], minlength=n_judges).astype(float)
    hits = np.bincount(judge[decided], weights=agree, minlength=n_judges)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, hits / np.maximum(total, 1.0), np.nan)


def _g_table(n: int, width: int, measure: str, rbp_p: float) -> np.ndarray:
    """``G[m, r] = E f(r + Binomial(m, 1/2))`` for ``m = 0 .. n - 1``, ``r = 0 .. width - 1``.

    Pascal recursion on the fair coins: ``G[0] = f`` and
    ``E f(r + B_m) = (E f(r + B_(m-1)) + E f(r + 1 + B_(m-1))) / 2``; O(n (n + width)).
    """
    h = utility(np.arange(width + n - 1), measure, rbp_p)
    table = np.empty((n, width))
    table[0] = h[:width]
    for m in range(1, n):
        h = 0.5 * (h[:-1] + h[1:])
        table[m] = h[:width]
    return table


@dataclass(frozen=True)
class _Bucket:
    """Rows (judge, item) whose number ``c`` of informative opponents pads to ``width``."""

    item: np.ndarray  # (rows,) item of each row
    slot: np.ndarray  # (edges,) flat index row * width + position into the (rows, width) q array
    edge: np.ndarray  # (edges,) index into the topic's directed-edge arrays
    width: int
    weights: np.ndarray  # (rows, width + 1): g_c(r) of each row's own c


@dataclass(frozen=True)
class _Layout:
    """The eta-independent structure of one topic for the fast path."""

    edge_judge: np.ndarray  # (E,) judge of each directed edge (j, l)
    edge_dev: np.ndarray  # (E,) p_jl - 1/2 (never 0)
    buckets: list[_Bucket]
    constant: float  # E f(Binomial(n - 1, 1/2)): the value of a row with c = 0


def _layout(topic: TopicJudgments, judge: np.ndarray, a: np.ndarray, b: np.ndarray, net: np.ndarray,
            measure: str, pairwise: str, rbp_p: float) -> _Layout:
    n, m = topic.n_items, topic.n_judges
    wins = win_counts(m, n, judge, a, b, net)
    dev_ab = pairwise_probability(wins[judge, a], wins[judge, b], n, pairwise) - 0.5
    keep = dev_ab != 0
    w, a, b, dev_ab = judge[keep], a[keep], b[keep], dev_ab[keep]
    # directed edges: row (w, j) holds the Bernoulli of opponent l; p_ba - 1/2 = -(p_ab - 1/2)
    edge_judge = np.concatenate([w, w])
    edge_item = np.concatenate([a, b])
    edge_dev = np.concatenate([dev_ab, -dev_ab])
    row_key = edge_judge * n + edge_item
    order = np.argsort(row_key, kind="stable")
    rows, starts, counts = np.unique(row_key[order], return_index=True, return_counts=True)
    position = np.arange(len(order)) - np.repeat(starts, counts)
    widths = 1 << np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    g = _g_table(n, int(widths.max(initial=1)) + 1, measure, rbp_p)  # row n - 1 - c serves c
    constant = float(g[n - 1, 0])
    row_of_edge = np.repeat(np.arange(len(rows)), counts)
    buckets = []
    for width in np.unique(widths):
        sel = np.flatnonzero(widths == width)
        local = np.full(len(rows), -1)
        local[sel] = np.arange(len(sel))
        edge_sel = np.flatnonzero(widths[row_of_edge] == width)
        buckets.append(_Bucket(
            item=rows[sel] % n,
            slot=local[row_of_edge[edge_sel]] * int(width) + position[edge_sel],
            edge=order[edge_sel], width=int(width),
            weights=g[n - 1 - counts[sel], : int(width) + 1],
        ))
    return _Layout(edge_judge=edge_judge, edge_dev=edge_dev, buckets=buckets, constant=constant)


def _scores(layout: _Layout, eta: np.ndarray, n_items: int, n_judges: int) -> np.ndarray:
    """``F(j) = sum_i E f(r_ij)`` (Algorithm 3 line 1) for skills ``eta``."""
    q = 0.5 - (2.0 * eta[layout.edge_judge] - 1.0) * layout.edge_dev  # 1 - p'_jl, eq (9)
    scores = np.full(n_items, n_judges * layout.constant)
    for bucket in layout.buckets:
        qb = np.zeros((len(bucket.item), bucket.width))
        qb.ravel()[bucket.slot] = q[bucket.edge]
        value = np.einsum("rk,rk->r", bernoulli_sum_pmf(qb), bucket.weights)
        scores += np.bincount(bucket.item, weights=value - layout.constant, minlength=n_items)
    return scores


class CrowdAgg(CrowdAggregator):
    """CrowdAgg (Niu et al. 2015, s.5.4) with the readings of docs/methods.md (crowd section).

    Parameters
    ----------
    measure : {"ndcg", "rbp"}
        ``"ndcg"`` (CrowdAgg_NDCG) or ``"rbp"`` (CrowdAgg_RBP).
    skill : bool
        Estimate annotator skill by alternating (eq 17); False gives the "-eq" variants: eta = 1, a
        single pass, ``skills_ = None``.
    pairwise : {"margin", "paper_literal"}
        ``"margin"`` (default) or ``"paper_literal"`` (eq 6 as printed).
    rbp_p : float
        RBP persistence p.
    max_iter : int
        Cap on the number of passes (score computations).

    Attributes
    ----------
    scores_ : numpy.ndarray, shape (n,)
        Final F.
    skills_ : numpy.ndarray, shape (m,), or None
        The eta used for ``scores_`` (= eq 17 of the final ranking when converged; NaN for a judge
        with no net-directed pair), or None.
    n_iter_ : int
        Number of passes (computations of F).
    converged_ : bool
        The ranking repeated.
    cycle_ : bool
        The alternation returned to an earlier ranking (not the last one): it stops at the first
        repeat, so the result does not depend on ``max_iter`` (seen on 1 of 11 mirex2005 and 6 of
        100 trec_rf10 topics: 2-cycles between two rankings).
    """

    name = "crowdagg"
    _parameter_constraints = {
        "measure": [Options(MEASURES)],
        "skill": [BOOLEAN],
        "pairwise": [Options(PAIRWISE)],
        "rbp_p": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(self, measure: str = "ndcg", skill: bool = True, pairwise: str = "margin",
                 rbp_p: float = 0.95, max_iter: int = 20) -> None:
        self.measure, self.skill, self.pairwise = measure, skill, pairwise
        self.rbp_p, self.max_iter = rbp_p, max_iter

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray | None]:
        n, m = topic.n_items, topic.n_judges
        judge, a, b, net = net_pairs(topic)
        layout = _layout(topic, judge, a, b, net, self.measure, self.pairwise, self.rbp_p)
        eta = np.ones(m)
        scores = _scores(layout, eta, n, m)
        ranking = ranking_from_scores(scores)
        self.n_iter_, self.converged_, self.cycle_ = 1, not self.skill, False
        if not self.skill:
            return scores, None
        estimate = eta
        seen = {ranking.tobytes()}
        while self.n_iter_ < self.max_iter:
            estimate = agreement_skill(ranking, m, judge, a, b, net)
            eta = np.where(np.isnan(estimate), 1.0, estimate)  # no pair: every p is 1/2, eta is moot
            scores = _scores(layout, eta, n, m)
            new_ranking = ranking_from_scores(scores)
            self.n_iter_ += 1
            if np.array_equal(new_ranking, ranking):
                self.converged_ = True
                break
            if new_ranking.tobytes() in seen:
                # the alternation entered a cycle (e.g. two rankings whose eta give each other):
                # stop at its first repeat, so the result does not depend on max_iter
                self.cycle_ = True
                break
            seen.add(new_ranking.tobytes())
            ranking = new_ranking
        if self.n_iter_ == 1:  # max_iter == 1: the single pass used eta = 1
            estimate = np.where(np.isnan(agreement_skill(ranking, m, judge, a, b, net)), np.nan, 1.0)
        return scores, estimate
