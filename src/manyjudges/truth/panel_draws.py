"""The pieces the simulated panels of :mod:`manyjudges.truth.scenarios` share.

Checks of a scenario's options (a ValueError naming the scenario, the option and the value), seeded draws, and
the long tables they return.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Tables", "categorical", "check_number", "distinct_judges"]

#: (labels ``item, judge, label``; truth ``item, truth``)
Tables = tuple[pd.DataFrame, pd.DataFrame]


def _fail(scenario: str, option: str, value: Any, must: str) -> None:
    """Raise a ValueError naming the scenario, the option, what it must be and the value it got."""
    raise ValueError(f"{scenario}: {option} must be {must}, got {value!r}")


def _check_int(scenario: str, option: str, value: Any, low: int, high: int | None = None) -> int:
    """Return the option ``value`` as an int: an integer (not a bool) >= ``low`` and <= ``high`` (if given).

    Anything else is a ValueError (:func:`_fail`).
    """
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= low \
        and (high is None or value <= high)
    if not ok:
        _fail(scenario, option, value, f"an integer >= {low}" if high is None else f"an integer in {low}..{high}")
    return int(value)


def check_number(scenario: str, option: str, value: Any, low: float, high: float | None = None,
                  open_low: bool = False, open_high: bool = False) -> float:
    """Return the option ``value`` as a float: a finite number (not a bool) within ``low`` .. ``high``.

    The bounds are closed unless ``open_low`` / ``open_high``; no ``high``: unbounded above. Anything else is
    a ValueError (:func:`_fail`).
    """
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) \
        and np.isfinite(value)
    ok = ok and (value > low if open_low else value >= low) \
        and (high is None or (value < high if open_high else value <= high))
    if not ok:
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        _fail(scenario, option, value, f"a number in {left}{low}, {'inf' if high is None else high}{right}")
    return float(value)


def _check_range(scenario: str, option: str, value: Any, open_ends: bool = False) -> tuple[float, float]:
    """Check a (low, high) pair of probabilities, low <= high (strictly inside (0, 1) with ``open_ends``)."""
    pair = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    ok = pair is not None and len(pair) == 2 and all(
        isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool)
        and (0 < p < 1 if open_ends else 0 <= p <= 1) for p in pair) and pair[0] <= pair[1]
    if not ok:
        bounds = "0 < low <= high < 1" if open_ends else "0 <= low <= high <= 1"
        _fail(scenario, option, value, f"a pair [low, high] with {bounds}")
    assert pair is not None
    return float(pair[0]), float(pair[1])


def _priors_of(scenario: str, value: Sequence[float] | None, n_classes: int, default: np.ndarray) -> np.ndarray:
    """Return the class priors, normalised: ``value`` (K non-negative numbers, positive sum) or ``default``."""
    if value is None:
        return default / default.sum()
    p = np.asarray(value, dtype=float) if isinstance(value, (list, tuple, np.ndarray)) else None
    if p is None or p.shape != (n_classes,) or not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
        _fail(scenario, "class_priors", value, f"{n_classes} non-negative numbers (n_classes) with a positive sum")
    assert p is not None
    return p / p.sum()


def categorical(rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """One draw per row of ``weights`` (rows of non-negative numbers, positive sums) by inversion."""
    cum = np.cumsum(weights, axis=1)
    u = rng.random(len(weights)) * cum[:, -1]
    return np.minimum((u[:, None] >= cum).sum(axis=1), weights.shape[1] - 1)


def distinct_judges(rng: np.random.Generator, n_items: int, n_judges: int, per_item: int) -> np.ndarray:
    """(n_items, per_item) judge codes: each item's judges drawn uniformly without replacement."""
    return np.argsort(rng.random((n_items, n_judges)), axis=1)[:, :per_item]


def _label_tables(item: np.ndarray, judge: np.ndarray, label: np.ndarray, truth: np.ndarray, n_judges: int) -> Tables:
    """Make the long labels table (rows in item order, then judge) and the truth table, with string ids."""
    order = np.lexsort((judge, item))
    item_ids = np.array([f"i{i + 1:04d}" for i in range(len(truth))])
    judge_ids = np.array([f"w{j + 1:03d}" for j in range(n_judges)])
    labels = pd.DataFrame({"item": item_ids[item[order]], "judge": judge_ids[judge[order]],
                           "label": label[order].astype(np.int64)})
    return labels, pd.DataFrame({"item": item_ids, "truth": truth.astype(np.int64)})


def _other_uniform(rng: np.random.Generator, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Draw a class uniformly among the K - 1 others than ``y``."""
    return (y + rng.integers(1, n_classes, len(y))) % n_classes


def _panel_shape(scenario: str, n_items: Any, n_classes: Any, n_judges: Any, labels_per_item: Any
                ) -> tuple[int, int, int, int]:
    """(n_items >= 1, n_classes >= 2, n_judges >= 2, labels_per_item in 1..n_judges), checked."""
    n_items = _check_int(scenario, "n_items", n_items, 1)
    n_classes = _check_int(scenario, "n_classes", n_classes, 2)
    n_judges = _check_int(scenario, "n_judges", n_judges, 2)
    return n_items, n_classes, n_judges, _check_int(scenario, "labels_per_item", labels_per_item, 1, n_judges)
