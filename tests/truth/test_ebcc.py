"""EBCC (truth/methods/ebcc/): the ELBO against its definition, monotone coordinate ascent, planted truths, restarts."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.special import digamma, gammaln
from scipy.stats import dirichlet

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth.methods.ebcc.estimator import EBCC, ebcc_layout, ebcc_mean_field, ebcc_start


def simulate(n_items: int, accuracies: np.ndarray, k: int, per_item: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Each item labelled by ``per_item`` random judges; judge w right with probability accuracies[w],
    otherwise a uniformly drawn wrong class."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    rows = []
    for i in range(n_items):
        for w in rng.choice(len(accuracies), per_item, replace=False):
            right = rng.random() < accuracies[w]
            label = truth[i] if right else (truth[i] + rng.integers(1, k)) % k
            rows.append((i, w, label))
    return pd.DataFrame(rows, columns=["item", "judge", "label"]), truth


def explicit_elbo(data, run, alpha, a_pi, a_v, b_v) -> float:
    """E_q log p(y, z, g, tau, pi, v) + H(q), term by term, with a loop over the labels."""
    k, m = run.eta.shape
    elog_tau = digamma(run.nu) - digamma(run.nu.sum())
    elog_pi = digamma(run.eta) - digamma(run.eta.sum(axis=1, keepdims=True))
    elog_v = digamma(run.mu) - digamma(run.mu.sum(axis=3, keepdims=True))
    r = run.resp
    value = float(np.sum(r * (elog_tau[None, :, None] + elog_pi[None])))
    for i, j, y in zip(data.item, data.judge, data.label):
        value += float(np.sum(r[i] * elog_v[j, :, :, y]))
    value -= float(np.sum(r[r > 0] * np.log(r[r > 0])))

    def log_b(a):
        return float(np.sum(gammaln(a)) - gammaln(np.sum(a)))

    value += -log_b(alpha) + float(np.sum((alpha - 1) * elog_tau)) + dirichlet.entropy(run.nu)
    prior_pi = np.full(m, a_pi / m)
    for kk in range(k):
        value += -log_b(prior_pi) + float(np.sum((prior_pi - 1) * elog_pi[kk])) + dirichlet.entropy(run.eta[kk])
    for j in range(data.n_judges):
        for kk in range(k):
            beta = np.full(k, b_v)
            beta[kk] = a_v
            for mm in range(m):
                value += (-log_b(beta) + float(np.sum((beta - 1) * elog_v[j, kk, mm]))
                          + dirichlet.entropy(run.mu[j, kk, mm]))
    return value


def test_elbo_equals_its_definition_and_the_local_step_is_optimal():
    labels, _ = simulate(12, np.array([0.9, 0.7, 0.6, 0.8]), k=3, per_item=3, seed=1)
    data = as_crowd_labels(labels)
    alpha = np.array([2.0, 1.5, 3.0])
    start = ebcc_start(data, 2, np.random.default_rng(0))
    run = ebcc_mean_field(data, start, alpha, a_pi=0.3, a_v=3.0, b_v=0.7, max_iter=4, tol=0.0)
    assert run.n_iter == 4 and not run.converged
    assert run.elbo == pytest.approx(explicit_elbo(data, run, alpha, 0.3, 3.0, 0.7), rel=1e-10, abs=1e-9)
    # the local step maximises the ELBO over q(z, g) given the global factors: moving r lowers it
    moved = run.resp * 0.9 + 0.1 / (run.resp.shape[1] * run.resp.shape[2])
    worse = type(run)(moved, run.nu, run.eta, run.mu, 0.0, run.elbo_trace, run.n_iter, False)
    assert explicit_elbo(data, worse, alpha, 0.3, 3.0, 0.7) < run.elbo - 1e-3


def test_elbo_never_decreases():
    acc = np.random.default_rng(3).uniform(0.4, 0.9, 15)
    labels, _ = simulate(150, acc, k=3, per_item=4, seed=2)
    data = as_crowd_labels(labels)
    run = ebcc_mean_field(data, ebcc_start(data, 3, np.random.default_rng(1)), np.ones(3), max_iter=80, tol=0.0)
    steps = np.diff(run.elbo_trace)
    assert len(steps) == 79
    assert steps.min() >= -1e-9 * abs(run.elbo)
    assert run.elbo_trace[-1] > run.elbo_trace[0]


def test_recovers_a_planted_truth_and_ranks_the_judges():
    acc = np.array([0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.34, 0.34])  # the last two: spammers (K = 3)
    labels, truth = simulate(300, acc, k=3, per_item=5, seed=4)
    est = EBCC(n_subtypes=2, n_restarts=3).fit(labels)
    items = est.labels_.index.to_numpy()
    accuracy = float(np.mean(est.labels_.to_numpy() == truth[items]))
    counts = as_crowd_labels(labels).class_counts
    majority = float(np.mean(np.argmax(counts, axis=1) == truth[items]))
    # the Bayes rule under the simulation's own confusions: the best any method can do on average
    log_conf = np.log(np.where(np.eye(3)[None] > 0, acc[:, None, None], (1 - acc[:, None, None]) / 2))
    oracle_score = np.zeros((300, 3))
    np.add.at(oracle_score, labels["item"].to_numpy(), log_conf[labels["judge"], :, labels["label"]])
    oracle = float(np.mean(np.argmax(oracle_score, axis=1) == truth))
    assert accuracy >= oracle - 0.02
    assert accuracy >= majority + 0.03
    skills = est.skills_.sort_index().to_numpy()
    assert np.all(np.diff(skills[:8]) < 0.05)  # decreasing up to noise
    assert skills[:6].min() > skills[8:].max() + 0.2
    assert np.corrcoef(skills, acc)[0, 1] > 0.95


def test_confusions_and_skills_are_their_formulas():
    labels, _ = simulate(60, np.array([0.9, 0.8, 0.7, 0.5]), k=3, per_item=3, seed=5)
    est = EBCC(n_subtypes=3, n_restarts=2, alpha=2.0).fit(labels)
    conf = est.confusions_.to_numpy().reshape(4, 3, 3)
    assert np.allclose(conf.sum(axis=2), 1.0)
    assert np.allclose(est.proba_.to_numpy().sum(axis=1), 1.0)
    # rebuild the kept run: same generator stream, pick the best ELBO
    data = as_crowd_labels(labels)
    rng = np.random.default_rng(0)
    runs = [ebcc_mean_field(data, ebcc_start(data, 3, rng), np.full(3, 2.0)) for _ in range(2)]
    assert np.allclose(est.restart_elbos_, [r.elbo for r in runs])
    best = runs[int(np.argmax(est.restart_elbos_))]
    assert est.elbo_ == best.elbo
    weight = best.eta / best.eta.sum(axis=1, keepdims=True)
    ev = best.mu / best.mu.sum(axis=3, keepdims=True)
    expected = np.zeros((4, 3, 3))
    for j in range(4):
        for t in range(3):
            for mm in range(3):
                expected[j, t] += weight[t, mm] * ev[j, t, mm]
    assert np.allclose(conf, expected)
    tau = best.nu / best.nu.sum()
    assert np.allclose(est.skills_.to_numpy(), [sum(tau[t] * expected[j, t, t] for t in range(3)) for j in range(4)])
    assert np.allclose(est.proba_.to_numpy(), best.resp.sum(axis=2))


def test_more_restarts_never_lower_the_kept_elbo():
    labels, _ = simulate(80, np.array([0.8, 0.7, 0.6, 0.6, 0.55]), k=2, per_item=3, seed=6)
    one = EBCC(n_restarts=1, random_state=3).fit(labels)
    five = EBCC(n_restarts=5, random_state=3).fit(labels)
    assert five.restart_elbos_[0] == one.elbo_
    assert five.elbo_ == five.restart_elbos_.max() >= one.elbo_
    assert five.elbo_trace_[-1] == five.elbo_ and len(five.elbo_trace_) == five.n_iter_  # the kept start, rerun


def test_a_class_nobody_used_keeps_finite_posteriors():
    labels = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2], "judge": [0, 1, 0, 1, 0, 1],
                           "label": ["a", "a", "b", "a", "b", "b"]})
    est = EBCC(n_subtypes=2, n_restarts=2).fit(labels, classes=["a", "b", "c"])
    assert np.isfinite(est.proba_.to_numpy()).all() and np.isfinite(est.elbo_)
    assert list(est.labels_) == ["a", "a", "b"] or list(est.labels_) == ["a", "b", "b"]
    assert est.proba_["c"].max() < 0.2


@pytest.mark.parametrize("name, value", [("n_subtypes", 0), ("n_restarts", 1.5), ("max_iter", 0), ("tol", -1.0),
                                         ("alpha", "flat"), ("alpha", 0.0), ("a_pi", 0), ("a_v", -1), ("b_v", 0.0),
                                         ("random_state", -2)])
def test_bad_parameters_are_named(name, value):
    labels = pd.DataFrame({"item": [0, 1], "judge": [0, 0], "label": [0, 1]})
    with pytest.raises(ValueError, match=name):
        EBCC(**{name: value}).fit(labels)


def direct_loop(data, start, alpha, a_pi=0.1, a_v=4.0, b_v=1.0, max_iter=500, tol=1e-3):
    """The mean-field iterations as written in the module docstring, one label at a time, every
    subtype column in full, each item's scores shifted by their largest: (r, n_iter, final ELBO)."""
    n, k, m = start.shape
    beta = np.full((k, k), b_v)
    np.fill_diagonal(beta, a_v)
    r, proba = start.copy(), start.sum(axis=2)
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        mu = np.broadcast_to(beta[None, :, None, :], (data.n_judges, k, m, k)).copy()
        for i, j, y in zip(data.item, data.judge, data.label):
            mu[j, :, :, y] += r[i]
        eta, nu = a_pi / m + r.sum(axis=0), alpha + r.sum(axis=(0, 2))
        elog_v = digamma(mu) - digamma(mu.sum(axis=3, keepdims=True))
        score = np.broadcast_to(digamma(nu)[:, None] - digamma(nu.sum()) + digamma(eta)
                                - digamma(eta.sum(axis=1, keepdims=True)), (n, k, m)).copy()
        for i, j, y in zip(data.item, data.judge, data.label):
            score[i] += elog_v[j, :, :, y]
        score -= score.max(axis=(1, 2), keepdims=True)
        r = np.exp(score) / np.exp(score).sum(axis=(1, 2), keepdims=True)
        delta = np.abs(r.sum(axis=2) - proba).max()
        proba = r.sum(axis=2)
        if delta <= tol:
            break
    run = SimpleNamespace(resp=r, nu=nu, eta=eta, mu=mu)
    return r, it, explicit_elbo(data, run, alpha, a_pi, a_v, b_v)


