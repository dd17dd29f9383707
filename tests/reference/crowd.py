"""Crowd references: the pmf of a Bernoulli sum by enumerating all 2^k outcomes, and CrowdAgg
by brute force (dense per-judge matrices, Algorithm 1 for every (judge, item))."""
from __future__ import annotations

import itertools

import numpy as np

from manyjudges.crowd.base import ranking_from_scores
from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.crowd.rank_distribution import bernoulli_sum_pmf_direct


def enumerate_pmf(q: np.ndarray) -> np.ndarray:
    """pmf of the number of successes by summing over all 2^k outcomes."""
    k = len(q)
    pmf = np.zeros(k + 1)
    for outcome in itertools.product((0, 1), repeat=k):
        x = np.array(outcome)
        pmf[int(x.sum())] += np.prod(np.where(x == 1, q, 1.0 - q))
    return pmf


def brute_pairwise(topic: TopicJudgments, pairwise: str) -> np.ndarray:
    n, m = topic.n_items, topic.n_judges
    net = np.zeros((m, n, n))
    compared = np.zeros((m, n, n), dtype=bool)
    for i, s, t, o in zip(topic.judge, topic.left, topic.right, topic.outcome):
        if o != 0:
            net[i, s, t] += o
            net[i, t, s] -= o
            compared[i, s, t] = compared[i, t, s] = True
    wins = (net > 0).sum(axis=2)
    p = np.full((m, n, n), 0.5)
    for i in range(m):
        for s in range(n):
            for t in range(n):
                if s == t or not compared[i, s, t]:
                    continue
                ns, nt = wins[i, s], wins[i, t]
                if pairwise == "margin":
                    p[i, s, t] = 0.5 + (ns - nt) / (2 * (n - 1))
                elif ns > nt:
                    p[i, s, t] = (ns - nt) / n
                elif ns < nt:
                    p[i, s, t] = 1 - (nt - ns) / n
    return p, net


def brute_scores(p: np.ndarray, eta: np.ndarray, measure: str) -> np.ndarray:
    m, n, _ = p.shape
    ranks = np.arange(n)
    f = 1 / np.log2(ranks + 2) if measure == "ndcg" else 0.05 * 0.95**ranks
    scores = np.zeros(n)
    for i in range(m):
        p_skill = eta[i] * p[i] + (1 - eta[i]) * (1 - p[i])
        for j in range(n):
            q = np.array([1 - p_skill[j, other] for other in range(n) if other != j])
            scores[j] += bernoulli_sum_pmf_direct(q) @ f
    return scores


def brute_skill(ranking: np.ndarray, net: np.ndarray) -> np.ndarray:
    m, n, _ = net.shape
    position = {item: k for k, item in enumerate(ranking)}
    eta = np.full(m, np.nan)
    for i in range(m):
        agree = total = 0
        for s in range(n):
            for t in range(n):
                if net[i, s, t] > 0:
                    total += 1
                    agree += position[s] < position[t]
        if total:
            eta[i] = agree / total
    return eta


def brute_crowdagg(topic, measure, skill, pairwise, max_iter=20):
    p, net = brute_pairwise(topic, pairwise)
    eta = np.ones(topic.n_judges)
    scores = brute_scores(p, eta, measure)
    ranking = ranking_from_scores(scores)
    if not skill:
        return scores, None, 1
    n_iter, estimate, history = 1, eta, [ranking.tolist()]
    while n_iter < max_iter:
        estimate = brute_skill(ranking, net)
        scores = brute_scores(p, np.nan_to_num(estimate, nan=1.0), measure)
        new_ranking = ranking_from_scores(scores)
        n_iter += 1
        if new_ranking.tolist() in history:  # converged (== last) or back to an earlier ranking
            break
        history.append(new_ranking.tolist())
        ranking = new_ranking
    return scores, estimate, n_iter
