"""BradleyTerry and CrowdBT (crowd/bradley_terry.py): choix agreement, gradients, noiseless recovery, bad judges."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.pairwise.bradley_terry import bt_hessian, bt_objective, pair_counts
from manyjudges.core.pairwise.crowd_bt import crowd_bt_objective
from manyjudges.crowd.bradley_terry import BradleyTerry, CrowdBT
from manyjudges.crowd.judgments import TopicJudgments, topics_from_ratings

choix = pytest.importorskip("choix")

METHODS = (BradleyTerry, lambda: BradleyTerry(solver="lbfgs"), CrowdBT, lambda: CrowdBT(skill=False))


def make_topic(n: int, judge: np.ndarray, left: np.ndarray, right: np.ndarray, outcome: np.ndarray,
               n_judges: int | None = None) -> TopicJudgments:
    n_judges = int(judge.max()) + 1 if n_judges is None else n_judges
    return TopicJudgments("t", np.array([f"d{i}" for i in range(n)], dtype=object),
                          np.array([f"w{k}" for k in range(n_judges)], dtype=object),
                          np.asarray(judge, dtype=np.int64), np.asarray(left, dtype=np.int64),
                          np.asarray(right, dtype=np.int64), np.asarray(outcome, dtype=np.int8))


def random_comparisons(n: int, n_judgments: int, seed: int, spread: float = 1.5
                       ) -> tuple[TopicJudgments, np.ndarray]:
    """Judgments drawn from a Bradley-Terry model with N(0, spread^2) scores, one judge."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, spread, n)
    left = rng.integers(0, n, n_judgments)
    right = (left + rng.integers(1, n, n_judgments)) % n
    p = 1.0 / (1.0 + np.exp(truth[right] - truth[left]))
    outcome = np.where(rng.random(n_judgments) < p, 1, -1)
    return make_topic(n, np.zeros(n_judgments, np.int64), left, right, outcome), truth


def choix_data(topic: TopicJudgments) -> list[tuple[int, int]]:
    win, lose = topic.strict()[1:]
    return list(zip(win.tolist(), lose.tolist()))


def crowd(n: int, good: int, malicious: int, per_judge: int, good_accuracy: float, seed: int
          ) -> tuple[TopicJudgments, np.ndarray]:
    """Judges judging random pairs: good ones agree with a hidden order with ``good_accuracy``,
    malicious ones always answer against it. Returns the topic and the hidden order (best first)."""
    rng = np.random.default_rng(seed)
    position = rng.permutation(n)
    m = good + malicious
    judge = np.repeat(np.arange(m), per_judge)
    left = rng.integers(0, n, len(judge))
    right = (left + rng.integers(1, n, len(judge))) % n
    truthful = np.where(position[left] < position[right], 1, -1)
    correct = np.where(judge < good, rng.random(len(judge)) < good_accuracy, False)
    return make_topic(n, judge, left, right, np.where(correct, truthful, -truthful)), np.argsort(position)


# ---------------------------------------------------------------------------
# Bradley-Terry against choix


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("reg", [1.0, 0.01, 1e-4])
def test_bradley_terry_matches_choix_opt_pairwise(reg, solver):
    topic, _ = random_comparisons(15, 400, seed=int(reg * 1e4))
    ours = BradleyTerry(reg=reg, solver=solver).fit(topic).scores_
    # choix penalises alpha ||s||^2 (PairwiseFcts.objective), ours reg ||s||^2 / 2
    theirs = choix.opt_pairwise(15, choix_data(topic), alpha=reg / 2, tol=1e-12)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    assert abs(ours.sum()) < 1e-8  # the ridge optimum is centred


def test_bradley_terry_undefeated_item_is_finite_and_matches_choix():
    topic, _ = random_comparisons(10, 200, seed=7)
    # item 0 wins all its contests: no finite maximum-likelihood score, the ridge fixes it
    outcome = np.where(topic.left == 0, 1, np.where(topic.right == 0, -1, topic.outcome))
    topic = make_topic(10, topic.judge, topic.left, topic.right, outcome)
    theirs = choix.opt_pairwise(10, choix_data(topic), alpha=0.05, tol=1e-12)
    for solver in ("newton", "lbfgs"):
        ours = BradleyTerry(reg=0.1, solver=solver).fit(topic)
        assert np.isfinite(ours.scores_).all() and ours.ranking_[0] == 0
        np.testing.assert_allclose(ours.scores_, theirs, atol=1e-5)


