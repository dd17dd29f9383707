import itertools

import numpy as np
import pytest

from manyjudges.consensus.aggregators import borda, condorcet_fuse, rank_sum
from manyjudges.consensus.registry import get_aggregator


def test_hand_computed_small_case():
    lists = [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]]
    # Borda points (L - pos): a 3+2+3=8, b 2+3+1=6, c 1+1+2=4
    assert borda(lists) == ["a", "b", "c"]
    assert rank_sum(lists) == ["a", "b", "c"]  # sums 4, 6, 8
    assert condorcet_fuse(lists) == ["a", "b", "c"]  # a beats b 2-1, a beats c 3-0, b beats c 2-1


def test_partial_lists_absent_items_rank_last():
    lists = [["x", "y"], ["y", "z"]]
    # rank_sum with absent = L + 1 = 3: x 1+3=4, y 2+1=3, z 3+2=5
    assert rank_sum(lists) == ["y", "x", "z"]
    # Borda: x 2, y 1+2=3, z 1
    assert borda(lists) == ["y", "x", "z"]


@pytest.mark.parametrize("name", ["borda", "rank_sum", "condorcet_fuse"])
def test_unanimous_lists_are_returned_unchanged(name):
    rng = np.random.default_rng(0)
    base = list(rng.permutation(12))
    assert get_aggregator(name)([base] * 5) == base


def test_condorcet_winner_comes_first_and_transitive_majority_is_respected():
    rng = np.random.default_rng(1)
    for _ in range(20):
        lists = [list(rng.permutation(5)) for _ in range(5)]  # odd voters: no pairwise ties
        out = condorcet_fuse(lists)

        def beats(a, b, lists=lists):
            return sum(ranking.index(a) < ranking.index(b) for ranking in lists) > len(lists) / 2

        transitive = all(
            not (beats(a, b) and beats(b, c) and beats(c, a)) for a, b, c in itertools.permutations(range(5), 3)
        )
        if transitive:
            assert all(beats(out[i], out[j]) for i in range(5) for j in range(i + 1, 5))


def test_unknown_aggregator():
    with pytest.raises(ValueError, match="unknown consensus aggregator method .median."):
        get_aggregator("median")
