"""Codes packed into one int64 key order as the codes do and unpack to the codes, in bit fields or mixed radix."""
import numpy as np
import pytest

from manyjudges.core.packed_keys import fits, last, pack, prefix, unpack


@pytest.mark.parametrize("sizes", [(5, 3, 2), (1, 1, 1), (10**6, 10**4, 3), (2**20, 2**21, 2**22),
                                   (2**15 + 1,) * 4])  # the last: too wide for bit fields, not for a radix
def test_keys_order_as_the_codes_and_unpack_to_them(sizes):
    rng = np.random.default_rng(len(sizes) + sizes[0] % 97)
    columns = [rng.integers(0, n, 5000) for n in sizes]
    columns[0][:3] = sizes[0] - 1  # the largest codes too
    assert fits(sizes)
    key = pack(columns, sizes)
    order = np.lexsort(columns[::-1])
    assert np.array_equal(np.argsort(key, kind="stable"), order)
    assert all(np.array_equal(a, b) for a, b in zip(unpack(key.copy(), sizes), columns))
    assert np.array_equal(last(key, sizes), columns[-1])
    head = prefix(key, sizes, 1)
    rows = np.lexsort(columns[-2::-1])
    assert np.array_equal(np.argsort(head, kind="stable"), rows)


def test_codes_that_do_not_fit_are_refused():
    assert not fits((2**32, 2**32))
    with pytest.raises(ValueError, match="64-bit"):
        pack([np.zeros(2, dtype=np.int64)] * 2, (2**32, 2**32))
