"""MPM (Volkovs and Zemel 2012) and EMeloRating (Bashir et al. 2013) on synthetic crowds."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import check_grad
from scipy.stats import kendalltau

from manyjudges.core.pairwise import elo as elo_kernel
from manyjudges.core.pairwise.elo import _elo_schedule, elo_ratings
from manyjudges.crowd.elo import EMEloRating, PairLabels, dawid_skene_pairs
from manyjudges.crowd.judgments import topics_from_preferences
from manyjudges.crowd.mpm import MPM, MPMData, mpm_hessian, mpm_objective

METHODS = {
    "mpm": lambda: MPM(),
    "mpm_eq": lambda: MPM(skill=False),
    "em_elo": lambda: EMEloRating(),
    "em_elo_eq": lambda: EMEloRating(skill=False),
}


def crowd(n_items=10, good=8, malicious=0, pairs=30, noise=0.0, ties=0.0, seed=0, swap=False):
    """A hidden random order (item index order is not the truth); each judge labels ``pairs``
    distinct random pairs, presented in random left/right order. Good judges answer the truth
    (flipped with prob. ``noise``, "tie" with prob. ``ties``); malicious ones always reverse it.
    ``swap`` presents every judgment the other way round (same information)."""
    rng = np.random.default_rng(seed)
    strength = rng.permutation(n_items)
    all_pairs = [(a, b) for a in range(n_items) for b in range(a + 1, n_items)]
    rows = []
    for k in range(good + malicious):
        for i in rng.choice(len(all_pairs), size=pairs, replace=False):
            a, b = all_pairs[i]
            if rng.random() < 0.5:
                a, b = b, a
            a_wins = bool(strength[a] > strength[b])
            if k >= good or rng.random() < noise:
                a_wins = not a_wins
            outcome = "tie" if (k < good and rng.random() < ties) else ("left" if a_wins else "right")
            if swap:
                a, b = b, a
                outcome = {"left": "right", "right": "left", "tie": "tie"}[outcome]
            rows.append(("t", f"{'bad' if k >= good else 'good'}{k}", f"d{a}", f"d{b}", outcome))
    table = pd.DataFrame(rows, columns=["topic", "judge", "left", "right", "outcome"])
    topic = topics_from_preferences(table)["t"]
    truth = np.array([strength[int(item[1:])] for item in topic.items], dtype=float)
    return topic, truth


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noiseless_crowd_recovers_hidden_order(method, seed):
    topic, truth = crowd(seed=seed)
    assert not np.array_equal(np.argsort(-truth), np.arange(topic.n_items))  # index order is not the truth
    model = METHODS[method]().fit(topic)
    assert model.scores_.shape == (topic.n_items,)
    np.testing.assert_array_equal(model.ranking_, np.argsort(-truth))


@pytest.mark.parametrize("method", ["mpm", "em_elo"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_malicious_judges_get_low_skill_and_order_survives(method, seed):
    topic, truth = crowd(good=8, malicious=3, noise=0.1, seed=seed)
    model = METHODS[method]().fit(topic)
    bad = np.array([w.startswith("bad") for w in topic.judges])
    assert bad.sum() == 3
    assert model.skills_.shape == (topic.n_judges,)
    assert model.skills_[~bad].min() > model.skills_[bad].max()
    assert kendalltau(model.scores_, truth)[0] >= 0.9


@pytest.mark.parametrize("method", list(METHODS))
def test_fits_are_deterministic(method):
    topic, _ = crowd(n_items=12, good=6, malicious=2, pairs=25, noise=0.2, ties=0.1, seed=3)
    first, second = METHODS[method]().fit(topic), METHODS[method]().fit(topic)
    np.testing.assert_array_equal(first.scores_, second.scores_)
    if first.skills_ is None:
        assert second.skills_ is None
    else:
        np.testing.assert_array_equal(first.skills_, second.skills_)


@pytest.mark.parametrize("method", list(METHODS))
def test_left_right_presentation_does_not_matter(method):
    topic, _ = crowd(n_items=9, good=5, malicious=1, pairs=20, noise=0.15, ties=0.1, seed=4)
    mirrored, _ = crowd(n_items=9, good=5, malicious=1, pairs=20, noise=0.15, ties=0.1, seed=4, swap=True)
    a, b = METHODS[method]().fit(topic), METHODS[method]().fit(mirrored)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6, atol=1e-6)
    if a.skills_ is not None:
        np.testing.assert_allclose(a.skills_, b.skills_, rtol=1e-6, atol=1e-6)


def test_variants_without_skill_have_no_skill():
    topic, _ = crowd(seed=5, malicious=2)
    assert MPM(skill=False).fit(topic).skills_ is None
    assert EMEloRating(skill=False).fit(topic).skills_ is None
    assert MPM().fit(topic).skills_ is not None
    assert EMEloRating().fit(topic).skills_ is not None


def test_judge_with_only_ties_has_nan_mpm_skill():
    topic, _ = crowd(n_items=6, good=4, pairs=10, seed=6)
    extra = topic.with_preferences(judge=[topic.n_judges] * 2, left=[0, 1], right=[2, 3], outcome=[0, 0],
                                   judges=np.append(topic.judges, "ties_only"))
    skill = MPM().fit(extra).skills_
    assert np.isnan(skill[-1]) and np.isfinite(skill[:-1]).all()
    assert np.isfinite(EMEloRating().fit(extra).skills_).all()


@pytest.mark.parametrize("support", ["judge", "all"])
@pytest.mark.parametrize("skill", [True, False])
def test_mpm_gradient_and_hessian_match_finite_differences(support, skill):
    topic, _ = crowd(n_items=7, good=4, malicious=1, pairs=8, noise=0.2, ties=0.2, seed=7)
    data = MPMData(topic, support, skill)
    rng = np.random.default_rng(0)
    theta = rng.normal(size=2 * topic.n_items + (topic.n_judges if skill else 0))
    args = (data, 0.01, skill, 0.7)

    def value(x):
        return mpm_objective(x, *args)[0]

    def grad(x):
        return mpm_objective(x, *args)[1]

    g = grad(theta)
    assert check_grad(value, grad, theta) <= 1e-5 * max(1.0, np.linalg.norm(g))
    step = 1e-6
    numeric = np.column_stack([(grad(theta + step * e) - grad(theta - step * e)) / (2 * step)
                               for e in np.eye(len(theta))])
    np.testing.assert_allclose(mpm_hessian(theta, *args), numeric, atol=1e-7)


@pytest.mark.parametrize("skill", [True, False])
def test_mpm_newton_and_lbfgs_reach_the_same_optimum(skill):
    topic, _ = crowd(n_items=10, good=6, malicious=2, pairs=20, noise=0.2, seed=8)
    data = MPMData(topic, "judge", skill)
    values = []
    for solver in ("newton", "lbfgs"):
        model = MPM(skill=skill, solver=solver, tol=1e-9, max_iter=5000).fit(topic)
        parts = [model.scores_, np.log(model.sigma_)] + ([model.skills_] if skill else [])
        values.append(mpm_objective(np.concatenate(parts), data, model.reg, skill, model.reg_alpha)[0])
    assert values[0] == pytest.approx(values[1], abs=1e-9)


def test_em_confusion_of_malicious_judge_is_reversed():
    topic, _ = crowd(good=6, malicious=1, pairs=30, seed=9)
    data = PairLabels(topic)
    posterior, confusion, prior, _ = dawid_skene_pairs(data)
    assert data.n_classes == 2 and prior == pytest.approx([0.5, 0.5])
    bad = next(i for i, w in enumerate(topic.judges) if w.startswith("bad"))
    assert confusion[bad, 0, 1] > 0.9 and confusion[bad, 1, 0] > 0.9
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0)


def test_elo_rounds_are_valid_and_both_update_paths_agree(monkeypatch):
    rng = np.random.default_rng(10)
    n = 20
    a, b = np.triu_indices(n, 1)
    score = rng.random(len(a))
    order, starts = _elo_schedule(a, b, n)
    for lo, hi in itertools.pairwise(starts):
        played = np.concatenate([a[order[lo:hi]], b[order[lo:hi]]])
        assert len(np.unique(played)) == len(played)  # an item plays at most once per round
    assert sorted(order) == list(range(len(a)))
    loop = elo_ratings(a, b, score, n, n_passes=3)
    monkeypatch.setattr(elo_kernel, "_LOOP_GAMES", 0)
    vectorised = elo_ratings(a, b, score, n, n_passes=3)
    np.testing.assert_allclose(loop, vectorised, rtol=0, atol=1e-9)
    assert loop.mean() == pytest.approx(1500.0)  # Elo is zero-sum


def test_mpm_skill_is_the_accuracy_its_adherence_implies():
    topic, _ = crowd(good=8, malicious=3, noise=0.1, seed=4)
    model = MPM().fit(topic)
    q, alpha = model.skills_, model.adherence_
    ok = np.isfinite(q)
    assert ((q[ok] >= 0) & (q[ok] <= 1)).all()
    # higher adherence, higher implied accuracy; negative adherence, below 1/2
    assert np.corrcoef(alpha[ok], q[ok])[0, 1] > 0.9
    assert (q[ok][alpha[ok] < 0] < 0.5).all() and (q[ok][alpha[ok] > 0] > 0.5).all()


@pytest.mark.parametrize("skill", [True, False])
def test_mpm_scattered_hessian_skips_unjudged_pairs_and_equals_the_dense_one(skill, monkeypatch):
    from manyjudges.crowd import mpm_newton

    topic, _ = crowd(n_items=30, good=4, malicious=1, pairs=12, noise=0.2, ties=0.2, seed=3)  # 60 of 435 pairs
    data = MPMData(topic, "judge", skill)
    rng = np.random.default_rng(1)
    theta = rng.normal(size=2 * topic.n_items + (topic.n_judges if skill else 0))
    dense = mpm_hessian(theta, data, 0.01, skill, 0.7)
    monkeypatch.setattr(mpm_newton, "DENSE_CELLS", 0)
    np.testing.assert_allclose(mpm_hessian(theta, data, 0.01, skill, 0.7), dense, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("skill", [True, False])
def test_mpm_hessian_from_the_objectives_terms_is_the_same_hessian(skill, monkeypatch):
    """Newton hands mpm_hessian the terms mpm_objective computed at the same theta: the same
    numbers bit for bit as computing them again, dense and scattered."""
    from manyjudges.crowd import mpm_newton

    topic, _ = crowd(n_items=12, good=4, malicious=1, pairs=20, noise=0.2, ties=0.2, seed=5)
    data = MPMData(topic, "judge", skill)
    theta = np.random.default_rng(2).normal(size=2 * topic.n_items + (topic.n_judges if skill else 0))
    terms = {}
    value, grad = mpm_objective(theta, data, 0.01, skill, 0.7, terms=terms)
    plain_value, plain_grad = mpm_objective(theta, data, 0.01, skill, 0.7)
    assert value == plain_value and np.array_equal(grad, plain_grad)
    for cells in (mpm_newton.DENSE_CELLS, 0):
        monkeypatch.setattr(mpm_newton, "DENSE_CELLS", cells)
        assert np.array_equal(mpm_hessian(theta, data, 0.01, skill, 0.7, terms=terms),
                              mpm_hessian(theta, data, 0.01, skill, 0.7))


def loop_pair_em(data, max_iter=100, tol=1e-6, smoothing=0.01, diagonal=1.0):
    """EMeloRating's EM (module docstring of manyjudges.crowd.elo), one judgment and one pair at a time."""
    c, m, g = data.n_classes, data.m, data.n_pairs
    swap = [1, 0, 2][:c]
    entries = list(zip(data.k, data.p, data.label, data.count))
    post = np.zeros((g, c))
    for _, p, lab, n in entries:
        post[p, lab] += n
    post /= post.sum(axis=1, keepdims=True)
    loglik, it = -np.inf, 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is read after the loop)
        counts = np.zeros((m, c, c))
        for k, p, lab, n in entries:
            for t in range(c):
                counts[k, t, lab] += n * post[p, t]
        counts = np.array([[[counts[k, t, lab] + counts[k, swap[t], swap[lab]] + smoothing + diagonal * (t == lab)
                             for lab in range(c)] for t in range(c)] for k in range(m)])
        confusion = counts / counts.sum(axis=2, keepdims=True)
        prior = post.sum(axis=0)
        prior = np.array([prior[t] + prior[swap[t]] + smoothing for t in range(c)])
        prior /= prior.sum()
        logp = np.tile(np.log(prior), (g, 1))
        for k, p, lab, n in entries:
            logp[p] += n * np.log(confusion[k, :, lab])
        top = logp.max(axis=1, keepdims=True)
        z = np.exp(logp - top).sum(axis=1, keepdims=True)
        post = np.exp(logp - top) / z
        new = float((top + np.log(z)).sum()) / data.count.sum()
        if abs(new - loglik) < tol:
            break
        loglik = new
    return post, confusion, prior, it


