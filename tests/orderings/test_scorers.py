import numpy as np
import pytest
from reference import loop_ac, loop_rba, loop_wca, random_panel
from scipy.stats import kendalltau

from manyjudges.core.random_streams import rng_for
from manyjudges.core.ranks import reverse_ranks
from manyjudges.orderings.base import OrderingScorer
from manyjudges.orderings.evaluation import evaluation_discriminativeness, leave_one_out_differences
from manyjudges.orderings.noise import random_orderings
from manyjudges.orderings.registry import _ORDERING_SCORERS, make_ordering_scorer
from manyjudges.orderings.scorers import _rank_sum_consensus

LOOPS = {"ac": loop_ac, "wca": loop_wca, "rba": loop_rba}


@pytest.mark.parametrize("name", ["ac_tau", "ac_sp", "wca_tau", "wca_sp", "rba_tau", "rba_sp"])
@pytest.mark.parametrize("ties", [False, True])
def test_correlation_scorers_match_loop_references(name, ties):
    rng = np.random.default_rng(11)
    family, suffix = name.split("_")
    kind = "kendall" if suffix == "tau" else "spearman"
    gold = random_panel(rng, 5, 7, ties=ties, agreement=0.4)
    cands = random_panel(rng, 3, 7, ties=ties)
    got = make_ordering_scorer(name).fit(gold).score(cands)
    expected = [LOOPS[family](kind, gold, c) for c in cands]
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("name", list(_ORDERING_SCORERS))
@pytest.mark.parametrize("ties", [False, True])
def test_fast_leave_one_out_equals_generic_loop(name, ties):
    rng = np.random.default_rng(12)
    humans = random_panel(rng, 6, 6, ties=ties, agreement=0.5)
    noise = random_panel(rng, 3, 6)
    scorer = make_ordering_scorer(name)
    fast = leave_one_out_differences(scorer, humans, noise)
    slow = []
    for i in range(len(humans)):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        s = scorer.fit(gold).score(np.vstack([humans[i], reverse_ranks(humans[i])]))
        slow.append(s[0] - s[1])
    assert fast == pytest.approx(slow, abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_ed_of_ac_tau_is_mean_pairwise_kendall_tau(ties):
    # ED = (1/n) sum_i [2 mean_j C(O_i, O_j) - 1] and 2 (tau + 1)/2 - 1 = tau:
    # the mean pairwise RAW tau (equivalently 2 x mean normalised tau - 1)
    rng = np.random.default_rng(13)
    humans = random_panel(rng, 7, 8, ties=ties, agreement=0.5)
    taus = [kendalltau(humans[i], humans[j]).statistic for i in range(7) for j in range(7) if i != j]
    assert evaluation_discriminativeness(make_ordering_scorer("ac_tau"), humans) == pytest.approx(np.mean(taus))


def test_rank_sum_consensus_tie_breaks():
    gold = np.array([[1.0, 2, 3], [2.0, 1, 3]])  # items 0 and 1 tie on rank sum; both have best rank 1
    assert _rank_sum_consensus(gold).tolist() == [1, 2, 3]
    gold = np.array([[1.0, 3, 2], [3.0, 1, 2]])  # 0,1 tie on sum 4 with best 1; item 2 sum 4, best 2
    assert _rank_sum_consensus(gold).tolist() == [1, 2, 3]


def test_user_scorer_through_registry():
    scorer = make_ordering_scorer("my_scorers:KendallToFirst", {"offset": 0.0})
    gold = np.array([[1.0, 2, 3, 4], [2.0, 1, 3, 4]])
    assert scorer.fit(gold).score(gold[:1]).tolist() == [1.0]


def test_registry_errors_are_clear():
    with pytest.raises(ValueError, match="unknown orderings method 'nope'"):
        make_ordering_scorer("nope")
    with pytest.raises(ValueError, match="cannot import module"):
        make_ordering_scorer("no_such_module_xyz:f")
    with pytest.raises(ValueError, match="has no attribute"):
        make_ordering_scorer("my_scorers:missing")
    with pytest.raises(ValueError, match="unknown parameter.*'w_length'.*did you mean 'w_len'"):
        make_ordering_scorer("frespa", {"w_length": 1})
    with pytest.raises(ValueError, match="has no score"):
        make_ordering_scorer("my_scorers:NotAScorer")


def test_user_scorer_wrong_shape_is_reported():
    class TooMany(OrderingScorer):
        def score(self, candidates):
            return np.zeros(len(candidates) + 1)

    import sys
    import types

    mod = types.ModuleType("bad_scorer_mod")
    mod.TooMany = TooMany
    sys.modules["bad_scorer_mod"] = mod
    scorer = make_ordering_scorer("bad_scorer_mod:TooMany")
    with pytest.raises(ValueError, match="returned"):
        evaluation_discriminativeness(scorer, np.array([[1.0, 2], [2.0, 1]]))


def test_noise_orderings_are_uniform_permutations_and_seeded():
    a = random_orderings(rng_for(1, "x"), 4000, 3)
    b = random_orderings(rng_for(1, "x"), 4000, 3)
    assert np.array_equal(a, b)
    assert all(sorted(r) == [1, 2, 3] for r in a)
    _, counts = np.unique(a, axis=0, return_counts=True)
    assert len(counts) == 6 and counts.min() > 550  # 4000 / 6 = 667 each



def test_leave_one_out_needs_two_judges():
    with pytest.raises(ValueError, match="at least 2 judges"):
        leave_one_out_differences(make_ordering_scorer("ac_tau"), np.array([[1.0, 2, 3]]))
