"""FreSPA's ``classes`` engine and support sums, against enumeration of every pattern and the older engines."""
import itertools
import math

import numpy as np
import pytest
from reference import brute_force_frespa, contains, random_panel

from manyjudges.core.ranks import reverse_ranks
from manyjudges.orderings.frespa import (
    FreSPA,
    FreSPAParams,
    _frespa_tables,
    frespa_score,
    leave_one_out_tables,
    loo_differences_for_settings,
)
from manyjudges.orderings.pattern_classes import (
    common_pattern_counts,
    dense_ranks,
    own_pattern_counts,
    support_class_tables,
    unique_orderings,
)


def brute_tables(columns, weights, threshold, max_len, table_columns):
    """N(s, L) and N_o(s, L) by listing every sequence of distinct items."""
    n_col, k = columns.shape
    total = int(sum(weights))
    den = np.zeros((total + 1, k + 1))
    per = np.zeros((len(table_columns), total + 1, k + 1))
    for length in range(2, min(max_len, k) + 1):
        for pattern in itertools.permutations(range(k), length):
            inside = [contains(c, pattern) for c in columns]
            sup = sum(w for w, c in zip(weights, inside) if c)
            if sup < threshold:
                continue
            den[sup, length] += 1
            for j, col in enumerate(table_columns):
                per[j, sup, length] += inside[col]
    return den, per


def panel_with_repeats(rng, n, k, ties, agreement, repeats):
    """A panel in which some rows repeat an earlier ordering (with other rank values for ties)."""
    rows = random_panel(rng, n, k, ties=ties, agreement=agreement)
    for _ in range(repeats):
        rows[rng.integers(1, n)] = rows[0] * 3 + 1  # same ordering, different spelling
    return rows


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("threshold", [1, 2, 4, 7, 99])
def test_class_tables_equal_enumeration(ties, threshold):
    rng = np.random.default_rng([threshold, ties])
    for max_len in (2, 4, 6):
        columns = random_panel(rng, 5, 6, ties=ties, agreement=0.5)
        weights = np.array([1, 3, 0, 2, 1])  # a zero weight: a candidate riding along
        wanted = np.array([0, 2, 4, 2])
        den, per = support_class_tables(columns, weights, threshold, max_len, wanted)
        ref_den, ref_per = brute_tables(columns, weights, threshold, max_len, wanted)
        assert np.array_equal(den, ref_den)
        assert np.array_equal(per, ref_per)


