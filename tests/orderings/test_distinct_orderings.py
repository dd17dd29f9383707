"""Leave-one-out on distinct orderings (AC, WCA, consensus) against the algorithms they replace
and against brute force: duplicates, ties, two judges, noise orderings."""
import numpy as np
import pytest
from reference import (
    batched_consensus_loo,
    brute_force_pair_log2_kappa,
    loop_consensus_score,
    matrix_ac_loo,
    matrix_wca_loo,
    random_panel,
)

from manyjudges.core.counting import count_paths_total
from manyjudges.core.ranks import distinct_rows, reverse_ranks
from manyjudges.orderings.consensus_scorer import ConsensusScorer, _own_log2_kappa, _pair_log2_kappa
from manyjudges.orderings.evaluation import generic_leave_one_out_differences, leave_one_out_differences
from manyjudges.orderings.noise import random_orderings
from manyjudges.orderings.registry import make_ordering_scorer


def panel_with_duplicates(rng, n, k, ties):
    """n rows drawn from a few distinct orderings (many judges, few items: the dots/puzzle shape)."""
    base = random_panel(rng, 4, k, ties=ties, agreement=0.3)
    return base[rng.integers(0, len(base), n)]


CASES = [  # (n, k, ties, noise count)
    (2, 4, False, 0), (2, 3, True, 2), (3, 4, True, 1), (12, 4, False, 12), (12, 4, True, 6), (9, 5, True, 0),
]


@pytest.mark.parametrize("n, k, ties, n_noise", CASES)
@pytest.mark.parametrize("kind", ["kendall", "spearman"])
def test_ac_and_wca_on_distinct_orderings_equal_the_full_matrices(n, k, ties, n_noise, kind):
    rng = np.random.default_rng(n * 100 + k)
    humans = panel_with_duplicates(rng, n, k, ties)
    noise = random_orderings(rng, n_noise, k)
    suffix = "tau" if kind == "kendall" else "sp"
    ac = leave_one_out_differences(make_ordering_scorer(f"ac_{suffix}"), humans, noise)
    wca = leave_one_out_differences(make_ordering_scorer(f"wca_{suffix}"), humans, noise)
    assert ac == pytest.approx(matrix_ac_loo(kind, humans, noise), abs=1e-12)
    assert wca == pytest.approx(matrix_wca_loo(kind, humans, noise), abs=1e-12)


def test_wca_falls_back_to_uniform_weights_like_the_full_matrix():
    # held out one judge, the two others are each other's reverse: every weight is 0
    humans = np.array([[1.0, 2, 3], [3.0, 2, 1], [1.0, 3, 2]])
    for noise in (np.empty((0, 3)), np.array([[1.0, 2, 3]])):
        got = leave_one_out_differences(make_ordering_scorer("wca_tau"), humans, noise)
        assert got == pytest.approx(matrix_wca_loo("kendall", humans, noise), abs=1e-12)
    two = np.array([[1.0, 2, 3], [2.0, 1, 3]])  # N - 1 = 1 gold ordering: uniform weights
    assert leave_one_out_differences(make_ordering_scorer("wca_sp"), two) == pytest.approx(
        matrix_wca_loo("spearman", two, np.empty((0, 3))), abs=1e-12)


def test_distinct_rows_equal_numpy_unique():
    rng = np.random.default_rng(3)
    for _ in range(50):
        x = rng.integers(1, 4, (int(rng.integers(0, 20)), 3)).astype(float)
        u, inv, cnt = distinct_rows(x)
        uu, ii, cc = np.unique(x.reshape(-1, 3), axis=0, return_inverse=True, return_counts=True)
        assert np.array_equal(u, uu) and np.array_equal(inv, ii.reshape(-1)) and np.array_equal(cnt, cc)


@pytest.mark.parametrize("lam, gamma", [(1.0, 1.0), (0.7, 0.9), (1.3, 1.0), (1.0, 0.5)])
def test_pair_terms_equal_brute_force_with_ties(lam, gamma):
    rng = np.random.default_rng(5)
    cands = np.vstack([random_panel(rng, 3, 5, ties=True), random_panel(rng, 2, 5)])
    golds = np.vstack([random_panel(rng, 3, 5, ties=True), cands[:1], reverse_ranks(cands[:1])])
    got = _pair_log2_kappa(cands, golds, lam, gamma)
    want = [[brute_force_pair_log2_kappa(c, g, lam, gamma) for g in golds] for c in cands]
    assert got == pytest.approx(np.array(want), abs=1e-12)
    own = [brute_force_pair_log2_kappa(c, c, lam, gamma) for c in cands]
    assert _own_log2_kappa(cands, lam, gamma) == pytest.approx(own, abs=1e-12)


def test_pair_counts_are_exact_beyond_float64():
    rng = np.random.default_rng(6)
    k = 60  # more than 53 items: Python-int counts
    c = rng.permutation(k) + 1.0
    g = c.copy()
    g[np.argsort(c)[:6]] = g[np.argsort(c)[:6]][::-1]  # reverse the first six items of c
    got = _pair_log2_kappa(c, np.vstack([c, g]))[0]
    order = np.argsort(c)
    dag = (c[order][:, None] < c[order][None, :]) & (g[order][:, None] < g[order][None, :])
    assert got[0] == 60.0  # 2^60 - 1 subsequences of c
    assert got[1] == np.log2(1 + count_paths_total(dag, np.arange(k)))


@pytest.mark.parametrize("n, k, ties, n_noise", CASES)
def test_consensus_leave_one_out_equals_the_batched_dag_counts(n, k, ties, n_noise):
    rng = np.random.default_rng(n * 10 + k)
    humans = panel_with_duplicates(rng, n, k, ties)
    noise = random_orderings(rng, n_noise, k)
    got = leave_one_out_differences(ConsensusScorer(), humans, noise)
    assert got == pytest.approx(batched_consensus_loo(humans, noise), abs=1e-12)


@pytest.mark.parametrize("lam, gamma", [(1.0, 1.0), (0.8, 0.9)])
def test_consensus_weighted_leave_one_out_and_score_equal_the_measure_loop(lam, gamma):
    rng = np.random.default_rng(8)
    humans = panel_with_duplicates(rng, 6, 5, True)
    noise = random_orderings(rng, 3, 5)
    scorer = ConsensusScorer(lam, gamma)
    got = leave_one_out_differences(scorer, humans, noise)
    want = []
    for i in range(len(humans)):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        s = loop_consensus_score(gold, np.vstack([humans[i], reverse_ranks(humans[i])]), lam, gamma)
        want.append(s[0] - s[1])
    assert got == pytest.approx(want, abs=1e-12)
    assert generic_leave_one_out_differences(scorer, humans, noise) == pytest.approx(want, abs=1e-12)
    gold = np.vstack([humans, noise])
    assert scorer.fit(gold).score(humans[:3]) == pytest.approx(loop_consensus_score(gold, humans[:3], lam, gamma),
                                                               abs=1e-12)
