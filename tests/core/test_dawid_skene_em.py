"""The Dawid-Skene EM of :mod:`manyjudges.core.dawid_skene_em`, split into its steps, against the same EM written as one
straightforward loop over the labels (both models, every start, gold items, both stopping rules), to 1e-12."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from manyjudges.core.dawid_skene_em import _GOLD_START, dawid_skene
from manyjudges.core.posteriors import posteriors_from_log_joint


def panel(seed, n_items=30, n_judges=6, k=3, density=0.5):
    """Random labels, right with probability 0.6; one item and one judge beyond every index used."""
    rng = np.random.default_rng(seed)
    item, judge = np.nonzero(rng.random((n_items, n_judges)) < density)
    truth = rng.integers(0, k, n_items)
    label = np.where(rng.random(len(item)) < 0.6, truth[item], rng.integers(0, k, len(item)))
    return item, judge, label, truth, n_items + 1, n_judges + 1


def loop_em(item, judge, label, n_items, n_judges, k, n_iter, s, init, model, known, stop="posteriors", tol=0.0):
    """The EM label by label: start, then up to ``n_iter`` x (M-step, E-step), stopping on ``stop`` at ``tol``.
    Returns (posteriors, confusion, priors, log-likelihood, iterations run, whether the rule held)."""
    labelled = np.zeros(n_items, dtype=bool)
    votes = np.zeros((n_items, k))
    for i, c in zip(item, label):
        votes[i, c] += 1
        labelled[i] = True
    if init == "hard_majority":
        votes = (votes == votes.max(axis=1, keepdims=True)) * 1.0
    post = np.full((n_items, k), 1.0 / k)
    post[labelled] = votes[labelled] / votes[labelled].sum(axis=1, keepdims=True)
    if init == "gold":
        post[:] = _GOLD_START / k
    gold = dict(zip(*known)) if known is not None else {}
    for i, c in gold.items():
        post[i] = np.eye(k)[c]
    previous = -math.inf
    for n in range(1, n_iter + 1):  # noqa: B007 (the count is returned)
        counts = np.zeros((n_judges, k, k))  # counts[j, t, c]
        for i, j, c in zip(item, judge, label):
            counts[j, :, c] += post[i]
        if model == "full":
            rows = counts + s
            totals = rows.sum(axis=2, keepdims=True)
            conf = np.where(totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / k)
        else:
            conf = np.empty((n_judges, k, k))
            for j in range(n_judges):
                right = sum(counts[j, t, t] for t in range(k)) + k * s
                wrong = sum(counts[j, t, c] for t in range(k) for c in range(k) if c != t) + k * (k - 1) * s
                total = right + wrong
                conf[j] = (wrong / total / (k - 1)) if total > 0 else 1.0 / k
                np.fill_diagonal(conf[j], right / total if total > 0 else 1.0 / k)
        priors = post[labelled].sum(axis=0) + s
        priors = priors / priors.sum()
        with np.errstate(divide="ignore"):
            joint = np.tile(np.log(priors), (n_items, 1))
            for i, j, c in zip(item, judge, label):
                joint[i] += np.log(conf[j, :, c])
        log_z = logsumexp(joint, axis=1)
        post_new = np.exp(joint - log_z[:, None])
        for i, c in gold.items():
            post_new[i] = np.eye(k)[c]
            log_z[i] = joint[i, c]
        log_likelihood = float(log_z[labelled].sum())
        if stop == "posteriors":
            done = np.abs(post_new - post).max() < tol
        else:
            objective = log_likelihood + (s * (np.log(conf).sum() + np.log(priors).sum()) if s > 0 else 0.0)
            done = objective - previous < tol * len(item)
            previous = objective
        post = post_new
        if done:
            break
    return post, conf, priors, log_likelihood, n, bool(done)


CASES = [  # (seed, K, smoothing, init, model, with gold)
    (0, 2, 0.01, "majority", "full", False),
    (1, 3, 0.0, "majority", "full", False),
    (2, 4, 0.5, "hard_majority", "full", False),
    (3, 3, 0.1, "gold", "full", True),
    (4, 3, 0.01, "majority", "full", True),
    (5, 2, 0.0, "majority", "one_coin", False),
    (6, 4, 0.2, "hard_majority", "one_coin", False),
    (7, 3, 0.05, "gold", "one_coin", True),
]


@pytest.mark.parametrize("seed, k, s, init, model, gold", CASES)
@pytest.mark.parametrize("stop, tol", [("posteriors", 0.0), ("posteriors", 1e-2), ("log_likelihood", 1e-3)])
def test_the_steps_are_the_loop(seed, k, s, init, model, gold, stop, tol):
    item, judge, label, truth, n_items, n_judges = panel(seed, k=k)
    known = (np.arange(0, 30, 5), truth[::5]) if gold else None
    res = dawid_skene(item, judge, label, n_items=n_items, n_judges=n_judges, n_classes=k, max_iter=12, tol=tol,
                      smoothing=s, init=init, model=model, stop=stop, known=known)
    post, conf, priors, log_likelihood, n_iter, converged = loop_em(item, judge, label, n_items, n_judges, k, 12, s,
                                                                    init, model, known, stop, tol)
    assert (res.n_iter, res.converged) == (n_iter, converged)
    np.testing.assert_allclose(res.posteriors, post, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.confusion, conf, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.priors, priors, rtol=0, atol=1e-12)
    assert res.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)


def test_posteriors_from_log_joint_is_a_softmax_with_gold_terms():
    rng = np.random.default_rng(0)
    joint = rng.normal(size=(3, 6)) * 5
    joint[1, 2] = -np.inf  # a class impossible for one item
    joint[0, 4] = joint[2, 4] - 800  # a term beyond UNDERFLOW: exactly 0
    expected_post = np.exp(joint - logsumexp(joint, axis=0))
    expected_z = logsumexp(joint, axis=0)
    gold_term = joint[2, 5]
    post, log_z = posteriors_from_log_joint(joint.copy(), (np.array([5]), np.array([2])))
    np.testing.assert_allclose(post[:, :5], expected_post[:, :5], rtol=0, atol=1e-15)
    assert post[0, 4] == 0.0 and post[1, 2] == 0.0
    assert post[:, 5].tolist() == [0.0, 0.0, 1.0] and log_z[5] == gold_term
    np.testing.assert_allclose(log_z[:5], expected_z[:5], rtol=1e-15)
    impossible = joint.copy()
    impossible[:, 3] = -np.inf
    with pytest.raises(FloatingPointError, match="probability 0 under every class"):
        posteriors_from_log_joint(impossible)


@pytest.mark.parametrize("shape", ["sorted", "shuffled", "repeats"])
def test_label_matrix_is_scipys_coo_to_csr(shape):
    """Sorted labels without a repeat go in as CSR arrays: the same matrix as scipy's COO-to-CSR pass makes."""
    from scipy import sparse

    from manyjudges.core.label_matrix import label_matrix

    rng = np.random.default_rng(4)
    item, judge, label = rng.integers(0, 50, 2000), rng.integers(0, 30, 2000), rng.integers(0, 3, 2000)
    key = np.unique((item * 30 + judge) * 3 + label) if shape != "repeats" else np.sort((item * 30 + judge) * 3 + label)
    if shape == "shuffled":
        key = rng.permutation(key)
    item, judge, label = (key // 90).astype(np.int32), (key // 3 % 30).astype(np.int32), (key % 3).astype(np.int32)
    got = label_matrix(item, judge, label, 50, 30, 3)
    expected = sparse.coo_matrix((np.ones(len(item)), (item, judge * 3 + label)), shape=(50, 90)).tocsr()
    expected.sum_duplicates()
    got.sum_duplicates()
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(got, name), getattr(expected, name)), name


