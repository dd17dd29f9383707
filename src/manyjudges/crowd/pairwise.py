"""Count-based baselines of Niu et al.'s Table 2: CondorcetFuse, GreedyOrder, Borda / mean grade.

All three read the topic's win matrix ``W[a, b]`` = number of judgments preferring a over
b (ties and a judge's pairs of an item with itself ignored; :meth:`TopicJudgments.win_matrix`).

- :class:`CondorcetFuse` sorts by pairwise majority (Montague and Aslam 2002);
- :class:`GreedyOrder` takes the item of largest out-weight minus in-weight, repeatedly
  (Cohen, Schapire and Singer 1999);
- :class:`Borda` is the mean grade (ratings) or the win share (preferences).
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from manyjudges.core.parameters import Options
from manyjudges.core.ranks import majority_merge_sort
from manyjudges.crowd.base import CrowdAggregator
from manyjudges.crowd.judgments import TopicJudgments


def win_tie_matrices(topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray]:
    """(W, T): wins ``W[a, b]`` and symmetric ties ``T[a, b]``, diagonal (item vs itself) zeroed.

    A judge who rated one item twice gives a pair of the item with itself (eq 5 of Niu et al.
    pairs all of a judge's ratings); such a pair says nothing about the order and is dropped.
    """
    w = topic.win_matrix()
    t = topic.tie_matrix()
    np.fill_diagonal(w, 0.0)
    np.fill_diagonal(t, 0.0)
    return w, t


def positions_to_scores(order: np.ndarray) -> np.ndarray:
    """scores[order[k]] = -k, so that ``ranking_from_scores`` gives ``order`` back."""
    order = np.asarray(order, dtype=np.int64)
    scores = np.empty(len(order))
    scores[order] = -np.arange(len(order), dtype=float)
    return scores


class CondorcetFuse(CrowdAggregator):
    """Condorcet-fuse: sort the items by pairwise majority.

    Montague, M. and Aslam, J. A. (2002). Condorcet fusion for improved retrieval. CIKM,
    538-548 (Niu et al.'s ref. [18]). Item a goes before b when ``W[a, b] > W[b, a]`` (more
    judgments prefer a over b than b over a); equal counts (including never compared) are
    a tie, which keeps item order. The sort is :func:`majority_merge_sort` over the items in
    index order (the paper uses QuickSort; merge sort also returns a Hamiltonian path of the
    majority graph, and is deterministic on cycles). Ties are not transitive, so an item can
    end above one that beats it when the two never meet in the merges (sparse judgments).
    ``scores_ = -position``.
    """

    name = "condorcet_fuse"

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, None]:
        w, _ = win_tie_matrices(topic)
        beats = (w > w.T).tolist()
        order = majority_merge_sort(list(range(topic.n_items)), beats)
        return positions_to_scores(np.asarray(order, dtype=np.int64)), None


class GreedyOrder(CrowdAggregator):
    """Greedy ordering of Cohen, Schapire and Singer (1999).

    Cohen, W. W., Schapire, R. E. and Singer, Y. (1999). Learning to order things. JAIR 10,
    243-270 (Niu et al.'s ref. [5]). With preference weights ``w(u, v)`` the potential of a
    remaining item v is

        pi(v) = sum_{u remaining} w(v, u) - sum_{u remaining} w(u, v);

    repeatedly the remaining item of largest potential is placed next (ties: smallest item
    index) and removed, which changes every other potential by ``-(w(v, t) - w(t, v))``.
    ``weights="count"``: ``w(u, v) = W[u, v]``, the number of judgments preferring u over v
    (the paper's PREF averaged over the judges, up to a constant factor: a tie or an
    unjudged pair is 1/2 each way there and cancels in pi). ``weights="share"``:
    ``w(u, v) = (W[u, v] + T[u, v] / 2) / (W[u, v] + W[v, u] + T[u, v])``, the share of the
    pair's judgments preferring u (ties half each way; 0 for a never judged pair), so
    every judged pair weighs the same. With counts an item judged more often gets a larger
    potential, so on an unbalanced design (e.g. judges rating different numbers of items)
    even noiseless judgments can come out misordered; shares avoid that when every pair is
    judged. ``scores_ = -pick position``. O(n^2).
    """

    name = "greedy_order"
    _parameter_constraints = {"weights": [Options(("count", "share"))]}

    def __init__(self, weights: Literal["count", "share"] = "count") -> None:
        self.weights = weights

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, None]:
        w, t = win_tie_matrices(topic)
        if self.weights == "share":
            total = w + w.T + t
            w = np.divide(w + t / 2, total, out=np.zeros_like(w), where=total > 0)
        net = w - w.T  # net[v, u] = w(v, u) - w(u, v)
        potential = net.sum(axis=1)
        taken = np.zeros(topic.n_items, dtype=bool)
        order = np.empty(topic.n_items, dtype=np.int64)
        for k in range(topic.n_items):
            pick = int(np.argmax(np.where(taken, -np.inf, potential)))
            order[k] = pick
            taken[pick] = True
            potential -= net[:, pick]
        return positions_to_scores(order), None


class Borda(CrowdAggregator):
    """Borda count: mean grade from ratings, else the win share of the preferences.

    Ratings (``topic.has_ratings``): the mean of the item's grades over all its ratings
    (a judge who rated the item twice counts twice), the pointwise Borda of Niu et al.'s
    Section 2 (their ref. [1]). Items without a rating (only possible for a hand-built topic) score
    the lowest mean minus 1, below every rated item (scores must be finite).

    Preferences only: ``(wins + ties / 2) / comparisons`` with wins = sum_b W[a, b],
    ties = sum_b T[a, b] and comparisons = wins + losses + ties (the expected Borda score
    per comparison); an item never compared scores 1/2.
    """

    name = "borda"

    def _fit(self, topic: TopicJudgments) -> tuple[np.ndarray, None]:
        n = topic.n_items
        if topic.has_ratings:
            assert topic.rating_item is not None and topic.rating_grade is not None  # has_ratings: both set
            count = np.bincount(topic.rating_item, minlength=n).astype(float)
            total = np.bincount(topic.rating_item, weights=topic.rating_grade.astype(float), minlength=n)
            rated = count > 0
            mean = np.divide(total, count, out=np.zeros(n), where=rated)
            if rated.any():
                mean[~rated] = mean[rated].min() - 1.0
            return mean, None
        w, t = win_tie_matrices(topic)
        wins = w.sum(axis=1) + t.sum(axis=1) / 2
        comparisons = w.sum(axis=1) + w.sum(axis=0) + t.sum(axis=1)
        return np.divide(wins, comparisons, out=np.full(n, 0.5), where=comparisons > 0), None
