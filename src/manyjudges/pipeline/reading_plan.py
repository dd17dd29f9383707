"""Which readings the pipeline recomputes (docs/methods.md), as config lookups.

The noise experiment's readings of Table 1 (``orderings.readings``) and the FreSPA sweep's
(``orderings.sweep.readings``).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manyjudges.core.registry import method_spec

__all__ = [
    "noise_reading", "reading_datasets", "sweep_parameters", "sweep_reading_datasets", "sweep_reading_parameters",
    "sweep_reading_spec",
]


def sweep_parameters(section: Mapping[str, Any]) -> list[str]:
    """FreSPA parameters swept in this config (empty when there is no sweep)."""
    return list((section.get("sweep") or {}).get("parameters", {}) or {})


def noise_reading(orderings: Mapping[str, Any], variant: str | None = None) -> dict[str, str]:
    """Return the noise experiment's reading (``ed_over``, ``noise_rounding``).

    The section's own, or with one of ``orderings.readings.variants`` laid over it.
    """
    reading = {"ed_over": orderings["ed_over"], "noise_rounding": orderings["noise_rounding"]}
    if variant is not None:
        reading.update(orderings["readings"]["variants"][variant])
    return reading


def reading_datasets(orderings: Mapping[str, Any]) -> list[str]:
    """Return the ordering datasets on which Table 1 is recomputed under ``orderings.readings``."""
    readings = orderings.get("readings")
    if not readings:
        return []
    return list(readings.get("datasets") or orderings["datasets"])


#: what a sweep reading may change (``orderings.sweep.readings``) -> the swept parameters it changes
_SWEEP_READING_PARAMETERS = {"length_rounding": ("max_len_ratio", "min_len_ratio")}


def sweep_reading_parameters(orderings: Mapping[str, Any], variant: str) -> list[str]:
    """Return the swept parameters recomputed under ``orderings.sweep.readings[variant]``.

    Those it changes (Table 3's length ratios for ``length_rounding``), in the sweep's order.
    """
    changes = orderings["sweep"]["readings"][variant]
    changed = {parameter for key in changes for parameter in _SWEEP_READING_PARAMETERS[key]}
    return [parameter for parameter in sweep_parameters(orderings) if parameter in changed]


def sweep_reading_spec(orderings: Mapping[str, Any], variant: str | None = None) -> dict[str, Any]:
    """Return {method, params} of the sweep's method entry.

    With ``orderings.sweep.readings[variant]`` laid over its parameters.
    """
    sweep = orderings.get("sweep") or {}
    spec = method_spec(orderings, sweep.get("method", "frespa"))
    if variant is not None:
        spec["params"].update(sweep["readings"][variant])
    return spec


def sweep_reading_datasets(orderings: Mapping[str, Any]) -> list[str]:
    """Return the ordering datasets on which the sweep is recomputed under ``orderings.sweep.readings``.

    Those of ``orderings.readings.datasets`` (default every one); none without sweep readings.
    """
    if not (orderings.get("sweep") or {}).get("readings"):
        return []
    return list((orderings.get("readings") or {}).get("datasets") or orderings["datasets"])


def _check_sweep_readings(orderings: Mapping[str, Any]) -> None:
    """Fail before any job when a sweep reading cannot change anything the sweep computes."""
    sweep = orderings.get("sweep") or {}
    for variant, changes in (sweep.get("readings") or {}).items():
        where = f"config: orderings.sweep.readings.{variant}"
        if not sweep.get("noise_ratios"):
            raise ValueError(f"{where}: the sweep has no noise_ratios, so nothing would be recomputed")
        if not sweep_reading_parameters(orderings, variant):
            wanted = sorted({p for key in changes for p in _SWEEP_READING_PARAMETERS[key]})
            raise ValueError(f"{where} changes {', '.join(changes)}, which only matters to the swept parameters "
                             f"{wanted}; orderings.sweep.parameters has none of them")
