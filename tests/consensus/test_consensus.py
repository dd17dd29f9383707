from math import comb

import numpy as np
import pytest
from reference import brute_force_consensus

from manyjudges.consensus.measure import consensus_measure
from manyjudges.orderings.consensus_scorer import ConsensusScorer
from manyjudges.orderings.registry import make_ordering_scorer

MIRROR_SECS = "zhiweiuk/secs/6f7fc9009c0c84da923ffc891a12bb4632b60cac/top-25_search_data"


def random_lists(rng, m, universe, length, repeats=False):
    out = []
    for _ in range(m):
        lst = list(rng.choice(universe, size=length, replace=False))
        if repeats and length > 2:
            lst[rng.integers(1, length)] = lst[0]  # a repeated item keeps its first position
        out.append(lst)
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lam,gamma", [(1.0, 1.0), (0.5, 1.0), (0.9, 0.8)])
def test_consensus_equals_brute_force(seed, lam, gamma):
    rng = np.random.default_rng(seed)
    universe = 8 if seed % 2 else 6  # top-k lists of different items when the universe is larger
    rankings = random_lists(rng, 2 + seed % 3, universe, 6, repeats=seed % 4 == 3)
    mult = None if seed % 3 else list(rng.integers(1, 4, size=len(rankings)))
    got = consensus_measure(rankings, lam, gamma, mult)
    brute = brute_force_consensus(rankings, lam, gamma, mult)
    assert got.lcs_length == (max(brute) if brute else 0)
    assert got.kappa == pytest.approx(sum(brute.values()), rel=1e-12)
    assert got.kappa_by_length == pytest.approx([brute[L] for L in sorted(brute)], rel=1e-12)


def test_multiplicities_equal_listing_duplicates():
    rng = np.random.default_rng(3)
    r = random_lists(rng, 3, 7, 7)
    a = consensus_measure(r, 0.8, 0.7, multiplicities=[2, 1, 3])
    b = consensus_measure([r[0], r[0], r[1], r[2], r[2], r[2]], 0.8, 0.7)
    assert a.kappa == pytest.approx(b.kappa) and a.kappa_by_length == pytest.approx(b.kappa_by_length)


def test_ties_get_no_edge():
    tied = [{"a": 0, "b": 0, "c": 1}, {"a": 0, "b": 1, "c": 2}]
    c = consensus_measure([], positions=tied)
    assert c.kappa_by_length.tolist() == [3, 2]  # a<c, b<c ; a,b tied in the first
    assert c.exact_kappa == 5


@pytest.mark.parametrize("engine", ["google", "bing"])
def test_authors_reference_numbers(mirror, engine):
    lists, cur = [], None
    for line in (mirror / MIRROR_SECS / f"{engine}.txt").read_text().splitlines():
        if line.startswith("#"):
            cur = []
            lists.append(cur)
        elif line.strip():
            cur.append(line.strip())
    ref = {
        "google": {(1, 1): 33, (0.5, 1): 8.4457, (0.9, 0.9): 18.118, "lengths": [7, 13, 10, 3]},
        "bing": {(1, 1): 23, (0.5, 1): 8.1294, (0.9, 0.9): 11.112, "lengths": [8, 11, 4]},
    }[engine]
    exact = consensus_measure(lists)
    assert exact.exact_kappa == ref[(1, 1)]
    assert exact.kappa_by_length.tolist() == ref["lengths"]
    assert exact.lcs_length == len(ref["lengths"])
    assert round(consensus_measure(lists, 0.5, 1).kappa, 4) == ref[(0.5, 1)]
    assert round(consensus_measure(lists, 0.9, 0.9).kappa, 3) == ref[(0.9, 0.9)]


def test_counts_beyond_float_range_are_exact_integers():
    k = 1100  # 2^1100 - 1 common subsequences: more than float64 can hold
    lists = [list(range(k)), list(range(k))]
    c = consensus_measure(lists, by_length=False)
    assert c.exact_kappa == 2**k - 1
    assert c.kappa == float("inf") or c.kappa > 1e300
    assert c.log_kappa == pytest.approx(k * np.log(2), rel=1e-12)
    assert c.lcs_length == k
    # weighted: overflows float64 but its log stays right (lambda = gamma = 1 - tiny, gap 1)
    w = consensus_measure(lists, lam=0.999999, gamma=0.999999, by_length=False)
    assert w.log_kappa == pytest.approx(k * np.log(1 + 0.999999), rel=1e-6)


def test_per_length_exact_for_long_identical_lists():
    k = 80
    c = consensus_measure([list(range(k))] * 3)
    assert [int(x) for x in c.kappa_by_length] == [comb(k, L) for L in range(1, k + 1)]
    assert c.exact_kappa == 2**k - 1


def test_no_common_items_and_errors():
    c = consensus_measure([["a", "b"], ["c", "d"]])
    assert c.kappa == 0 and c.lcs_length == 0
    with pytest.raises(ValueError, match="no rankings"):
        consensus_measure([])
    with pytest.raises(ValueError, match="positive"):
        consensus_measure([["a"]], lam=0)


def test_consensus_scorer_range_and_extremes():
    o = np.array([[1.0, 2, 3, 4, 5, 6]])
    rev = o[:, ::-1].copy()
    s = make_ordering_scorer("consensus").fit(o).score
    assert s(o)[0] == pytest.approx(1.0)
    assert s(rev)[0] == pytest.approx(np.log2(7) / 6)
    rng = np.random.default_rng(0)
    gold = np.array([rng.permutation(6) + 1.0 for _ in range(4)])
    vals = ConsensusScorer(0.7, 0.9).fit(gold).score(gold)
    assert np.all((vals >= 0) & (vals <= 1))
