"""Finding ids among ids: by number for one prefix and a number, else hashed; always what Arrow's index_in finds."""
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from manyjudges.core import coded_labels
from manyjudges.core.coded_labels import id_positions

RNG = np.random.default_rng(0)
CASES = {
    "dense numbers": ([f"d{i}" for i in RNG.permutation(1000)], [f"d{i}" for i in RNG.integers(0, 1500, 3000)]),
    "sparse numbers": ([f"d{i}" for i in RNG.permutation(1000) * 10**6],
                       [f"d{i}" for i in RNG.integers(0, 1000, 3000) * 10**6] + ["d5", "d07"]),
    "other shapes wanted": ([f"d{i}" for i in range(10)], ["d1", "d01", "e1", "d-1", "d", "d+1", " d1"]),
    "a repeated id": ([f"d{i}" for i in range(10)] + ["d3"], ["d3", "d9"]),
    "digits": ([str(i) for i in range(50)], [str(i) for i in range(60)]),
    "the same ids": ([f"w{i}" for i in range(20)], [f"w{i}" for i in range(20)]),
    "text": (["a", "b", "Ω"], ["Ω", "c", "a"]),
    "numbers and text": ([1, 2, 3], ["3", "1", "x"]),
}


def index_in(ids, wanted) -> np.ndarray:
    text = [pa.array([str(v) for v in values]) for values in (ids, wanted)]
    return pc.index_in(text[1], value_set=text[0]).fill_null(-1).to_numpy(zero_copy_only=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_positions_are_index_ins(case):
    ids, wanted = CASES[case]
    got = id_positions(np.asarray(ids, dtype=object), np.asarray(wanted, dtype=object))
    assert got.dtype == np.int64 and np.array_equal(got, index_in(ids, wanted))


def test_numbered_ids_are_found_by_number(monkeypatch):
    calls = []
    monkeypatch.setattr(coded_labels.pc, "index_in", lambda *a, **k: calls.append(1))
    ids, wanted = CASES["dense numbers"]
    id_positions(np.asarray(ids, dtype=object), np.asarray(wanted, dtype=object))
    assert not calls
