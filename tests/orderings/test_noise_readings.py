"""The two readings of the noise experiment (Kim, Zhai, Han 2010, s.5.4): how many random orderings
r n is, and which orderings ED averages over; each against a direct computation."""
import itertools

import numpy as np
import pandas as pd
import pytest
from reference import brute_force_frespa, loop_wca, random_panel
from scipy.stats import kendalltau

from manyjudges.core.random_streams import rng_for
from manyjudges.core.ranks import reverse_ranks
from manyjudges.orderings.evaluation import leave_one_out_differences, noisy_set_differences
from manyjudges.orderings.experiment import ed_by_noise_table, frespa_sweep, frespa_sweeps, noise_for
from manyjudges.orderings.frespa import FreSPA
from manyjudges.orderings.noise import noise_count
from manyjudges.orderings.registry import make_ordering_scorer


def test_noise_count_readings_differ_only_where_r_n_is_fractional():
    ratios = (0, 0.25, 0.5, 0.75, 1)
    assert [noise_count(r, 10, "floor") for r in ratios] == [0, 2, 5, 7, 10]
    assert [noise_count(r, 10, "half_up") for r in ratios] == [0, 3, 5, 8, 10]
    assert noise_count(0.5, 9, "floor") == 4 and noise_count(0.5, 9, "half_up") == 5
    assert noise_count(0.3, 10, "floor") == 3  # 0.3 x 10 is 2.9999999999999996 in floating point
    with pytest.raises(ValueError, match="noise rounding"):
        noise_count(0.5, 10, "nearest")


def test_the_two_roundings_draw_the_same_first_orderings():
    floor = noise_for(3, "d", 0.25, 0, "s1", 10, 6, "floor")
    half_up = noise_for(3, "d", 0.25, 0, "s1", 10, 6, "half_up")
    assert (len(floor), len(half_up)) == (2, 3)
    assert np.array_equal(floor, half_up[:2])


def _terms_by_loop(kind: str, humans: np.ndarray, noise: np.ndarray, ed_over: str) -> np.ndarray:
    """s(O; the other orderings of the noisy set) - s(rev O; same), for the orderings ``ed_over`` names."""
    every = np.vstack([humans, noise])
    held = range(len(every)) if ed_over == "all" else range(len(humans))
    return np.array([loop_wca(kind, np.delete(every, i, axis=0), every[i])
                     - loop_wca(kind, np.delete(every, i, axis=0), reverse_ranks(every[i][None])[0])
                     for i in held])


@pytest.mark.parametrize("ed_over", ["all", "judges"])
def test_noisy_set_differences_match_a_direct_loop(ed_over):
    """A hand-sized panel (4 judges, 2 random orderings, 5 items) where the two readings differ."""
    rng = np.random.default_rng(5)
    humans = random_panel(rng, 4, 5, agreement=0.7)
    noise = random_panel(rng, 2, 5)
    got = noisy_set_differences(make_ordering_scorer("wca_tau"), humans, noise, ed_over)
    assert len(got) == (6 if ed_over == "all" else 4)
    np.testing.assert_allclose(got, _terms_by_loop("kendall", humans, noise, ed_over), atol=1e-12)
    other = "judges" if ed_over == "all" else "all"
    assert abs(got.mean() - noisy_set_differences(make_ordering_scorer("wca_tau"), humans, noise, other).mean()) > 0.01


@pytest.mark.parametrize("n_humans,n_noise", [(5, 0), (5, 2), (4, 4)])
def test_ac_tau_ed_over_every_ordering_is_the_mean_pairwise_kendall_tau(n_humans, n_noise):
    """With AC-tau, each ED term is the mean raw tau of the held-out ordering with the others, so ED
    over every ordering of the noisy set is the mean pairwise Kendall tau of all of them (scipy)."""
    rng = np.random.default_rng(n_humans + 10 * n_noise)
    humans = random_panel(rng, n_humans, 7, agreement=0.6)
    noise = random_panel(rng, n_noise, 7) if n_noise else np.empty((0, 7))
    every = np.vstack([humans, noise])
    taus = [kendalltau(every[i], every[j]).statistic for i, j in itertools.combinations(range(len(every)), 2)]
    ed = noisy_set_differences(make_ordering_scorer("ac_tau"), humans, noise, "all").mean()
    assert ed == pytest.approx(np.mean(taus), abs=1e-12)


