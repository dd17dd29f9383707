"""The ordered-list experiments of Kim, Zhai, Han (2010): ED by noise ratio, FreSPA sweeps.

Noise draws depend on (seed, dataset, noise ratio, replicate, set) but not on the method,
so every method sees the same noisy gold sets (common random numbers). Two readings of the
paper's noise experiment are options (docs/methods.md, "Noise"): ``ed_over`` (ED over every
ordering of the noisy set, or over the human judges only) and ``noise_rounding`` (how r n random
orderings are counted when r n is fractional); both rounding rules draw the same first orderings.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.random_streams import rng_for
from manyjudges.io.tables.orderings import orderings_to_rank_matrices
from manyjudges.orderings.evaluation import ED_OVER, noisy_set_differences
from manyjudges.orderings.frespa import FreSPAParams, loo_differences_for_settings
from manyjudges.orderings.noise import noise_count, random_orderings

log = logging.getLogger(__name__)

Panels = Mapping[str, np.ndarray]


def panels_from_table(orderings: pd.DataFrame) -> dict[str, np.ndarray]:
    """{set_id: (judges, items) rank matrix} from a canonical orderings table."""
    return {set_id: ranks for set_id, (_, _, ranks) in orderings_to_rank_matrices(orderings).items()}


#: the readings of the noise experiment the library uses unless told otherwise (docs/methods.md, "Noise")
DEFAULT_ED_OVER = "all"
DEFAULT_NOISE_ROUNDING = "floor"


def noise_for(seed: int, dataset: str, ratio: float, replicate: int, set_id: str, n_judges: int,
              n_items: int, noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> np.ndarray:
    """Return the random gold orderings added to one set in one replicate."""
    rng = rng_for(seed, dataset, "noise", f"{ratio:g}", replicate, set_id)
    return random_orderings(rng, noise_count(ratio, n_judges, noise_rounding), n_items)


def macro_ed(panels: Panels, scorer: Any, ratio: float, replicate: int, seed: int, dataset: str,
             ed_over: str = DEFAULT_ED_OVER, noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> float:
    """ED macro-averaged over sets for one noise draw."""
    eds = []
    for set_id, humans in panels.items():
        n, k = humans.shape
        noise = noise_for(seed, dataset, ratio, replicate, set_id, n, k, noise_rounding)
        eds.append(noisy_set_differences(scorer, humans, noise, ed_over).mean())
    return float(np.mean(eds))


def ed_replicates(panels: Panels, scorer: Any, ratio: float, replicates: int, seed: int, dataset: str,
                  ed_over: str = DEFAULT_ED_OVER, noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> pd.DataFrame:
    """One row per replicate: replicate, ed. Ratio 0 draws nothing, so it runs once."""
    n_rep = 1 if ratio == 0 else int(replicates)
    rows = []
    for rep in range(n_rep):
        rows.append((rep, macro_ed(panels, scorer, ratio, rep, seed, dataset, ed_over, noise_rounding)))
        log.info("%s noise %g: replicate %d/%d ED %.4f", dataset, ratio, rep + 1, n_rep, rows[-1][1])
    return pd.DataFrame(rows, columns=["replicate", "ed"])


def summarise(eds: pd.Series) -> dict[str, float]:
    """Mean, sample sd (0 for one replicate) and count."""
    values = np.asarray(eds, dtype=float)
    sd = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return {"ed_mean": float(values.mean()), "ed_sd": sd, "replicates": int(len(values))}


def ed_by_noise_row(per_replicate: pd.DataFrame, ratio: float, method: str) -> pd.DataFrame:
    """Return the results-contract row (noise_ratio, method, ed_mean, ed_sd, replicates)."""
    return pd.DataFrame([{"noise_ratio": ratio, "method": method, **summarise(per_replicate["ed"])}])


def ed_by_noise_table(panels: Panels, scorer: Any, ratios: Sequence[float], replicates: int, seed: int,
                      dataset: str, method: str, ed_over: str = DEFAULT_ED_OVER,
                      noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> pd.DataFrame:
    """Return the results-contract rows (noise_ratio, method, ed_mean, ed_sd, replicates) of one method.

    One row per noise ratio of ``ratios``, in the order given (one job of the pipeline covers several ratios).
    """
    rows = [ed_by_noise_row(ed_replicates(panels, scorer, float(r), replicates, seed, dataset, ed_over,
                                          noise_rounding), float(r), method)
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
    ed_over: str = DEFAULT_ED_OVER,
    noise_rounding: str = DEFAULT_NOISE_ROUNDING,
) -> pd.DataFrame:
    """ED of FreSPA as one parameter varies (paper Tables 2-4): parameter, value, noise_ratio, ed_mean, ed_sd.

    Patterns are counted once per set and replicate (at the lowest support threshold and
    longest length any value needs) and every value is scored from those counts.
    """
    if ed_over not in ED_OVER:
        raise ValueError(f"ed_over must be one of {', '.join(ED_OVER)}, got {ed_over!r}")
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
            noise = noise_for(seed, dataset, ratio, rep, set_id, n, k, noise_rounding)
            terms = [loo_differences_for_settings(humans, noise, settings, engine)]
            if ed_over == "all" and len(noise):  # the random orderings held out against the rest
                terms.append(loo_differences_for_settings(noise, humans, settings, engine, judges_in_gold=n))
            per_set.append(np.hstack(terms).mean(axis=1))
        eds[rep] = np.mean(per_set, axis=0)
        log.info("%s sweep %s noise %g: replicate %d/%d done", dataset, parameter, ratio, rep + 1, n_rep)
    sd = eds.std(axis=0, ddof=1) if n_rep > 1 else np.zeros(len(settings))
    return pd.DataFrame(
        {"parameter": parameter, "value": list(values), "noise_ratio": ratio, "ed_mean": eds.mean(axis=0), "ed_sd": sd}
    )


def frespa_sweep_by_noise(panels: Panels, parameter: str, values: Sequence[float], ratios: Sequence[float],
                          replicates: int, seed: int, dataset: str,
                          base_params: Mapping[str, Any] | None = None, ed_over: str = DEFAULT_ED_OVER,
                          noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> pd.DataFrame:
    """:func:`frespa_sweep` at each noise ratio in turn, rows stacked in the order of ``ratios``."""
    return pd.concat([frespa_sweep(panels, parameter, values, float(r), replicates, seed, dataset, base_params,
                                   ed_over, noise_rounding)
                      for r in ratios], ignore_index=True)


def frespa_sweeps(panels: Panels, sweeps: Sequence[tuple[str, Sequence[float], int]], ratios: Sequence[float],
                  seed: int, dataset: str, base_params: Mapping[str, Any] | None = None,
                  ed_over: str = DEFAULT_ED_OVER, noise_rounding: str = DEFAULT_NOISE_ROUNDING) -> pd.DataFrame:
    """:func:`frespa_sweep_by_noise` of each (parameter, values, replicates) in turn, rows stacked in that order.

    The noise does not depend on the swept parameter, so one job's sweeps equal each swept alone.
    """
    return pd.concat([frespa_sweep_by_noise(panels, parameter, values, ratios, replicates, seed, dataset, base_params,
                                            ed_over, noise_rounding)
                      for parameter, values, replicates in sweeps], ignore_index=True)
