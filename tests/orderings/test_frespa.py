import numpy as np
import pytest

from manyjudges.orderings.frespa import (
    FreSPA,
    FreSPAParams,
    frespa_score,
    leave_one_out_tables,
    loo_differences_for_settings,
)
from manyjudges.ranks import reverse_ranks
from reference import brute_force_frespa, random_panel

PARAM_SETS = [
    {},
    {"w_len": 0.0, "w_sup": 0.0},
    {"w_len": 5.0, "w_sup": 0.25},
    {"min_sup": 0.0},
    {"min_sup": 0.5, "max_len": 2},
    {"min_sup": 0.34, "min_len": 3},
    {"min_sup": 1.0},
    {"min_len_ratio": 0.5, "max_len_ratio": 0.75, "min_sup": 0.2},
]


@pytest.mark.parametrize("engine", ["classes", "counting", "mining"])
@pytest.mark.parametrize("params", PARAM_SETS)
@pytest.mark.parametrize("ties", [False, True])
def test_frespa_equals_brute_force(engine, params, ties):
    rng = np.random.default_rng(hash((engine, str(params), ties)) % 2**32)
    for _ in range(3):
        gold = random_panel(rng, 5, 6, ties=ties, agreement=0.5)
        cands = random_panel(rng, 3, 6, ties=ties)
        p = FreSPAParams(**params)
        lo, hi = p.length_bounds(6)
        expected = brute_force_frespa(gold, cands, p.w_len, p.w_sup, p.min_sup, lo, hi)
        assert frespa_score(gold, cands, p, engine) == pytest.approx(expected, abs=1e-12)


def test_self_scores_one_and_reverse_zero():
    o = np.array([[3.0, 1, 4, 2, 5, 6, 8, 7]])
    score = FreSPA().fit(o).score
    assert score(o)[0] == pytest.approx(1.0)
    assert score(reverse_ranks(o))[0] == pytest.approx(0.0)


def test_empty_pattern_set_scores_zero():
    # two opposite orderings with min_sup = 1: no pattern in both
    gold = np.array([[1.0, 2, 3], [3.0, 2, 1]])
    assert frespa_score(gold, gold, FreSPAParams(min_sup=1.0)).tolist() == [0.0, 0.0]


def test_items_are_ids_not_characters():
    # 12 items: an item id like 10 must not be read as '1', '0' (the authors' script did)
    k = 12
    o = np.arange(1, k + 1, dtype=float)[None, :]
    assert FreSPA().fit(o).score(o)[0] == pytest.approx(1.0)


@pytest.mark.parametrize("engine", ["classes", "counting", "mining"])
def test_leave_one_out_matches_generic_loop(engine):
    rng = np.random.default_rng(7)
    humans = random_panel(rng, 5, 6, ties=True, agreement=0.6)
    noise = random_panel(rng, 2, 6)
    settings = [FreSPAParams(), FreSPAParams(w_len=0, min_sup=0.5), FreSPAParams(max_len_ratio=0.5, w_sup=3)]
    fast = loo_differences_for_settings(humans, noise, settings, engine)
    for j, p in enumerate(settings):
        for i in range(len(humans)):
            gold = np.vstack([np.delete(humans, i, axis=0), noise])
            lo, hi = p.length_bounds(6)
            b = brute_force_frespa(gold, np.vstack([humans[i], reverse_ranks(humans[i])]), p.w_len, p.w_sup, p.min_sup, lo, hi)
            assert fast[j, i] == pytest.approx(b[0] - b[1], abs=1e-12)


def test_engines_give_identical_tables():
    rng = np.random.default_rng(8)
    humans = random_panel(rng, 6, 7, agreement=0.7)
    noise = random_panel(rng, 3, 7)
    a = leave_one_out_tables(humans, noise, threshold=4, engine="counting")
    b = leave_one_out_tables(humans, noise, threshold=4, engine="mining")
    c = leave_one_out_tables(humans, noise, threshold=4, engine="classes")
    for x, y, z in zip(a, b, c):
        assert np.array_equal(x, y) and np.array_equal(x, z)


def test_bad_parameters():
    with pytest.raises(ValueError, match="min_sup"):
        FreSPAParams(min_sup=1.5)
    with pytest.raises(ValueError, match="min_len"):
        FreSPAParams(min_len=1)
    with pytest.raises(ValueError, match="engine"):
        frespa_score(np.array([[1.0, 2]]), np.array([[1.0, 2]]), None, "magic")


def test_length_ratios_follow_paper():
    p = FreSPAParams(max_len_ratio=0.25, min_len_ratio=0.5)
    assert p.length_bounds(9) == (4, 2)  # max(2, floor(.25*9)) = 2 ; floor(4.5) = 4
    assert FreSPAParams(max_len_ratio=0.0).length_bounds(9) == (2, 2)
    assert FreSPAParams(min_len_ratio=1.0).length_bounds(9) == (9, 9)


@pytest.mark.parametrize("engine", ["classes", "counting", "mining"])
def test_support_base_judges_counts_threshold_over_humans_only(engine):
    rng = np.random.default_rng(9)
    humans = random_panel(rng, 5, 6, agreement=0.6)
    noise = random_panel(rng, 4, 6)
    p = FreSPAParams(min_sup=0.75, support_base="judges")
    fast = loo_differences_for_settings(humans, noise, [p], engine)[0]
    for i in range(len(humans)):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        b = brute_force_frespa(gold, np.vstack([humans[i], reverse_ranks(humans[i])]), support_base=len(humans) - 1)
        assert fast[i] == pytest.approx(b[0] - b[1], abs=1e-12)
    # without noise the two readings agree
    same = loo_differences_for_settings(humans, None, [p, FreSPAParams(min_sup=0.75)], engine)
    assert same[0] == pytest.approx(same[1])
    with pytest.raises(ValueError, match="support_base"):
        FreSPAParams(support_base="voters")
