"""The "Readings" section of results/REPRODUCTION.md.

Each ambiguous choice of a paper, computed under each of its readings and compared with the paper's
own numbers.

A reading's distance to the paper is the mean absolute difference between our values and the
paper's over the cells of the table it was tested on (the cells both have); the families say
which cells and which values (e.g. Table 1 at noise ratios r > 0, as ED relative to r = 0).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Reading", "choice_readings", "mean_absolute_difference", "parameter_readings", "readings_markdown"]


@dataclass(frozen=True)
class Reading:
    """One choice tested on one table: the distance to the paper under each option (None: not computed)."""

    choice: str
    config_key: str
    tested_on: str
    distances: Mapping[str, float | None]
    default: str
    cells: int = 0
    family: str = ""
    reasons: Mapping[str, str] = field(default_factory=dict)

    def closest(self) -> str | None:
        """Return the option with the smallest distance, or None unless every option was computed."""
        values = {k: v for k, v in self.distances.items() if v is not None and not math.isnan(v)}
        if len(values) < len(self.distances) or not values:
            return None
        return min(values, key=values.__getitem__)

    def why(self) -> str:
        """Why the default is the default: it is the closest, or the stated reason, or it is not."""
        closest = self.closest()
        if closest is None:
            return "the other reading was not computed in this run"
        if closest == self.default:
            # closest() is not None: every distance was computed (none is None)
            others = [v for k, v in self.distances.items() if k != self.default and v is not None]
            default = self.distances[self.default]
            assert default is not None  # as every distance
            if not others:
                return "closest to the paper"
            ratio = min(others) / default if default else math.inf
            return f"closest to the paper ({ratio:.1f}x closer than the next)"
        if self.default in self.reasons:
            return f"not the closest here; {self.reasons[self.default]}"
        return f"not the closest here: `{closest}` is"


def mean_absolute_difference(ours: pd.Series, paper: pd.Series) -> tuple[float, int]:
    """(mean |ours - paper| over the cells where both are numbers, number of such cells)."""
    both = pd.DataFrame({"ours": ours.astype(float), "paper": paper.astype(float)}).dropna()
    if both.empty:
        return float("nan"), 0
    return float(np.mean(np.abs(both["ours"] - both["paper"]))), len(both)


def parameter_readings(methods: Mapping[str, Any], method: str, parameter: str, default: str, choice: str,
                       tested_on: str, distance: Callable[[str], tuple[float, int]], family: str = "") -> list[Reading]:
    """Return the readings of a method parameter.

    Configured entries of ``method`` (an entry's ``method``, else its name) whose parameters differ only
    in ``parameter``, each measured by ``distance(entry name)`` -> (distance, cells). One
    :class:`Reading` per such group of two or more entries, the default option first.
    """
    groups: dict[tuple, dict[str, str]] = {}
    for name, entry in methods.items():
        entry = entry or {}
        if entry.get("method", name) != method:
            continue
        params = dict(entry.get("params") or {})
        option = str(params.pop(parameter, default))
        groups.setdefault(tuple(sorted((k, repr(v)) for k, v in params.items())), {})[option] = name
    out = []
    for by_option in groups.values():
        if len(by_option) < 2:
            continue
        distances: dict[str, float | None] = {}
        cells = 0
        for option, name in sorted(by_option.items(), key=lambda item: item[0] != default):
            distances[option], cells = distance(name)
        out.append(Reading(choice, f"{method}: {parameter}", tested_on, distances, default, cells, family))
    return out


def choice_readings(choices: Sequence[tuple[str, str, str]], default_of: Callable[[str, str], Any],
                    methods: Mapping[str, Any], tested_on: str, cells: Callable[[str, str], pd.DataFrame],
                    family: str, paper: str = "paper") -> list[Reading]:
    """Return the readings (:func:`parameter_readings`) of each ``(method, parameter, choice)`` of ``choices``.

    ``default_of(method, parameter)``: the parameter's default (a registry's ``parameter_default``);
    ``cells(method, entry name)``: the entry's cells, our values in column ``ours`` and the paper's values
    of the method in column ``paper``. An entry's distance is their :func:`mean_absolute_difference`.
    """
    def distance(method: str, entry: str) -> tuple[float, int]:
        table = cells(method, entry)
        return mean_absolute_difference(table["ours"], table[paper])

    out = []
    for method, parameter, choice in choices:
        out += parameter_readings(methods, method, parameter, str(default_of(method, parameter)), choice, tested_on,
                                  partial(distance, method), family)
    return out


def _distance(value: float | None) -> str:
    return "not computed" if value is None or math.isnan(value) else f"{value:.4f}"


def readings_markdown(readings: Sequence[Reading], notes: Mapping[str, str] | None = None) -> str:
    """Return the section: one row per (choice, table) with the distance under each option, the default and why.

    ``notes``: by family, a paragraph on how its cells are measured (printed when it has rows).
    """
    families = {r.family for r in readings}
    if not readings:
        return ""
    lines = [
        "## Readings\n",
        "Where a paper is ambiguous, each reading is a config option; the run computes the paper's table under "
        "each and measures its distance to the paper: the mean absolute difference between our values and "
        "the paper's over the cells both have (`docs/methods.md` explains every reading).\n",
        *[f"{note}\n" for family, note in (notes or {}).items() if family in families],
        "| choice | config | tested on | cells | distance to the paper by option | default | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in readings:
        options = "; ".join(f"`{k}` {_distance(v)}" for k, v in r.distances.items())
        lines.append(f"| {r.choice} | `{r.config_key}` | {r.tested_on} | {r.cells} | {options} | `{r.default}` "
                     f"| {r.why()} |")
    return "\n".join(lines) + "\n"
