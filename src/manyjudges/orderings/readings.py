"""The ordered-list readings tested against Kim, Zhai, Han (2010) Tables 1 and 3.

See docs/methods.md, "Noise", "Reading (length ratios)".

Three choices change Table 1 at noise ratios r > 0 (r = 0 is the same under all of them):
which orderings ED averages over (``orderings.ed_over``), how r n random orderings are counted
when r n is fractional (``orderings.noise_rounding``), and FreSPA's n in minSup x n
(``support_base``). Each reading's distance to the paper is the mean absolute difference over
Table 1's cells at r > 0 (:mod:`manyjudges.reporting.readings`) of the relative ED, ED(r) / ED(0):
the readings decide how ED falls with noise, not the data's own agreement at r = 0, which on a
stand-in for the paper's data differs from the paper's (on PrefLib's skating panels AC-tau's ED is
0.83 at r = 0, the paper's 0.454).

FreSPA's length rounding (how ratio x k becomes maxLen or minLen, ``length_rounding``) is tested on
Table 3 at every noise ratio, r = 0 included, as ED relative to ED at FreSPA's default lengths
(maxLen = k, minLen = 2) at the same r (:func:`_length_rounding_reading`).
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.orderings.evaluation import ED_OVER
from manyjudges.orderings.frespa import FreSPA
from manyjudges.orderings.frespa_params import _LENGTH_ROUNDINGS
from manyjudges.orderings.noise import NOISE_ROUNDINGS
from manyjudges.orderings.registry import _ORDERING_SCORERS
from manyjudges.reporting.formatting import as_float, data_kind
from manyjudges.reporting.paper_values import paper_values
from manyjudges.reporting.readings import Reading, mean_absolute_difference, parameter_readings

__all__ = ["NOTE"]

#: how the ordered-list readings are measured, for the report
NOTE = ("Ordered lists (Kim, Zhai, Han, Table 1): the noise readings are compared on ED relative to its value "
        "without noise, ED(r) / ED(0), at every r > 0, so a dataset whose judges agree more or less than the "
        "paper's still tests how ED falls with noise; the paper's own methods are compared (FreSPA's support "
        "base on FreSPA's column). FreSPA's length rounding is compared on Table 3 (maxLen / k and minLen / k, "
        "at r = 0 and under noise) on ED relative to its value at FreSPA's default lengths (maxLen = k, minLen = 2) "
        "at the same r, those cells themselves left out.")

#: why ``support_base: gold`` stays the default where the other reading is closer (docs/methods.md, "FreSPA")
SUPPORT_BASE_REASON = ("the default is the reading closer on the simulated panel shaped like the paper's data "
                       "(`sim_barzilay`, about 11x); on a stand-in whose judges agree far more, `judges` can be closer")

#: the noise experiment's readings: config key -> (what it decides, its options)
_NOISE_CHOICES = {
    "ed_over": ("ED under noise: the orderings it averages over", ED_OVER),
    "noise_rounding": ("noise: r n random orderings when r n is fractional", NOISE_ROUNDINGS),
}


def _table1_cells(ed: pd.DataFrame, paper: pd.DataFrame, paper_method: Mapping[str, str],
                 methods: list[str] | None = None) -> pd.DataFrame:
    """Return Table 1's cells at r > 0 (``method, noise_ratio, ours, paper``) of ``methods`` as relative ED.

    ``methods`` defaults to every method of ``ed``. Relative ED is ED(r) / ED(0), each compared with the
    paper's value of ``paper_method.get(method, method)``; NaN where either lacks r or r = 0.
    """
    p1 = paper[paper["table"] == "1"]

    def paper_at(method: str, ratio: float) -> float:
        at = (p1["method"] == paper_method.get(method, method)) & np.isclose(p1["noise_ratio"], ratio)
        values = p1.loc[at, "paper_value"].astype(float)
        return float(values.iloc[0]) if len(values) else np.nan

    at_zero = {row.method: as_float(row.ed_mean) for row in ed[ed["noise_ratio"] == 0].itertuples(index=False)}
    rows = ed[ed["noise_ratio"] > 0]
    if methods is not None:
        rows = rows[rows["method"].isin(methods)]
    out = []
    for row in rows.itertuples(index=False):
        r = as_float(row.noise_ratio)
        ours0, paper0 = at_zero.get(row.method, np.nan), paper_at(str(row.method), 0.0)
        out.append((row.method, r, as_float(row.ed_mean) / ours0 if ours0 else np.nan,
                    paper_at(str(row.method), r) / paper0 if paper0 else np.nan))
    return pd.DataFrame(out, columns=["method", "noise_ratio", "ours", "paper"])


def _distance(path: str | Path, paper: pd.DataFrame, paper_method: Mapping[str, str],
              methods: list[str] | None = None) -> tuple[float, int]:
    cells = _table1_cells(pd.read_csv(path, sep="\t"), paper, paper_method, methods)
    return mean_absolute_difference(cells["ours"], cells["paper"])


def _noise_readings(dataset: str, kind: str, default_table: str | Path, variant_tables: Mapping[str, str | Path],
                   default: Mapping[str, str], variants: Mapping[str, Mapping[str, str]],
                   paper_method: Mapping[str, str], paper: pd.DataFrame) -> list[Reading]:
    """Return one :class:`Reading` per noise choice.

    Each compares the default table with, for each other option, a variant that differs from the
    default in that choice only (None where none was run).

    Compared over the paper's own methods (entries compared with another method's paper value,
    such as a second FreSPA reading, are left out so every option is measured on the same cells).
    """
    own = pd.read_csv(default_table, sep="\t")
    paper_methods = sorted({m for m in own["method"] if paper_method.get(m, m) == m}
                           & set(paper.loc[paper["table"] == "1", "method"]))
    base, cells = _distance(default_table, paper, paper_method, paper_methods)
    out = []
    for key, (choice, options) in _NOISE_CHOICES.items():
        distances: dict[str, float | None] = {default[key]: base}
        for option in options:
            if option == default[key]:
                continue
            distances[option] = None
            for name, reading in variants.items():
                changed = {k for k in _NOISE_CHOICES if {**default, **reading}[k] != default[k]}
                if changed == {key} and reading[key] == option and name in variant_tables:
                    distances[option] = _distance(variant_tables[name], paper, paper_method, paper_methods)[0]
        out.append(Reading(choice, f"orderings.{key}", f"Table 1, `{dataset}` ({kind})", distances,
                           default[key], cells, "orderings"))
    return out


def _support_base_readings(dataset: str, kind: str, default_table: str | Path, methods: Mapping[str, Any],
                          paper: pd.DataFrame) -> list[Reading]:
    """Return the readings of FreSPA's support base.

    Two configured FreSPA entries whose parameters differ only in ``support_base``, each compared
    with the paper's FreSPA column at r > 0 (relative ED).
    """
    default = inspect.signature(FreSPA).parameters["support_base"].default
    rows = parameter_readings(methods, "frespa", "support_base", default, "FreSPA under noise: the n of minSup x n",
                              f"Table 1 FreSPA column, `{dataset}` ({kind})",
                              lambda name: _distance(default_table, paper, {name: "frespa"}, [name]), "orderings")
    return [replace(r, reasons={"gold": SUPPORT_BASE_REASON}) for r in rows]


#: the cells of Tables 2-4 at FreSPA's default parameters (wLen = wSup = 1, maxLen = k, minLen = 2, minSup = 0.75)
DEFAULT_SWEEP_CELLS = (("2", "w_len", 1.0), ("2", "w_sup", 1.0), ("3", "max_len_ratio", 1.0),
                       ("3", "min_len_ratio", 0.0), ("4", "min_sup", 0.75))


def _noisy_column_reading(paper: pd.DataFrame, noisy_ratio: float, ratios: Sequence[float] = (0.5, 1.0)) -> Reading:
    """Return the reading of the noise ratio of the "noisy" columns of Tables 2-4, on the paper's own numbers.

    At FreSPA's default parameters a noisy cell is FreSPA's ED under noise, so it should equal Table 1's
    FreSPA value at the ratio used; the distance of each ratio is the mean |noisy cell - Table 1(r)|
    over those cells. ``noisy_ratio`` is the run's (``orderings.sweep.noise_ratios``).
    """
    p1 = paper[(paper["table"] == "1") & (paper["method"] == "frespa")]
    noisy = []
    for table, parameter, value in DEFAULT_SWEEP_CELLS:
        at = ((paper["table"] == table) & (paper["parameter"] == parameter) & np.isclose(paper["value"], value)
              & (paper["noise_ratio"] > 0))
        noisy += paper.loc[at, "paper_value"].astype(float).tolist()
    distances: dict[str, float | None] = {}
    for r in sorted(set(ratios) | {float(noisy_ratio)}, key=lambda r: (r != noisy_ratio, r)):
        table1 = p1.loc[np.isclose(p1["noise_ratio"], r), "paper_value"].astype(float)
        cells = pd.Series(noisy)
        distances[f"r = {r:g}"] = (mean_absolute_difference(pd.Series(float(table1.iloc[0]), index=cells.index),
                                                            cells)[0] if len(table1) else None)
    return Reading("Tables 2-4: the noise ratio of the 'noisy' columns", "orderings.sweep.noise_ratios",
                   "the paper's own numbers: Tables 2-4's noisy cells at FreSPA's defaults vs Table 1's FreSPA row",
                   distances, f"r = {noisy_ratio:g}", len(noisy), "orderings")


#: Table 3's parameters and the value of each at FreSPA's default lengths (maxLen = k, minLen = 2)
_TABLE3_DEFAULTS = {"max_len_ratio": 1.0, "min_len_ratio": 0.0}


def _table3_cells(sweep: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Return Table 3's cells (``parameter, value, noise_ratio, ours, paper``) of a sweep table.

    At every noise ratio, as ED relative to ED at the parameter's default (:data:`_TABLE3_DEFAULTS`) at the
    same noise ratio, ours and the paper's each relative to its own; the default cells (1 by construction)
    are left out, and a cell is NaN where the paper or either ED is missing.
    """
    p3 = paper[(paper["table"] == "3") & (paper["method"] == "frespa")]

    def paper_at(parameter: str, value: float, ratio: float) -> float:
        at = (p3["parameter"] == parameter) & np.isclose(p3["value"], value) & np.isclose(p3["noise_ratio"], ratio)
        values = p3.loc[at, "paper_value"].astype(float)
        return float(values.iloc[0]) if len(values) else np.nan

    rows = sweep[sweep["parameter"].isin(list(_TABLE3_DEFAULTS))]
    out = []
    for row in rows.itertuples(index=False):
        default, r = _TABLE3_DEFAULTS[str(row.parameter)], as_float(row.noise_ratio)
        if np.isclose(as_float(row.value), default):
            continue
        at_default = rows[(rows["parameter"] == row.parameter) & np.isclose(rows["value"], default)
                          & np.isclose(rows["noise_ratio"], r)]["ed_mean"]
        ours0 = float(at_default.iloc[0]) if len(at_default) else np.nan
        paper0 = paper_at(str(row.parameter), default, r)
        out.append((row.parameter, as_float(row.value), r, as_float(row.ed_mean) / ours0 if ours0 else np.nan,
                    paper_at(str(row.parameter), as_float(row.value), r) / paper0 if paper0 else np.nan))
    return pd.DataFrame(out, columns=["parameter", "value", "noise_ratio", "ours", "paper"])