@pytest.mark.parametrize("support_base", ["gold", "judges"])
def test_frespa_random_orderings_held_out_count_the_threshold_over_the_judges(support_base):
    """A random ordering held out keeps all n judges in its gold set: support_base "judges" thresholds
    at minSup x n there (n - 1 for a held-out judge); brute-force enumeration of the paper's formula."""
    rng = np.random.default_rng(2)
    humans = random_panel(rng, 4, 5, agreement=0.6)
    noise = random_panel(rng, 3, 5)
    scorer = FreSPA(min_sup=0.5, support_base=support_base)
    got = noisy_set_differences(scorer, humans, noise, "all")
    every = np.vstack([humans, noise])
    expected = []
    for i in range(len(every)):
        gold = np.delete(every, i, axis=0)
        base = None if support_base == "gold" else (3 if i < 4 else 4)
        s = brute_force_frespa(gold, np.vstack([every[i], reverse_ranks(every[i][None])[0]]), min_sup=0.5,
                               support_base=base)
        expected.append(s[0] - s[1])
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_a_scorer_without_a_fast_path_gets_every_ordering_held_out():
    class KendallToFirst:
        def fit(self, gold):
            self.first_ = np.asarray(gold)[0]
            return self

        def score(self, candidates):
            return [kendalltau(c, self.first_).statistic for c in candidates]

    rng = np.random.default_rng(4)
    humans, noise = random_panel(rng, 3, 5), random_panel(rng, 2, 5)
    got = noisy_set_differences(KendallToFirst(), humans, noise, "all")
    every = np.vstack([humans, noise])
    # the generic path puts the held-out group's other orderings first, then the rest
    firsts = [humans[1], humans[0], humans[0], noise[1], noise[0]]
    expected = [2 * kendalltau(every[i], f).statistic for i, f in enumerate(firsts)]
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_allclose(got[:3], leave_one_out_differences(KendallToFirst(), humans, noise))


def test_unknown_ed_over_is_an_error():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="ed_over"):
        noisy_set_differences(make_ordering_scorer("ac_tau"), random_panel(rng, 3, 4), None, "humans")
    with pytest.raises(ValueError, match="ed_over"):
        frespa_sweep({"s": random_panel(rng, 3, 4)}, "min_sup", [0.5], 0.5, 2, 1, "d", ed_over="humans")


@pytest.mark.parametrize("ed_over", ["all", "judges"])
@pytest.mark.parametrize("support_base", ["gold", "judges"])
def test_sweep_and_scorer_agree_under_each_reading(ed_over, support_base):
    """The sweep's one-count path and the scorer's path give the same ED under both readings."""
    rng = rng_for(9, "panels")
    panels = {f"s{j}": random_panel(rng, 5, 6, agreement=0.6) for j in range(3)}
    params = {"min_sup": 0.5, "support_base": support_base}
    sweep = frespa_sweep(panels, "w_len", [1.0], 0.5, 3, 7, "d", params, ed_over, "floor")
    table = ed_by_noise_table(panels, FreSPA(**params), [0.5], 3, 7, "d", "frespa", ed_over, "floor")
    assert sweep["ed_mean"].iloc[0] == pytest.approx(table["ed_mean"].iloc[0], abs=1e-12)
    assert sweep["ed_sd"].iloc[0] == pytest.approx(table["ed_sd"].iloc[0], abs=1e-12)


def test_one_jobs_sweeps_equal_each_parameter_swept_alone():
    """The noise depends on (seed, dataset, ratio, replicate, set), not on the swept parameter: one job's
    sweeps are the per-parameter sweeps stacked, value for value."""
    rng = rng_for(4, "panels")
    panels = {f"s{j}": random_panel(rng, 5, 6, agreement=0.6) for j in range(3)}
    sweeps = [("w_len", [0.0, 1.0], 2), ("min_sup", [0.5, 1.0], 3)]
    together = frespa_sweeps(panels, sweeps, [0, 0.5], 7, "d", {"min_sup": 0.75})
    alone = [frespa_sweep(panels, p, v, r, n, 7, "d", {"min_sup": 0.75}) for p, v, n in sweeps for r in (0, 0.5)]
    assert together.equals(pd.concat(alone, ignore_index=True))
