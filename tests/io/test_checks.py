"""The shared checks of every reader: repeated rows against a plain loop, blank strings against str.isspace."""
import sys

import numpy as np
import pyarrow as pa
import pytest

from manyjudges.io.engine.checks import _repeated_rows, blank_strings, sorted_rows


def loop_repeats(keys, keep):
    rows = list(zip(*[k.tolist() for k in keys]))
    order = range(len(rows)) if keep == "first" else range(len(rows) - 1, -1, -1)
    head, repeated = {}, {}
    for r in order:
        if rows[r] in head:
            repeated[r] = head[rows[r]]
        else:
            head[rows[r]] = r
    found = sorted(repeated)
    return found, [repeated[r] for r in found]


@pytest.mark.parametrize("keep", ["first", "last"])
@pytest.mark.parametrize("shape", ["one key, no repeat", "one key, repeats", "two keys", "sparse codes",
                                   "negative codes", "codes too wide to pack"])
def test_repeated_rows_is_the_loop(shape, keep):
    rng = np.random.default_rng(len(shape))
    keys = {"one key, no repeat": [rng.permutation(500)], "one key, repeats": [rng.integers(0, 400, 500)],
            "two keys": [rng.integers(0, 30, 500), rng.integers(0, 30, 500)],
            "sparse codes": [rng.permutation(500) * 10**9],
            "negative codes": [rng.integers(-20, 20, 500), rng.integers(0, 30, 500)],  # np.lexsort's way
            "codes too wide to pack": [rng.integers(0, 3, 500) * 2**40, rng.integers(0, 3, 500) * 2**30]}[shape]
    rows, heads = _repeated_rows(keys, keep)
    expected_rows, expected_heads = loop_repeats(keys, keep)
    assert rows.tolist() == expected_rows and heads.tolist() == expected_heads
    order, same = sorted_rows(keys)  # packed keys where they fit, else np.lexsort: the same order
    assert np.array_equal(order, np.lexsort(keys[::-1]))
    assert same.tolist() == [all(k[a] == k[b] for k in keys) for a, b in zip(order[1:], order[:-1])]


def test_blank_strings_are_pythons_isspace():
    values = ["", " ", "\t\u3000", "a", " a ", "\u200b", "\u00a0", "-"]
    assert blank_strings(pa.array(values)).tolist() == [not v.strip() for v in values]
    assert blank_strings(pa.array(values).dictionary_encode()).tolist() == [not v.strip() for v in values]



def test_blank_strings_of_many_kinds_are_pythons_isspace():
    """Every whitespace character at the start, middle and end, in chunks and slices, against str.strip."""
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    rng = np.random.default_rng(3)
    values = ["", "a", "é", "\u200b", "\u3001", "x y"] + spaces + [s + t for s in spaces for t in ("", "a", " ")]
    values += ["".join(rng.choice(spaces + ["a", "é", "\u4e00"], rng.integers(1, 5))) for _ in range(2000)]
    expected = [not v.strip() for v in values]
    array = pa.array(values, type=pa.string())
    assert blank_strings(array).tolist() == expected
    assert blank_strings(array.slice(7)).tolist() == expected[7:]
    chunked = pa.chunked_array([array.slice(0, 100), array.slice(100)])
    assert blank_strings(chunked).tolist() == expected
