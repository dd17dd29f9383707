"""Formatting shared by every report section.

One value, a signed difference, `ours (paper)` cells, and a dataset's kind (simulated, the user's own,
public; or, beside paper values, the paper's own, a stand-in).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "fmt", "signed", "cell", "data_kind", "dataset_heading", "diff_cell", "comparison_data", "as_float", "as_int",
    "fixed",
]

#: the most decimals :func:`_interval_decimals` and :func:`_column_decimals` give
_MAX_DECIMALS = 12

#: config sources whose data the user supplies (a table of their own)
_USER_SOURCES = ("table", "preferences_table", "ratings_table", "verdicts_table")


def _is_missing(x: Any) -> bool:
    """Return True for None and float NaN (the values a report prints as missing)."""
    return x is None or (isinstance(x, float) and bool(np.isnan(x)))


def fmt(x: Any, digits: int = 3, missing: str = "n/a") -> str:
    """``x`` with ``digits`` decimals; ``missing`` for None or NaN."""
    return missing if _is_missing(x) else f"{x:.{digits}f}"


def signed(x: Any, digits: int = 3, missing: str = "n/a") -> str:
    """``x`` with an explicit sign and ``digits`` decimals (a difference); ``missing`` for None or NaN."""
    return missing if _is_missing(x) else f"{x:+.{digits}f}"


def cell(ours: Any, paper: Any, digits: int = 3) -> str:
    """Format a cell as ``ours (paper)``: the paper part only when there is a paper value (None: none).

    ``- (paper)`` when ours is missing, empty when both are.
    """
    if _is_missing(ours):
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
    return "your own data" if source in _USER_SOURCES else "real public data"


def dataset_heading(name: str, spec: Mapping[str, Any], notes: Mapping[str, str] | None = None,
                    end: str = ".") -> list[str]:
    """Return the opening parts of a dataset's section: its heading, its description, the note on its data.

    The heading names the dataset and its kind (:func:`data_kind`); the config's ``description`` follows,
    ended by ``end``; then the note of ``notes`` (by config ``source``) for the dataset's source, if any.
    """
    parts = [f"### Dataset `{name}` ({data_kind(spec.get('source'))})\n"]
    if spec.get("description"):
        parts.append(f"{spec['description']}{end}\n")
    if notes and spec.get("source") in notes:
        parts.append(notes[spec["source"]] + "\n")
    return parts


def comparison_data(source: str | None, paper_sources: tuple[str, ...] = ()) -> str:
    """Name what a comparison with a paper ran on, by the dataset's config ``source``.

    The paper's own data (a source in ``paper_sources``, declared by the family's report module),
    simulated, or a real stand-in (public data or the user's own).
    """
    if source in paper_sources:
        return "paper's own data"
    if source == "simulate":
        return "simulated"
    return "real stand-in (your own data)" if source in _USER_SOURCES else "real stand-in"


def as_float(value: Any) -> float:
    """Return one cell of a table row as a float (``row.column``, ``row["column"]``: any scalar to pandas' types)."""
    return float(value)


def as_int(value: Any) -> int:
    """Return one cell of a table row as an int (see :func:`as_float`)."""
    return int(value)


def _leading_place(x: np.ndarray) -> np.ndarray:
    """floor(log10 |x|): the decimal place of the leading digit of each x != 0 (0.234 -> -1, 23.4 -> 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor(np.log10(np.abs(x)))


def _interval_decimals(width: np.ndarray) -> np.ndarray:
    """Decimals to print a value and its interval with: the place of the width's leading digit, plus one.

    ``1 - floor(log10 width)``, at least 0 and at most :data:`_MAX_DECIMALS`: a width of 0.234 gives 2
    decimals, 2.3 gives 1, 23.4 (Elo points) gives 0. -1 (the caller's fallback) where the width is
    not finite and > 0 (no interval, or one of width 0).
    """
    width = np.asarray(width, dtype=float)
    ok = np.isfinite(width) & (width > 0)
    places = np.where(ok, 1.0 - _leading_place(np.where(ok, width, 1.0)), -1.0)
    return np.where(ok, np.clip(places, 0, _MAX_DECIMALS), -1).astype(int)


def _column_decimals(values: np.ndarray) -> int:
    """Decimals that give the column's largest |value| three significant digits: ``2 - floor(log10 max|x|)``.

    At least 0 and at most :data:`_MAX_DECIMALS` (2.34 -> 2, 0.523 -> 3, 234 -> 0); 0 for a column of
    zeros or missing values.
    """
    values = np.asarray(values, dtype=float)
    finite = np.abs(values[np.isfinite(values)])
    if not len(finite) or finite.max() == 0:
        return 0
    return int(np.clip(2.0 - _leading_place(np.array([finite.max()]))[0], 0, _MAX_DECIMALS))


def fixed(x: float, decimals: int, missing: str = "") -> str:
    """``x`` with ``decimals`` decimals, a rounded -0 printed as 0; ``missing`` for NaN."""
    if _is_missing(x) or not np.isfinite(x):
        return missing if _is_missing(x) else str(x)
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text
