"""Sorting keys in place on several cores gives numpy's sort, for every shape of input."""
import numpy as np
import pytest

from manyjudges.core import sorting
from manyjudges.core.sorting import sort_in_place


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
@pytest.mark.parametrize("shape", ["random", "sorted", "nearly_sorted", "reversed", "few_values", "short"])
def test_sort_in_place_is_numpys_sort(monkeypatch, shape, cores):
    monkeypatch.setattr(sorting, "PARALLEL_SIZE", 1000)  # the threaded way on small arrays too
    rng = np.random.default_rng(1)
    n = 7 if shape == "short" else 20_011
    values = {"random": rng.integers(-10**12, 10**12, n), "sorted": np.arange(n), "reversed": np.arange(n)[::-1].copy(),
              "few_values": rng.integers(0, 3, n), "short": rng.integers(0, 5, n),
              "nearly_sorted": np.arange(n) + (rng.random(n) < 0.01) * rng.integers(-50, 50, n)}[shape]
    expected = np.sort(values)
    sort_in_place(values, cores=cores)
    assert np.array_equal(values, expected)