def test_bradley_terry_ties_half_matches_choix_on_doubled_data():
    # ties="half": f = sum_strict softplus(-d) + sum_ties [softplus(-d) + softplus(d)] / 2 + reg |s|^2 / 2;
    # twice that is choix's objective on (each strict judgment twice + each tie once each way), alpha = reg
    topic, _ = random_comparisons(12, 300, seed=3)
    rng = np.random.default_rng(3)
    outcome = np.where(rng.random(300) < 0.2, 0, topic.outcome)
    topic = make_topic(12, topic.judge, topic.left, topic.right, outcome)
    tie = outcome == 0
    data = 2 * choix_data(topic) + list(zip(topic.left[tie].tolist(), topic.right[tie].tolist())) \
        + list(zip(topic.right[tie].tolist(), topic.left[tie].tolist()))
    theirs = choix.opt_pairwise(12, data, alpha=0.05, tol=1e-12)
    np.testing.assert_allclose(BradleyTerry(reg=0.05, ties="half").fit(topic).scores_, theirs, atol=1e-5)
    assert not np.allclose(BradleyTerry(reg=0.05).fit(topic).scores_, theirs, atol=1e-3)


def test_bradley_terry_ranking_matches_choix_ilsr():
    topic, _ = random_comparisons(20, 4000, seed=11, spread=2.0)  # every pair about 20 times
    ours = BradleyTerry(reg=1e-6).fit(topic)
    theirs = choix.ilsr_pairwise(20, choix_data(topic), alpha=1e-6)
    assert ours.ranking_.tolist() == np.argsort(-theirs, kind="stable").tolist()
    np.testing.assert_allclose(ours.scores_, theirs, atol=1e-4)


def test_crowd_bt_eq_is_bradley_terry_with_a_virtual_item():
    # Crowd-BT-eq = Bradley-Terry on the data plus one win and one loss of every item against
    # a virtual item of score 0: choix with an extra item n (nearly no ridge), shifted so s_n = 0
    topic, _ = random_comparisons(12, 150, seed=8)
    virtual = [(i, 12) for i in range(12)] + [(12, i) for i in range(12)]
    theta = choix.opt_pairwise(13, choix_data(topic) + virtual, alpha=1e-9, tol=1e-12)
    ours = CrowdBT(skill=False).fit(topic).scores_
    np.testing.assert_allclose(ours, theta[:12] - theta[12], atol=1e-5)


def test_pair_counts_and_gradients():
    win, lose = np.array([0, 2, 0, 1, 2]), np.array([1, 0, 1, 2, 0])
    a, b, w_ab, w_ba = pair_counts(win, lose, 3)
    assert a.tolist() == [0, 0, 1] and b.tolist() == [1, 2, 2]
    assert w_ab.tolist() == [2, 0, 1] and w_ba.tolist() == [0, 2, 0]
    rng = np.random.default_rng(0)
    n, m, p = 8, 4, 60
    judge, win = rng.integers(0, m, p), rng.integers(0, n, p)
    lose = (win + rng.integers(1, n, p)) % n
    count = rng.integers(1, 3, p).astype(float)
    a, b, w_ab, w_ba = pair_counts(win, lose, n, count)
    x = np.concatenate([rng.normal(size=n), rng.uniform(0.1, 0.9, m)])
    h = 1e-6
    grad = [(bt_objective(x[:n] + h * e, a, b, w_ab, w_ba, 0.3)[1]
             - bt_objective(x[:n] - h * e, a, b, w_ab, w_ba, 0.3)[1])
            / (2 * h) for e in np.eye(n)]
    np.testing.assert_allclose(bt_hessian(x[:n], a, b, w_ab, w_ba, 0.3), np.array(grad), atol=1e-6)
    for f, x0 in ((lambda v: bt_objective(v, a, b, w_ab, w_ba, 0.3), x[:n]),
                  (lambda v: crowd_bt_objective(v, judge, win, lose, count, n, 0.7, 0.3, (2.0, 1.5)), x)):
        numeric = [(f(x0 + h * e)[0] - f(x0 - h * e)[0]) / (2 * h) for e in np.eye(len(x0))]
        np.testing.assert_allclose(f(x0)[1], numeric, atol=1e-6)


# ---------------------------------------------------------------------------
# noiseless crowds


