import numpy as np
import pytest
from reference import brute_force_common_subsequences, random_panel

from manyjudges.core.counting import common_precedence, count_paths_by_length, count_paths_total
from manyjudges.core.ranks import precedence_matrices


@pytest.mark.parametrize("seed", range(6))
def test_path_counts_equal_brute_force_common_subsequences(seed):
    rng = np.random.default_rng(seed)
    panel = random_panel(rng, 3, 6, ties=seed % 2 == 1, agreement=0.6)
    dag = common_precedence(precedence_matrices(panel), np.ones((1, 3), dtype=bool))
    counts = count_paths_by_length(dag)[0]
    brute = brute_force_common_subsequences(panel)
    assert counts[0] == 1
    assert [int(counts[L]) for L in range(1, 7)] == [brute[L] for L in range(1, 7)]
    assert count_paths_total(dag[0]) == sum(brute.values())


def test_identical_orderings_count_every_subsequence_exactly_even_beyond_int64():
    k = 70  # 2^70 - 1 non-empty subsequences: object (Python int) path
    panel = np.tile(np.arange(1, k + 1, dtype=float), (2, 1))
    dag = common_precedence(precedence_matrices(panel), np.ones((1, 2), dtype=bool))
    counts = count_paths_by_length(dag)[0]
    from math import comb

    assert [int(c) for c in counts[1:]] == [comb(k, L) for L in range(1, k + 1)]
    assert count_paths_total(dag[0]) == 2**k - 1


def test_float_path_exact_at_its_limit():
    k = 53
    dag = np.triu(np.ones((k, k), dtype=bool), 1)
    from math import comb

    counts = count_paths_by_length(dag)[0]
    assert counts.dtype == np.int64
    assert [int(c) for c in counts[1:]] == [comb(k, L) for L in range(1, k + 1)]


def test_empty_subset_rejected():
    with pytest.raises(ValueError, match="at least one"):
        common_precedence(np.zeros((2, 3, 3), dtype=bool), np.zeros((1, 2), dtype=bool))