@pytest.mark.parametrize("gold", [False, True])
def test_the_e_step_by_blocks_of_items_is_the_whole_product_bit_for_bit(monkeypatch, gold):
    """Each item's posteriors are its own: computed 7 items at a time, the fit is the same to the last bit."""
    from manyjudges.core import dawid_skene_em

    rng = np.random.default_rng(5)
    n_items, n_judges, k = 60, 9, 3
    item = np.repeat(np.arange(n_items), 5)
    judge = rng.integers(0, n_judges, len(item))
    label = rng.integers(0, k, len(item))
    known = (np.array([3, 17, 40]), np.array([0, 2, 1])) if gold else None
    kwargs = dict(n_items=n_items, n_judges=n_judges, n_classes=k, known=known, stop="log_likelihood", tol=1e-9)
    whole = dawid_skene(item, judge, label, **kwargs)
    monkeypatch.setattr(dawid_skene_em, "_E_STEP_ITEMS", 7)
    blocks = dawid_skene(item, judge, label, **kwargs)
    assert np.array_equal(whole.posteriors, blocks.posteriors) and whole.log_likelihood == blocks.log_likelihood
    assert np.array_equal(whole.confusion, blocks.confusion) and whole.n_iter == blocks.n_iter


def test_diagonal_and_mirror_are_checked():
    em = dawid_skene
    args = (np.array([0, 1]), np.array([0, 0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="diagonal"):
        em(*args, n_items=2, n_judges=1, n_classes=2, diagonal=-1.0)
    with pytest.raises(ValueError, match="mirror"):
        em(*args, n_items=2, n_judges=1, n_classes=3, mirror=(1, 2, 0))
    with pytest.raises(ValueError, match="model='full'"):
        em(*args, n_items=2, n_judges=1, n_classes=2, model="one_coin", diagonal=1.0)
    plain = em(*args, n_items=2, n_judges=1, n_classes=2)
    same = em(*args, n_items=2, n_judges=1, n_classes=2, diagonal=0.0, mirror=None)
    assert np.array_equal(plain.posteriors, same.posteriors) and np.array_equal(plain.confusion, same.confusion)


def test_column_sums_are_numpy_sums_bit_for_bit():
    from manyjudges.core.posteriors import _column_max, _column_sum
    rng = np.random.default_rng(2)
    for k in range(2, 8):
        x = rng.random((300, k)) * 10.0 ** rng.integers(-8, 8, size=(300, k))
        for view in (np.ascontiguousarray(x).T, np.ascontiguousarray(x.T)):  # a column's K values adjacent, or not
            assert np.array_equal(_column_sum(view), view.sum(axis=0))
            assert np.array_equal(_column_max(view), view.max(axis=0))