@pytest.mark.parametrize("method", METHODS)
def test_noiseless_crowd_recovers_hidden_order(method):
    # every pair judged by 3 of 8 judges, all agreeing with a hidden order
    rng = np.random.default_rng(0)
    n, per_pair = 25, 3
    position = rng.permutation(n)
    a, b = (np.repeat(x, per_pair) for x in np.triu_indices(n, k=1))
    judge = np.concatenate([rng.choice(8, per_pair, replace=False) for _ in range(n * (n - 1) // 2)])
    swap = rng.random(len(a)) < 0.5
    left, right = np.where(swap, b, a), np.where(swap, a, b)
    topic = make_topic(n, judge, left, right, np.where(position[left] < position[right], 1, -1))
    order = np.argsort(position)
    assert not np.array_equal(order, np.arange(n))
    assert method().fit(topic).ranking_.tolist() == order.tolist()


def test_sparse_noiseless_crowd_bradley_terry():
    # random pairs (some never judged): plain Bradley-Terry still recovers the order here;
    # Crowd-BT's virtual item (weight 1, as strong as one judgment per item each way) may not
    topic, order = crowd(25, good=8, malicious=0, per_judge=120, good_accuracy=1.0, seed=0)
    assert BradleyTerry().fit(topic).ranking_.tolist() == order.tolist()
    assert CrowdBT(virtual_weight=0.01).fit(topic).ranking_.tolist() == order.tolist()


@pytest.mark.parametrize("method", METHODS)
def test_noiseless_ratings_recover_hidden_order(method):
    rng = np.random.default_rng(1)
    n = 25
    names = [f"doc{k}" for k in rng.permutation(n)]
    grade = rng.permutation(n)
    rows = [(f"w{k}", names[i], grade[i]) for k in range(40) for i in rng.permutation(n)[:12]]
    topic = topics_from_ratings(pd.DataFrame(rows, columns=["judge", "item", "grade"]).assign(topic="t"))["t"]
    true_grade = dict(zip(names, grade))
    order = np.argsort([-true_grade[item] for item in topic.items])
    assert method().fit(topic).ranking_.tolist() == order.tolist()


def test_no_strict_judgments():
    topic = make_topic(3, np.array([0]), np.array([0]), np.array([1]), np.array([0]), n_judges=2)
    assert BradleyTerry().fit(topic).scores_.tolist() == [0.0, 0.0, 0.0]
    fit = CrowdBT().fit(topic)
    assert fit.scores_.tolist() == [0.0, 0.0, 0.0] and np.isnan(fit.skills_).all()


# ---------------------------------------------------------------------------
# Crowd-BT judge skill


def test_crowd_bt_separates_malicious_judges():
    topic, order = crowd(20, good=10, malicious=3, per_judge=150, good_accuracy=1.0, seed=4)
    fit = CrowdBT().fit(topic)
    assert fit.skills_.shape == (13,)
    assert fit.skills_[:10].min() > 0.9
    assert fit.skills_[10:].max() < 0.1
    assert fit.ranking_.tolist() == order.tolist()
    assert CrowdBT(skill=False).fit(topic).skills_ is None


def test_crowd_bt_noisy_good_judges():
    topic, order = crowd(20, good=10, malicious=4, per_judge=150, good_accuracy=0.85, seed=6)
    fit = CrowdBT().fit(topic)
    assert fit.skills_[:10].min() > fit.skills_[10:].max()
    np.testing.assert_allclose(fit.skills_[:10].mean(), 0.85, atol=0.05)
    position = np.empty(20)
    position[order] = np.arange(20)
    equal = CrowdBT(skill=False).fit(topic)
    rho = [np.corrcoef(-f.scores_, position)[0, 1] for f in (fit, equal)]
    assert rho[0] > 0.95 and rho[0] >= rho[1]


def test_crowd_bt_judge_without_preferences_has_nan_skill():
    topic, _ = crowd(10, good=3, malicious=0, per_judge=40, good_accuracy=1.0, seed=2)
    topic = make_topic(10, topic.judge, topic.left, topic.right, topic.outcome, n_judges=4)
    skill = CrowdBT().fit(topic).skills_
    assert np.isfinite(skill[:3]).all() and np.isnan(skill[3])


@pytest.mark.parametrize("method", METHODS)
def test_deterministic(method):
    topic, _ = crowd(20, good=6, malicious=2, per_judge=100, good_accuracy=0.8, seed=9)
    first, second = method().fit(topic), method().fit(topic)
    assert np.array_equal(first.scores_, second.scores_)
    if first.skills_ is not None:
        assert np.array_equal(first.skills_, second.skills_)


def test_parameter_checks():
    topic, _ = random_comparisons(6, 30, seed=1)
    with pytest.raises(ValueError):
        BradleyTerry(reg=-1).fit(topic)
    with pytest.raises(ValueError):
        BradleyTerry(ties="win").fit(topic)
    with pytest.raises(ValueError):
        BradleyTerry(reg=0.0, solver="newton").fit(topic)
    with pytest.raises(ValueError):
        CrowdBT(eta_prior=(0.5, 1.0)).fit(topic)
    with pytest.raises(ValueError):
        CrowdBT(eta_init=0.995).fit(topic)