def test_the_fast_path_is_the_direct_loop_on_repeated_items_and_emptied_subtypes():
    acc = np.random.default_rng(7).uniform(0.55, 0.95, 8)
    labels, _ = simulate(70, acc, k=3, per_item=2, seed=8)  # 70 items, 56 label pairs: repeated patterns
    data = as_crowd_labels(labels)
    lay = ebcc_layout(data)
    assert len(lay.multiplicity) < data.n_items
    alpha = np.array([2.0, 1.5, 3.0])
    start = ebcc_start(data, 4, np.random.default_rng(9))
    run = ebcc_mean_field(lay, start, alpha, max_iter=150)
    r, n_iter, elbo = direct_loop(data, start, alpha, max_iter=150)
    assert run.n_iter == n_iter
    assert np.abs(run.resp - r).max() < 1e-10
    assert run.elbo == pytest.approx(elbo, rel=1e-10)
    assert (run.eta - 0.1 / 4).min() < 1e-20  # some subtype was emptied (inactive)
    # items with the same labels share a pattern, others do not
    keys = labels.sort_values(["judge", "label"]).groupby("item")[["judge", "label"]].apply(
        lambda g: tuple(map(tuple, g.to_numpy())))
    same = keys.to_numpy()[:, None] == keys.to_numpy()[None, :]
    pattern = lay.pattern[data.items.get_indexer(keys.index)]
    assert np.array_equal(same, pattern[:, None] == pattern[None, :])


