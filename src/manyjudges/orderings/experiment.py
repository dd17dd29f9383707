"""The ordered-list experiments of Kim, Zhai, Han (2010): ED by noise ratio, FreSPA sweeps.

Noise draws depend on (seed, dataset, noise ratio, replicate, set) but not on the method,
so every method sees the same noisy gold sets (common random numbers).
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.io.tables import orderings_to_rank_matrices
from manyjudges.orderings.evaluation import leave_one_out_differences
from manyjudges.orderings.frespa import FreSPAParams, loo_differences_for_settings
from manyjudges.orderings.noise import noise_count, random_orderings
from manyjudges.random_streams import rng_for

log = logging.getLogger(__name__)

Panels = Mapping[str, np.ndarray]


def panels_from_table(orderings: pd.DataFrame) -> dict[str, np.ndarray]:
    """{set_id: (judges, items) rank matrix} from a canonical orderings table."""
    return {set_id: ranks for set_id, (_, _, ranks) in orderings_to_rank_matrices(orderings).items()}


def noise_for(seed: int, dataset: str, ratio: float, replicate: int, set_id: str, n_judges: int,
              n_items: int) -> np.ndarray:
    """The random gold orderings added to one set in one replicate."""
    rng = rng_for(seed, dataset, "noise", f"{ratio:g}", replicate, set_id)
    return random_orderings(rng, noise_count(ratio, n_judges), n_items)


def macro_ed(panels: Panels, scorer: Any, ratio: float, replicate: int, seed: int, dataset: str) -> float:
    """ED macro-averaged over sets for one noise draw."""
    eds = []
    for set_id, humans in panels.items():
        n, k = humans.shape
        noise = noise_for(seed, dataset, ratio, replicate, set_id, n, k)
        eds.append(leave_one_out_differences(scorer, humans, noise).mean())
    return float(np.mean(eds))


def ed_replicates(panels: Panels, scorer: Any, ratio: float, replicates: int, seed: int, dataset: str) -> pd.DataFrame:
    """One row per replicate: replicate, ed. Ratio 0 draws nothing, so it runs once."""
    n_rep = 1 if ratio == 0 else int(replicates)
    rows = []
    for rep in range(n_rep):
        rows.append((rep, macro_ed(panels, scorer, ratio, rep, seed, dataset)))
        log.info("%s noise %g: replicate %d/%d ED %.4f", dataset, ratio, rep + 1, n_rep, rows[-1][1])
    return pd.DataFrame(rows, columns=["replicate", "ed"])


def summarise(eds: pd.Series) -> dict[str, float]:
    """Mean, sample sd (0 for one replicate) and count."""
    values = np.asarray(eds, dtype=float)
    sd = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return {"ed_mean": float(values.mean()), "ed_sd": sd, "replicates": int(len(values))}


def ed_by_noise_row(per_replicate: pd.DataFrame, ratio: float, method: str) -> pd.DataFrame:
    """The results-contract row (noise_ratio, method, ed_mean, ed_sd, replicates)."""
    return pd.DataFrame([{"noise_ratio": ratio, "method": method, **summarise(per_replicate["ed"])}])


def ed_by_noise_table(panels: Panels, scorer: Any, ratios: Sequence[float], replicates: int, seed: int,
                      dataset: str, method: str) -> pd.DataFrame:
    """Results-contract rows (noise_ratio, method, ed_mean, ed_sd, replicates) of one method at
    several noise ratios, in the order given (one job of the pipeline covers several ratios)."""
    rows = [ed_by_noise_row(ed_replicates(panels, scorer, float(r), replicates, seed, dataset), float(r), method)
            for r in ratios]
    return pd.concat(rows, ignore_index=True)


def frespa_sweep(
    panels: Panels,
    parameter: str,
    values: Sequence[float],
    ratio: float,
    replicates: int,
    seed: int,
    dataset: str,
    base_params: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """ED of FreSPA as one parameter varies (paper Tables 2-4): parameter, value, noise_ratio, ed_mean, ed_sd.

    Patterns are counted once per set and replicate (at the lowest support threshold and
    longest length any value needs) and every value is scored from those counts.
    """
    base = dict(base_params or {})
    if parameter not in FreSPAParams.__dataclass_fields__:
        raise ValueError(f"unknown FreSPA parameter {parameter!r}; "
                         f"choose from {list(FreSPAParams.__dataclass_fields__)}")
    engine = base.pop("engine", None)
    settings = [FreSPAParams(**{**base, parameter: value}) for value in values]
    n_rep = 1 if ratio == 0 else int(replicates)
    eds = np.zeros((n_rep, len(settings)))
    for rep in range(n_rep):
        per_set = []
        for set_id, humans in panels.items():
            n, k = humans.shape
            noise = noise_for(seed, dataset, ratio, rep, set_id, n, k)
            per_set.append(loo_differences_for_settings(humans, noise, settings, engine).mean(axis=1))
        eds[rep] = np.mean(per_set, axis=0)
        log.info("%s sweep %s noise %g: replicate %d/%d done", dataset, parameter, ratio, rep + 1, n_rep)
    sd = eds.std(axis=0, ddof=1) if n_rep > 1 else np.zeros(len(settings))
    return pd.DataFrame(
        {"parameter": parameter, "value": list(values), "noise_ratio": ratio, "ed_mean": eds.mean(axis=0), "ed_sd": sd}
    )


def frespa_sweep_by_noise(panels: Panels, parameter: str, values: Sequence[float], ratios: Sequence[float],
                          replicates: int, seed: int, dataset: str,
                          base_params: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """:func:`frespa_sweep` at each noise ratio in turn, rows stacked in the order of ``ratios``."""
    return pd.concat([frespa_sweep(panels, parameter, values, float(r), replicates, seed, dataset, base_params)
                      for r in ratios], ignore_index=True)