def _table3_distance(path: str | Path, paper: pd.DataFrame) -> tuple[float, int]:
    cells = _table3_cells(pd.read_csv(path, sep="\t"), paper)
    return mean_absolute_difference(cells["ours"], cells["paper"])


def _length_rounding_reading(dataset: str, kind: str, default_table: str | Path,
                            variant_tables: Mapping[str, str | Path], variants: Mapping[str, Mapping[str, str]],
                            default: str, paper: pd.DataFrame, config_key: str = "frespa: length_rounding") -> Reading:
    """Return the reading of FreSPA's length rounding on Table 3.

    The default sweep table (rounded by ``default``) against, for each other rounding, a sweep reading
    (``variants``: name -> the parameters it changes) that sets ``length_rounding`` to it and changes
    nothing else (None where none was run).
    """
    base, cells = _table3_distance(default_table, paper)
    distances: dict[str, float | None] = {default: base}
    for option in _LENGTH_ROUNDINGS:
        if option == default:
            continue
        distances[option] = None
        for name, changes in variants.items():
            if dict(changes) == {"length_rounding": option} and name in variant_tables:
                distances[option] = _table3_distance(variant_tables[name], paper)[0]
    return Reading("FreSPA Table 3: ratio x k rounded to a length", config_key,
                   f"Table 3, `{dataset}` ({kind})", distances, default, cells, "orderings")


