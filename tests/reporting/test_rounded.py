"""The decimals a number is shown with, against the exponent of its scientific notation (an independent reading of
the leading digit's place)."""
import numpy as np
import pandas as pd

from manyjudges.reporting.formatting import _MAX_DECIMALS, _column_decimals, _interval_decimals, fixed
from manyjudges.reporting.rounded import rounded_cells


def exponent(x: float) -> int:
    """The place of the leading digit, read from Python's scientific notation (the text after 'e')."""
    return int(f"{x:.15e}".split("e")[1])


def test_interval_decimals_are_the_widths_leading_place_plus_one():
    rng = np.random.default_rng(0)
    widths = 10.0 ** rng.uniform(-6, 4, 500)
    expected = [min(max(1 - exponent(w), 0), _MAX_DECIMALS) for w in widths]
    assert list(_interval_decimals(widths)) == expected
    assert list(_interval_decimals(np.array([0.234, 2.3, 23.4, 0.0, np.nan, -1.0]))) == [2, 1, 0, -1, -1, -1]


def test_column_decimals_give_the_largest_value_three_significant_digits():
    rng = np.random.default_rng(1)
    for _ in range(200):
        column = rng.normal(0, 10.0 ** rng.uniform(-4, 4), 7)
        largest = np.abs(column).max()
        assert _column_decimals(column) == min(max(2 - exponent(largest), 0), _MAX_DECIMALS)
        digits = f"{largest:.{_column_decimals(column)}f}".replace(".", "").lstrip("0")
        assert len(digits) >= 3 or largest >= 100  # three significant digits at least
    assert _column_decimals(np.array([0.0, np.nan])) == 0


def test_a_rounded_zero_has_no_sign_and_blanks_are_blank():
    assert [fixed(x, 2) for x in (-0.0004, -0.004, -0.006, 0.004)] == ["0.00", "0.00", "-0.01", "0.00"]
    assert fixed(-12.0, 0) == "-12" and fixed(-0.4, 0) == "0"
    assert fixed(float("nan"), 2) == ""
    cells = rounded_cells(pd.DataFrame({"n": pd.array([1234, None], dtype="Int64"), "t": ["a", None]}))
    assert cells == {"n": ["1,234", ""], "t": ["a", ""]}
