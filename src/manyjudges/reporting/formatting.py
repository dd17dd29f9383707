"""Formatting shared by every report section.

One value, a signed difference, `ours (paper)` cells, and a dataset's kind (simulated, the user's own,
public; or, beside paper values, the paper's own, a stand-in).
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["USER_SOURCES", "is_missing", "fmt", "signed", "cell", "data_kind", "diff_cell", "comparison_data",
           "as_float", "as_int"]

#: config sources whose data the user supplies (a table of their own)
USER_SOURCES = ("table", "preferences_table", "ratings_table", "verdicts_table")


def is_missing(x: Any) -> bool:
    """Return True for None and float NaN (the values a report prints as missing)."""
    return x is None or (isinstance(x, float) and bool(np.isnan(x)))


def fmt(x: Any, digits: int = 3, missing: str = "n/a") -> str:
    """``x`` with ``digits`` decimals; ``missing`` for None or NaN."""
    return missing if is_missing(x) else f"{x:.{digits}f}"


def signed(x: Any, digits: int = 3, missing: str = "n/a") -> str:
    """``x`` with an explicit sign and ``digits`` decimals (a difference); ``missing`` for None or NaN."""
    return missing if is_missing(x) else f"{x:+.{digits}f}"


def cell(ours: Any, paper: Any, digits: int = 3) -> str:
    """Format a cell as ``ours (paper)``: the paper part only when there is a paper value (None: none).

    ``- (paper)`` when ours is missing, empty when both are.
    """
    if is_missing(ours):
        return "" if paper is None else f"- ({fmt(paper, digits, missing='')})"
    return fmt(ours, digits, missing="") + ("" if paper is None else f" ({fmt(paper, digits, missing='')})")


def diff_cell(ours: float, paper: float, digits: int = 3, sd: float | None = None) -> str:
    """``ours ± sd (paper, ours - paper)``; the ``± sd`` part only when ``sd`` > 0, ``n/a`` for missing values."""
    sd_text = f" ± {sd:.{digits}f}" if sd is not None and sd > 0 else ""
    return f"{fmt(ours, digits)}{sd_text} ({fmt(paper, digits)}, {signed(ours - paper, digits)})"


def data_kind(source: str | None) -> str:
    """How a report labels a dataset by its config ``source``: simulated, the user's own, or public."""
    if source == "simulate":
        return "**simulated**"
    return "your own data" if source in USER_SOURCES else "real public data"


def comparison_data(source: str | None, paper_sources: tuple[str, ...] = ()) -> str:
    """Name what a comparison with a paper ran on, by the dataset's config ``source``.

    The paper's own data (a source in ``paper_sources``, declared by the family's report module),
    simulated, or a real stand-in (public data or the user's own).
    """
    if source in paper_sources:
        return "paper's own data"
    if source == "simulate":
        return "simulated"
    return "real stand-in (your own data)" if source in USER_SOURCES else "real stand-in"


def as_float(value: Any) -> float:
    """One cell of a table row as a Python float.

    Parameters
    ----------
    value
        The cell (``row.column`` of ``itertuples``, ``row["column"]``), which pandas types as any scalar.

    Returns
    -------
    float
        ``float(value)``.
    """
    return float(value)


def as_int(value: Any) -> int:
    """One cell of a table row as a Python int.

    Parameters
    ----------
    value
        The cell (``row.column`` of ``itertuples``, ``row["column"]``), which pandas types as any scalar.

    Returns
    -------
    int
        ``int(value)``.
    """
    return int(value)
