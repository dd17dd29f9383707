import numpy as np
import pytest
from reference import brute_force_frespa, random_panel

from manyjudges.core.ranks import reverse_ranks
from manyjudges.orderings.frespa import (
    FreSPA,
    FreSPAParams,
    frespa_score,
    leave_one_out_tables,
    loo_differences_for_settings,
)

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
            b = brute_force_frespa(gold, np.vstack([humans[i], reverse_ranks(humans[i])]),
                                   p.w_len, p.w_sup, p.min_sup, lo, hi)
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


def test_length_rounding_half_up_rounds_ratio_times_k_to_the_nearest_length():
    assert FreSPAParams(max_len_ratio=0.5).length_bounds(7) == (2, 3)  # floor(3.5) = 3
    assert FreSPAParams(max_len_ratio=0.5, length_rounding="half_up").length_bounds(7) == (2, 4)  # floor(4.0)
    half_up = FreSPAParams(max_len_ratio=0.25, min_len_ratio=0.5, length_rounding="half_up")
    assert half_up.length_bounds(9) == (5, 2)  # floor(2.25 + .5) = 2 ; floor(4.5 + .5) = 5
    assert half_up.length_bounds(10) == (5, 3)  # floor(2.5 + .5) = 3 ; floor(5.5) = 5
    for ratio, k in [(0.0, 9), (1.0, 9), (0.75, 8)]:  # ratio k whole: the same length either way
        assert (FreSPAParams(min_len_ratio=ratio, length_rounding="half_up").length_bounds(k)
                == FreSPAParams(min_len_ratio=ratio).length_bounds(k))
    with pytest.raises(ValueError, match="length_rounding must be one of 'floor', 'half_up', got 'ceil'"):
        FreSPAParams(length_rounding="ceil")
    with pytest.raises(ValueError, match="length_rounding"):
        FreSPA(length_rounding="round").fit(np.array([[1.0, 2], [2, 1]]))


@pytest.mark.parametrize("ratio, floor_bounds, half_up_bounds", [
    ({"max_len_ratio": 0.5}, {"max_len": 3}, {"max_len": 4}),
    ({"min_len_ratio": 0.5}, {"min_len": 3}, {"min_len": 4}),
])
def test_length_rounding_changes_frespa_scores_as_the_brute_force_says(ratio, floor_bounds, half_up_bounds):
    """k = 7, ratio 0.5: length 3 (floor) or 4 (half_up), each checked against the paper's formula."""
    rng = np.random.default_rng(7)
    gold = random_panel(rng, 5, 7, agreement=0.8)
    cands = np.vstack([gold[:2], random_panel(rng, 3, 7)])
    params = {"min_sup": 0.4, **ratio}
    floor = FreSPA(**params).fit(gold).score(cands)
    half_up = FreSPA(**params, length_rounding="half_up").fit(gold).score(cands)
    assert floor == pytest.approx(brute_force_frespa(gold, cands, min_sup=0.4, **floor_bounds), abs=1e-12)
    assert half_up == pytest.approx(brute_force_frespa(gold, cands, min_sup=0.4, **half_up_bounds), abs=1e-12)
    assert np.abs(floor - half_up).max() > 1e-3
    diffs = loo_differences_for_settings(gold, gold[:0], [FreSPAParams(**params, length_rounding=r)
                                                          for r in ("floor", "half_up")])
    for i, rounding in enumerate(("floor", "half_up")):  # the sweep's leave-one-out path rounds the same way
        held = [FreSPA(**params, length_rounding=rounding).fit(np.delete(gold, j, axis=0)).score(
            np.vstack([gold[j], reverse_ranks(gold[j])])) for j in range(len(gold))]
        assert diffs[i] == pytest.approx([a - b for a, b in held], abs=1e-12)


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