def _ordering_readings(
    ed_tables: Mapping[str, str | Path],
    reading_tables: Mapping[str, Mapping[str, str | Path]],
    datasets: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, Mapping[str, Any]] | None,
    noise_reading: Mapping[str, str],
    reading_variants: Mapping[str, Mapping[str, str]],
    sweep_noise_ratios: Sequence[float] = (),
    sweep_tables: Mapping[str, str | Path] | None = None,
    sweep_reading_tables: Mapping[str, Mapping[str, str | Path]] | None = None,
    sweep_reading_variants: Mapping[str, Mapping[str, str]] | None = None,
    sweep_method: str = "frespa",
) -> list[Reading]:
    """Return the ordered-list readings of every dataset with ``reading_tables`` ({dataset: {variant: path}}).

    The noise experiment's (``noise_reading`` is the run's own, ``reading_variants`` the others) and
    FreSPA's support base; FreSPA's length rounding on Table 3 of every dataset with
    ``sweep_reading_tables`` ({dataset: {variant: path}}, the sweep under ``sweep_reading_variants``,
    against its ``sweep_tables`` entry; the default rounding is that of the ``sweep_method`` entry);
    and, when the sweep runs under noise (``sweep_noise_ratios``), the noise ratio of Tables 2-4's noisy
    columns, tested on the paper's own numbers.
    """
    paper = paper_values("kim2010")
    methods = dict(methods or {})
    paper_method = {name: (entry or {}).get("method", name) for name, entry in methods.items()}
    rows: list[Reading] = []
    for name, variants in reading_tables.items():
        kind = data_kind(datasets.get(name, {}).get("source")).strip("*")
        rows += _noise_readings(name, kind, ed_tables[name], variants, noise_reading, reading_variants,
                               paper_method, paper)
        rows += _support_base_readings(name, kind, ed_tables[name], methods, paper)
    if sweep_reading_tables:
        entry = methods.get(sweep_method) or {}
        builtin = _ORDERING_SCORERS.parameter_default(entry.get("method", sweep_method), "length_rounding")
        default = str((entry.get("params") or {}).get("length_rounding", builtin))
        for name, variants in sweep_reading_tables.items():
            kind = data_kind(datasets.get(name, {}).get("source")).strip("*")
            rows.append(_length_rounding_reading(name, kind, (sweep_tables or {})[name], variants,
                                                sweep_reading_variants or {}, default, paper,
                                                f"{sweep_method}: length_rounding"))
    noisy = [float(r) for r in sweep_noise_ratios if float(r) > 0]
    if noisy:
        rows.append(_noisy_column_reading(paper, max(noisy)))
    return rows
