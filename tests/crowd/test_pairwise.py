"""CondorcetFuse, GreedyOrder and Borda (crowd/pairwise.py): hand-computed cases and noiseless recovery."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from manyjudges.crowd.judgments import TopicJudgments, topics_from_preferences, topics_from_ratings
from manyjudges.crowd.pairwise import (
    Borda,
    CondorcetFuse,
    GreedyOrder,
    majority_merge_sort,
)

METHODS = (CondorcetFuse, GreedyOrder, lambda: GreedyOrder(weights="share"), Borda)


def topic_from(n: int, prefs: list[tuple[int, int, int]]) -> TopicJudgments:
    """A topic from (judge, left, right, outcome) rows; items d0..d{n-1}."""
    w, left, right, out = np.array(prefs, dtype=np.int64).reshape(-1, 4).T
    n_judges = int(w.max()) + 1 if len(w) else 1
    return TopicJudgments("t", np.array([f"d{i}" for i in range(n)], dtype=object),
                          np.array([f"w{k}" for k in range(n_judges)], dtype=object),
                          w, left, right, out.astype(np.int8))


def wins(*pairs: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """(winner, loser) pairs as preference rows (judge 0, left = winner, outcome +1)."""
    return [(0, a, b, 1) for a, b in pairs]


def noiseless_topic(n: int = 25, n_judges: int = 8, per_pair: int = 3, seed: int = 0
                    ) -> tuple[TopicJudgments, np.ndarray]:
    """Every pair judged by ``per_pair`` random judges, all agreeing with a hidden order.

    Returns the topic and the hidden order (item indices, best first), which is a random
    permutation, so item index order is not the truth. Left/right sides are random.
    """
    rng = np.random.default_rng(seed)
    position = rng.permutation(n)  # position[i] = true rank of item i (0 = best)
    a, b = np.triu_indices(n, k=1)
    a, b = np.repeat(a, per_pair), np.repeat(b, per_pair)
    judge = np.concatenate([rng.choice(n_judges, per_pair, replace=False) for _ in range(n * (n - 1) // 2)])
    swap = rng.random(len(a)) < 0.5
    left, right = np.where(swap, b, a), np.where(swap, a, b)
    outcome = np.where(position[left] < position[right], 1, -1).astype(np.int8)
    topic = TopicJudgments("t", np.array([f"d{i}" for i in range(n)], dtype=object),
                           np.array([f"w{k}" for k in range(n_judges)], dtype=object), judge, left, right, outcome)
    return topic, np.argsort(position)


def noiseless_ratings_topic(n: int = 25, n_judges: int = 40, per_judge: int = 12, seed: int = 1
                            ) -> tuple[TopicJudgments, np.ndarray]:
    """Each judge rates ``per_judge`` random items with grade = n - true rank (distinct, no noise).

    With ``per_judge = n`` every pair is judged by every judge (a balanced design).
    """
    rng = np.random.default_rng(seed)
    names = [f"doc{k}" for k in rng.permutation(n)]  # natural order of the names is not the truth
    grade = rng.permutation(n) + 1
    rows = [(f"w{k}", names[i], grade[i]) for k in range(n_judges)
            for i in rng.permutation(n)[:per_judge]]
    table = pd.DataFrame(rows, columns=["judge", "item", "grade"]).assign(topic="t")
    topic = topics_from_ratings(table)["t"]
    truth = {name: g for name, g in zip(names, grade)}
    true_grade = np.array([truth[name] for name in topic.items])
    return topic, np.argsort(-true_grade)


# ---------------------------------------------------------------------------
# hand-computed cases


def test_condorcet_fuse_majority_order():
    # 2 beats 0 by 2 to 1; majorities 2 > 1 > 0 > 3
    topic = topic_from(4, wins((2, 0), (2, 0), (0, 2), (1, 0), (2, 1), (0, 3), (1, 3), (2, 3)))
    fit = CondorcetFuse().fit(topic)
    assert fit.ranking_.tolist() == [2, 1, 0, 3]
    assert fit.scores_.tolist() == [-2.0, -1.0, 0.0, -3.0]
    assert fit.skills_ is None


def test_condorcet_fuse_cycle_is_deterministic():
    # 1 > 0, 2 > 1, 0 > 2: merge sort of [0 | 1, 2]: [1, 2] -> [2, 1]; merge [0] with [2, 1]:
    # 2 does not beat 0 -> 0 first, then 2, 1
    topic = topic_from(3, wins((1, 0), (2, 1), (0, 2)))
    assert CondorcetFuse().fit(topic).ranking_.tolist() == [0, 2, 1]
    # the same cycle read the other way round: 0 > 1, 1 > 2, 2 > 0 -> [1, 2] stays, 0 beats 1
    topic = topic_from(3, wins((0, 1), (1, 2), (2, 0)))
    assert CondorcetFuse().fit(topic).ranking_.tolist() == [0, 1, 2]


def test_condorcet_fuse_ties_keep_item_order():
    # 3 beats 2; 0 and 1 tied (one judgment each way); other pairs never compared:
    # [0, 1] stays, [2, 3] -> [3, 2], and neither 3 nor 2 beats 0 or 1
    topic = topic_from(4, wins((3, 2), (0, 1), (1, 0)))
    assert CondorcetFuse().fit(topic).ranking_.tolist() == [0, 1, 3, 2]
    assert CondorcetFuse().fit(topic_from(3, [])).ranking_.tolist() == [0, 1, 2]


def test_majority_merge_sort_gives_hamiltonian_path():
    rng = np.random.default_rng(3)
    n = 30
    beats = rng.random((n, n)) < 0.5
    beats = beats & ~beats.T  # a random tournament with some ties
    order = majority_merge_sort(list(range(n)), beats.tolist())
    assert sorted(order) == list(range(n))
    assert not any(beats[y, x] for x, y in itertools.pairwise(order))


def test_greedy_order_counts_by_hand():
    # W[0,1]=3, W[1,0]=1, W[1,2]=2, W[2,0]=2, W[3,0]=1, W[2,3]=1: potentials (-1, 0, 1, 0)
    # -> pick 2; then (1, -2, ., 1) -> pick 0 (tie with 3, smaller index); then (., 0, ., 0) -> 1, 3
    topic = topic_from(4, wins((0, 1), (0, 1), (0, 1), (1, 0), (1, 2), (1, 2), (2, 0), (2, 0), (3, 0), (2, 3)))
    fit = GreedyOrder().fit(topic)
    assert fit.ranking_.tolist() == [2, 0, 1, 3]
    assert fit.scores_.tolist() == [-1.0, -2.0, 0.0, -3.0]
    # shares: net(0,1) = 1/2, every other judged pair 1: potentials (-1.5, 0.5, 1, 0) -> 2;
    # then (-0.5, -0.5, ., 1) -> 3; then (0.5, -0.5) -> 0, 1
    assert GreedyOrder(weights="share").fit(topic).ranking_.tolist() == [2, 3, 0, 1]


def test_greedy_order_ties_are_neutral():
    # a tie judgment is half a win each way: it changes no potential
    base = wins((1, 0), (2, 0))
    tied = base + [(0, 1, 2, 0), (0, 2, 1, 0)]
    assert (GreedyOrder().fit(topic_from(3, base)).ranking_.tolist()
            == GreedyOrder().fit(topic_from(3, tied)).ranking_.tolist() == [1, 2, 0])
    with pytest.raises(ValueError):
        GreedyOrder(weights="votes").fit(topic_from(3, base))


def test_borda_win_share_by_hand():
    # item 0: 2 wins, 1 loss, 1 tie -> 2.5 / 4; item 1: 2 wins, 1 loss -> 2/3; item 2: 0 wins,
    # 2 losses, 1 tie -> 0.5 / 3; item 3 never compared -> 1/2; the self pair (2, 2) is ignored
    topic = topic_from(4, wins((0, 1), (0, 2), (1, 0), (1, 2), (2, 2)) + [(0, 0, 2, 0)])
    fit = Borda().fit(topic)
    np.testing.assert_allclose(fit.scores_, [2.5 / 4, 2 / 3, 0.5 / 3, 0.5])
    assert fit.ranking_.tolist() == [1, 0, 3, 2]


def test_borda_mean_grade():
    table = pd.DataFrame({"topic": "t", "judge": ["a", "a", "b", "b", "c"],
                          "item": ["x", "y", "x", "z", "z"], "grade": [2, 0, 1, 1, 2]})
    topic = topics_from_ratings(table)["t"]
    assert topic.items.tolist() == ["x", "y", "z"]
    np.testing.assert_allclose(Borda().fit(topic).scores_, [1.5, 0.0, 1.5])
    # an item without ratings (hand-built topic) goes below every rated item
    unrated = TopicJudgments("t", np.array(["x", "y", "z"], dtype=object), np.array(["a"], dtype=object),
                             *(np.zeros(0, np.int64),) * 3, np.zeros(0, np.int8),
                             rating_judge=np.array([0, 0]), rating_item=np.array([0, 2]),
                             rating_grade=np.array([3, 1]))
    np.testing.assert_allclose(Borda().fit(unrated).scores_, [3.0, 0.0, 1.0])


# ---------------------------------------------------------------------------
# noiseless crowds, determinism


@pytest.mark.parametrize("method", METHODS)
def test_noiseless_preferences_recover_hidden_order(method):
    topic, order = noiseless_topic()
    assert not np.array_equal(order, np.arange(topic.n_items))
    assert method().fit(topic).ranking_.tolist() == order.tolist()


@pytest.mark.parametrize("method", METHODS)
def test_noiseless_ratings_recover_hidden_order(method):
    topic, order = noiseless_ratings_topic(n_judges=6, per_judge=25)  # balanced: all rate all
    assert topic.has_ratings
    assert method().fit(topic).ranking_.tolist() == order.tolist()


@pytest.mark.parametrize("method", (CondorcetFuse, lambda: GreedyOrder(weights="share"), Borda))
def test_noiseless_unbalanced_ratings_recover_hidden_order(method):
    # each judge rates 12 of 25 items (every pair co-rated, by different numbers of judges)
    topic, order = noiseless_ratings_topic()
    assert method().fit(topic).ranking_.tolist() == order.tolist()


def test_greedy_order_counts_favour_often_judged_items():
    # the same unbalanced noiseless ratings: count weights reward items judged more often
    # (the potential sums judgments, not pairs), so the order is not recovered; shares are
    topic, order = noiseless_ratings_topic()
    assert GreedyOrder().fit(topic).ranking_.tolist() != order.tolist()


@pytest.mark.parametrize("method", METHODS)
def test_deterministic_on_noisy_data(method):
    topic, _ = noiseless_topic(n=20, seed=5)
    rng = np.random.default_rng(5)
    flip = rng.random(len(topic.outcome)) < 0.3
    noisy = TopicJudgments(topic.topic, topic.items, topic.judges, topic.judge, topic.left, topic.right,
                           np.where(flip, -topic.outcome, topic.outcome).astype(np.int8))
    first, second = method().fit(noisy), method().fit(noisy)
    assert np.array_equal(first.scores_, second.scores_)
    assert sorted(first.ranking_.tolist()) == list(range(noisy.n_items))


def test_strict_preferences_are_computed_once_and_read_only():
    topic = topics_from_preferences(pd.DataFrame(
        [("t", "w1", "a", "b", "left"), ("t", "w1", "b", "c", "tie"), ("t", "w2", "c", "a", "right")],
        columns=["topic", "judge", "left", "right", "outcome"]))["t"]
    judge, win, lose = topic.strict()
    assert topic.strict()[1] is win and not win.flags.writeable
    assert judge.tolist() == [0, 1] and win.tolist() == [0, 0] and lose.tolist() == [1, 2]
