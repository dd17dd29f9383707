"""Natural order of ids (numbers by value when every id is a digit string, else text) against a plain Python sort."""
import random
import re

import numpy as np
import pyarrow as pa
import pytest

from manyjudges.core.id_codes import code_ids
from manyjudges.core.natural_order import natural_key, natural_order, natural_sort


def plain_sorted(values: list[str]) -> list[str]:
    """The documented rule, written independently of the library."""
    if all(re.fullmatch("[0-9]+", v) for v in values):
        return sorted(values, key=lambda v: (int(v), v))
    return sorted(values)


def random_ids(seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = ["a", "b", "-", ":", "_", "é", "Ω", "٣", " ", "Z", "0", "1", "9", "5", "+"]
    shape = seed % 4
    values = []
    for _ in range(rng.randint(1, 400)):
        if shape == 0:  # one prefix and a number, as most ids are
            values.append("doc-" + str(rng.randint(0, 10 ** rng.randint(0, 12))))
        elif shape == 1:  # digit strings, some with leading zeros
            values.append("0" * (rng.random() < 0.1) + str(rng.randint(0, 10 ** rng.randint(0, 19))))
        elif shape == 2:  # prefixes, empty ones too
            values.append(rng.choice(["w", "", "item", "w-"]) + str(rng.randint(0, 5000)))
        else:
            values.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))))
    return values


def test_the_documented_cases():
    assert natural_sort(["10", "9", "010"]) == ["9", "010", "10"]
    assert natural_sort(["a7", "a07", "a10", "a2"]) == ["a07", "a10", "a2", "a7"]  # text: code point order
    assert natural_sort(["b", "a", "é", "Z"]) == ["Z", "a", "b", "é"]  # unicode by code point
    assert natural_sort(["x1", "1", "x"]) == ["1", "x", "x1"]  # an empty prefix among text ids
    assert natural_sort(["007", "7", "70"]) == ["007", "7", "70"]  # leading zeros kept distinct
    assert natural_sort([]) == []


@pytest.mark.parametrize("seed", range(16))
def test_random_ids_against_a_plain_python_sort(seed):
    values = random_ids(seed)
    order = natural_order(pa.array(values, type=pa.string()))
    assert [values[i] for i in order] == plain_sorted(values)
    assert sorted(values, key=natural_key(values)) == plain_sorted(values)


@pytest.mark.parametrize("seed", range(16))
def test_codes_are_positions_in_natural_order(seed):
    """Both ways of coding (a prefix and a number, or hashed) give each row its id's natural position."""
    values = random_ids(seed)
    distinct = plain_sorted(sorted(set(values)))
    rows = pa.chunked_array([pa.array(values[:len(values) // 2], type=pa.string()),
                             pa.array(values[len(values) // 2:], type=pa.string())])
    codes, ids = code_ids(rows)
    assert ids.to_pylist() == distinct
    assert [distinct[c] for c in codes] == values
    assert codes.dtype == np.int32


@pytest.mark.parametrize("values", [["a07", "a7"], ["x5", "x-5"], ["7", "0x1"], ["7", "+1"], ["7", " 1"],
                                    ["7", "1 "], ["0", "00"], ["w٣", "w1"], ["1" * 19, "2"], ["1.0", "2"],
                                    ["w1", "w10", "w9", "w100"], ["3", "30", "300", "4"]])
def test_ids_near_the_fast_shape(values):
    codes, ids = code_ids(pa.array(values, type=pa.string()))
    assert ids.to_pylist() == plain_sorted(sorted(set(values)))
    assert [ids[c].as_py() for c in codes] == values


def test_equal_ids_keep_their_order():
    assert natural_order(["b2", "a", "b2", "a", "b10"]).tolist() == [1, 3, 4, 0, 2]