@pytest.mark.parametrize("ties", [0.0, 0.2])
def test_pair_em_on_the_core_em_equals_a_direct_loop(ties):
    topic, _ = crowd(n_items=8, good=5, malicious=2, pairs=12, noise=0.2, ties=ties, seed=21)
    data = PairLabels(topic)
    assert (data.n_classes == 3) == (ties > 0)
    for options in ({}, {"smoothing": 0.5, "diagonal": 0.0}, {"max_iter": 4}):
        got, want = dawid_skene_pairs(data, **options), loop_pair_em(data, **options)
        assert got[3] == want[3]
        for x, y in zip(got[:3], want[:3]):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-10)


def test_pair_em_does_not_depend_on_which_item_of_a_pair_is_first():
    topic, _ = crowd(n_items=8, good=5, malicious=2, pairs=12, noise=0.2, ties=0.2, seed=22)
    data = PairLabels(topic)
    turned = np.random.default_rng(3).random(data.n_pairs) < 0.5  # relabel these pairs: a <-> b
    flipped = PairLabels(topic)
    flipped.label = np.where(turned[data.p] & (data.label < 2), 1 - data.label, data.label)
    post, _, prior, _ = dawid_skene_pairs(data)
    post_flipped, _, prior_flipped, _ = dawid_skene_pairs(flipped)
    np.testing.assert_allclose(post_flipped, np.where(turned[:, None], post[:, [1, 0, 2]], post), atol=1e-9)
    np.testing.assert_allclose(prior_flipped, prior, atol=1e-12)
