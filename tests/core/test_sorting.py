"""Sorting keys in place on several cores gives numpy's sort, for every shape of input."""
import numpy as np
import pytest

from manyjudges.core import sorting
from manyjudges.core.packed_keys import last
from manyjudges.core.sorting import row_keys, sort_in_place


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
@pytest.mark.parametrize("shape", ["random", "sorted", "nearly_sorted", "reversed", "few_values", "short"])
def test_sort_in_place_is_numpys_sort(monkeypatch, shape, cores):
    monkeypatch.setattr(sorting, "_PARALLEL_SIZE", 1000)  # the threaded way on small arrays too
    rng = np.random.default_rng(1)
    n = 7 if shape == "short" else 20_011
    values = {"random": rng.integers(-10**12, 10**12, n), "sorted": np.arange(n), "reversed": np.arange(n)[::-1].copy(),
              "few_values": rng.integers(0, 3, n), "short": rng.integers(0, 5, n),
              "nearly_sorted": np.arange(n) + (rng.random(n) < 0.01) * rng.integers(-50, 50, n)}[shape]
    expected = np.sort(values)
    sort_in_place(values, cores=cores)
    assert np.array_equal(values, expected)


@pytest.mark.parametrize("shape", ["codes", "one key", "wide codes", "negative", "floats", "empty"])
def test_row_keys_sort_rows_as_lexsort(monkeypatch, shape):
    """Rows sorted through packed keys come in np.lexsort's order; keys that do not pack are refused."""
    monkeypatch.setattr(sorting, "_PARALLEL_SIZE", 1000)
    rng = np.random.default_rng(2)
    n = 0 if shape == "empty" else 5_003
    keys = {"codes": [rng.integers(0, 40, n), rng.integers(0, 7, n), rng.integers(0, 3, n)],
            "one key": [rng.integers(0, 9, n)], "empty": [np.zeros(0, dtype=np.int64)] * 2,
            "wide codes": [rng.integers(0, 2**40, n), rng.integers(0, 2**30, n)],
            "negative": [rng.integers(-5, 5, n), rng.integers(0, 3, n)],
            "floats": [rng.random(n).round(1), rng.integers(0, 3, n)]}[shape]
    packed = row_keys(keys)
    assert (packed is not None) == (shape in ("codes", "one key"))
    if packed is not None:
        assert np.array_equal(last(*packed), np.lexsort(keys[::-1]))