def test_class_tables_many_words_and_large_weights():
    # 70 distinct orderings: containment sets span two 64-bit words; weights need several bit planes
    rng = np.random.default_rng(3)
    columns, _ = unique_orderings(random_panel(rng, 80, 5, ties=True))
    weights = rng.integers(0, 300, size=len(columns))
    assert len(columns) > 64
    for threshold in (1, int(weights.sum() // 5)):
        den, per = support_class_tables(columns, weights, threshold, 5, np.arange(0, len(columns), 7))
        ref = brute_tables(columns, weights, threshold, 5, np.arange(0, len(columns), 7))
        assert np.array_equal(den, ref[0]) and np.array_equal(per, ref[1])


def test_class_counts_stay_exact_beyond_float():
    # identical orderings of k items share every pattern: N(n, L) = C(k, L), beyond 2^53 and 2^63
    for k in (60, 66):
        ranks = np.tile(np.arange(1.0, k + 1), (2, 1))
        den, per = _frespa_tables(ranks, ranks[:1], threshold=2)
        expected = [0.0, 0.0] + [float(math.comb(k, length)) for length in range(2, k + 1)]
        assert den[2].tolist() == expected and per[0, 2].tolist() == expected
        assert not den[:2].any() and not per[0, :2].any()


def test_unique_orderings_ignore_spelling():
    ranks = np.array([[1.0, 2, 2, 4], [10.0, 20, 20, 30], [1.0, 1, 2, 3], [2.0, 3, 3, 4]])
    columns, inverse = unique_orderings(ranks)
    assert len(columns) == 2 and inverse[0] == inverse[1] == inverse[3] != inverse[2]
    assert dense_ranks(ranks)[0].tolist() == [0, 1, 1, 2]


@pytest.mark.parametrize("ties", [False, True])
def test_single_and_pair_counts_equal_enumeration(ties):
    rng = np.random.default_rng(11)
    a = random_panel(rng, 4, 6, ties=ties)
    b = random_panel(rng, 3, 6, ties=ties)
    own = own_pattern_counts(a, 6)
    common = common_pattern_counts(a, b, 5)
    for i, row in enumerate(a):
        for length in range(7):
            pats = list(itertools.permutations(range(6), length))
            assert own[i, length] == sum(contains(row, p) for p in pats)
            if length <= 5:
                for j, other in enumerate(b):
                    assert common[i, j, length] == sum(contains(row, p) and contains(other, p) for p in pats)
    assert own_pattern_counts(np.arange(1.0, 11)[None], 10)[0].tolist() == [math.comb(10, j) for j in range(11)]


@pytest.mark.parametrize("params", [{}, {"min_sup": 0.0}, {"min_sup": 0.0, "w_sup": 0.0}, {"min_sup": 1.0},
                                    {"w_len": 0.0, "w_sup": 2.5, "min_sup": 0.4, "min_len": 3, "max_len": 4}])
@pytest.mark.parametrize("ties", [False, True])
def test_classes_score_equals_enumeration_with_repeated_orderings(params, ties):
    rng = np.random.default_rng([len(params), ties])
    gold = panel_with_repeats(rng, 6, 6, ties, 0.5, 2)
    cands = np.vstack([gold[:2], random_panel(rng, 2, 6, ties=ties)])
    p = FreSPAParams(**params)
    lo, hi = p.length_bounds(6)
    expected = brute_force_frespa(gold, cands, p.w_len, p.w_sup, p.min_sup, lo, hi)
    assert frespa_score(gold, cands, p, "classes") == pytest.approx(expected, abs=1e-12)
    assert FreSPA(**params).fit(gold).score(cands) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("threshold", [1, 2, 5, 8, 9])
def test_leave_one_out_tables_equal_older_engines(ties, threshold):
    rng = np.random.default_rng([threshold, ties, 1])
    humans = panel_with_repeats(rng, 5, 6, ties, 0.6, 1)
    noise = np.vstack([random_panel(rng, 2, 6, ties=ties), reverse_ranks(humans[1]), humans[2]])
    new = leave_one_out_tables(humans, noise, threshold, engine="classes")
    for engine in ("counting", "mining"):
        old = leave_one_out_tables(humans, noise, threshold, engine=engine)
        for x, y in zip(new, old):
            assert np.array_equal(x, y)
    assert np.array_equal(new[0], leave_one_out_tables(humans, noise, threshold, max_len=6)[0])


SETTINGS = [
    FreSPAParams(),
    FreSPAParams(min_sup=0.0),
    FreSPAParams(min_sup=0.0, w_sup=0.0),
    FreSPAParams(min_sup=0.0, w_len=0.0, max_len=3),
    FreSPAParams(min_sup=0.0, min_len=4),
    FreSPAParams(min_sup=0.1, w_sup=1.0, min_len_ratio=0.5),
    FreSPAParams(min_sup=0.3, w_sup=0.0, w_len=5.0),
    FreSPAParams(min_sup=1.0),
    FreSPAParams(min_sup=0.75, support_base="judges"),
    FreSPAParams(min_sup=0.0, support_base="judges"),
    FreSPAParams(min_sup=0.5, w_sup=3.0, max_len_ratio=0.5, support_base="judges"),
]


def brute_loo(humans, noise, p):
    n, k = humans.shape
    lo, hi = p.length_bounds(k)
    out = []
    for i in range(n):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        base = len(gold) if p.support_base == "gold" else n - 1
        b = brute_force_frespa(gold, np.vstack([humans[i], reverse_ranks(humans[i])]), p.w_len, p.w_sup, p.min_sup,
                               lo, hi, support_base=base)
        out.append(b[0] - b[1])
    return np.array(out)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n_noise", [0, 3])
def test_leave_one_out_settings_equal_enumeration(ties, n_noise):
    rng = np.random.default_rng([n_noise, ties, 2])
    humans = panel_with_repeats(rng, 5, 5, ties, 0.5, 1)
    noise = random_panel(rng, n_noise, 5, ties=ties) if n_noise else None
    fast = loo_differences_for_settings(humans, noise, SETTINGS)
    for j, p in enumerate(SETTINGS):
        expected = brute_loo(humans, np.empty((0, 5)) if noise is None else noise, p)
        assert fast[j] == pytest.approx(expected, abs=1e-12), p
        # one setting at a time takes the other route for threshold-1, wSup-1 settings
        assert loo_differences_for_settings(humans, noise, [p])[0] == pytest.approx(expected, abs=1e-12)
    old = loo_differences_for_settings(humans, noise, SETTINGS, "mining")
    assert np.max(np.abs(fast - old)) < 1e-12


def test_leave_one_out_empty_pattern_sets():
    # min_sup 1: the other judge and the noise ordering (its reverse) share no pattern; min_len 5 > k
    humans = np.array([[1.0, 2, 3, 4], [1.0, 2, 3, 4]])
    noise = np.array([[4.0, 3, 2, 1]])
    settings = [FreSPAParams(min_sup=1.0), FreSPAParams(min_sup=0.0), FreSPAParams(min_len=5)]
    fast = loo_differences_for_settings(humans, noise, settings)
    for j, p in enumerate(settings):
        assert fast[j] == pytest.approx(brute_loo(humans, noise, p), abs=1e-12)
    assert fast[0].tolist() == [0.0, 0.0] and fast[2].tolist() == [0.0, 0.0]
    # one item: no pattern at all; every judge tied: none either
    assert loo_differences_for_settings(np.ones((3, 1)), None, settings).tolist() == [[0.0] * 3] * 3
    assert loo_differences_for_settings(np.ones((3, 4)), None, settings).tolist() == [[0.0] * 3] * 3


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine"):
        leave_one_out_tables(np.array([[1.0, 2], [2, 1]]), None, 1, engine="magic")
    with pytest.raises(ValueError, match="engine"):
        FreSPA(engine="magic")._check_params()


def test_popcount_without_numpy_bitwise_count(monkeypatch):
    from manyjudges.orderings import pattern_classes

    words = np.random.default_rng(5).integers(0, 2**63, size=(7, 3), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    expected = np.array([[bin(int(w)).count("1") for w in row] for row in words])
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert np.array_equal(pattern_classes._popcount(words), expected)