def test_an_item_with_thousands_of_labels_is_shifted_by_its_largest_score():
    rng = np.random.default_rng(10)
    many = pd.DataFrame({"item": 0, "judge": np.arange(1500), "label": rng.integers(0, 3, 1500)})
    few, _ = simulate(30, np.full(6, 0.8), k=3, per_item=3, seed=11)
    labels = pd.concat([many, few.assign(item=few["item"] + 1)], ignore_index=True)
    data = as_crowd_labels(labels)
    alpha = np.ones(3)
    start = ebcc_start(data, 2, np.random.default_rng(12))
    run = ebcc_mean_field(data, start, alpha, max_iter=6, tol=0.0)
    r, n_iter, elbo = direct_loop(data, start, alpha, max_iter=6, tol=0.0)
    assert np.abs(run.resp - r).max() < 1e-10
    assert run.elbo == pytest.approx(elbo, rel=1e-10)


def test_an_inactive_subtype_that_regains_mass_is_active_again(monkeypatch):
    labels, _ = simulate(60, np.array([0.9, 0.8, 0.7, 0.6, 0.75]), k=2, per_item=3, seed=13)
    data = as_crowd_labels(labels)
    start = ebcc_start(data, 4, np.random.default_rng(14))
    start[:, 0, 1] += start[:, 0, 0] - 1e-27  # column (0, 0) starts below the threshold (1e-20 in all)
    start[:, 0, 0] = 1e-27
    calls = []
    union1d = np.union1d
    monkeypatch.setattr(np, "union1d", lambda a, b: calls.append(b) or union1d(a, b))
    run = ebcc_mean_field(data, start, np.ones(2), max_iter=40)
    assert any(0 in b for b in calls)  # it came back (its closed-form total passed the threshold)
    r, n_iter, elbo = direct_loop(data, start, np.ones(2), max_iter=40)
    assert run.n_iter == n_iter
    assert np.abs(run.resp - r).max() < 1e-10
    assert run.elbo == pytest.approx(elbo, rel=1e-10)
