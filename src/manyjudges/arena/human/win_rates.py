"""Human-calibrated win rates against a baseline: the PPI++ mean of each model's preference over the baseline.

A unit is a (prompt, model) where the model met the baseline; its LLM prediction is the mean preference p
of its LLM verdicts, its human label the mean p of its human verdicts (p: 1 a win, 0 a loss, 1/2 a tie, or
the judge's soft preference). Per model, prediction-powered inference for a mean with power tuning
(Angelopoulos, Duchi and Zrnic, "PPI++", 2023): :func:`~manyjudges.core.prediction_powered.ppi_mean`,
labelled its units with a human verdict, unlabelled its other units; the interval is estimate +- z
sqrt(variance). The leaderboard's calibration is :mod:`manyjudges.arena.human.leaderboard`.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.special import ndtri  # the normal quantile, as scipy.stats.norm.ppf

from manyjudges.core.prediction_powered import ppi_mean
from manyjudges.io.engine.errors import DataWarning

__all__ = ["calibrated_win_rates", "verdicts_win_rates"]

#: the columns of :func:`calibrated_win_rates`
_WIN_RATE_COLUMNS = ["model", "win_rate", "ci_low", "ci_high", "lambda", "n_human", "n_llm_units", "worth",
                    "human_win_rate", "llm_win_rate"]
_SHOWN = 5  # units named in an error


def _preference_units(preferences: pd.DataFrame, what: str) -> pd.DataFrame:
    """Mean preference ``p`` per (prompt, model) unit of a ``prompt, judge, model, p`` frame."""
    missing = [c for c in ("prompt", "model", "p") if c not in preferences.columns]
    if missing:
        raise ValueError(f"the {what} preferences lack the columns {', '.join(missing)}")
    p = np.asarray(pd.to_numeric(preferences["p"], errors="coerce"), dtype=float)
    bad = np.flatnonzero(~((p >= 0) & (p <= 1)))
    if len(bad):
        value = preferences["p"].iloc[bad[0]]
        raise ValueError(f"the {what} preferences' p must be in [0, 1]: row {bad[0]} has {value}")
    frame = pd.DataFrame({"prompt": preferences["prompt"].astype(str).to_numpy(),
                          "model": preferences["model"].astype(str).to_numpy(), "p": p})
    return frame.groupby(["prompt", "model"], sort=True)["p"].mean().reset_index()


def _model_win_rate(model: str, units: pd.DataFrame, ci: float, lam: float | None) -> list[object]:
    """One row of :func:`calibrated_win_rates` for ``model`` (NaN estimates with fewer than 2 human units)."""
    labelled = units["p_human"].notna().to_numpy()
    h, f = units["p_human"].to_numpy(float), units["p"].to_numpy(float)
    llm_rate = float(f.mean())
    if labelled.sum() < 2:
        return [model, np.nan, np.nan, np.nan, np.nan, int(labelled.sum()), len(f), np.nan, np.nan, llm_rate]
    est = ppi_mean(h[labelled], f[labelled], f[~labelled], lam)
    half = ndtri(0.5 + ci / 2.0) * np.sqrt(est.variance)
    return [model, est.estimate, est.estimate - half, est.estimate + half, est.lam, est.n, len(f), est.worth,
            float(h[labelled].mean()), llm_rate]


def calibrated_win_rates(llm: pd.DataFrame, human: pd.DataFrame, ci: float = 0.95, lam: float | None = None
                         ) -> pd.DataFrame:
    """Human-calibrated win rates against a baseline: per model, the PPI++ mean of p over its units.

    ``llm`` and ``human`` are ``prompt, judge, model, p`` frames (``p``: a verdict's preference for the model
    over the baseline, in [0, 1], a tie 0.5). A unit is a (prompt, model); its LLM prediction is the mean p
    of its LLM verdicts, its human label the mean p of its human verdicts. Per model,
    :func:`~manyjudges.core.prediction_powered.ppi_mean` (labelled: its units with a human verdict;
    unlabelled: its other units); the interval is estimate +- z sqrt(variance). Returns
    :data:`_WIN_RATE_COLUMNS`, one row per model of ``llm``, best first (ties by model; ``human_win_rate``: the humans'
    mean alone; ``llm_win_rate``: the LLM's mean over all its units, uncalibrated). A human unit with no
    LLM verdict is a ValueError naming the first few; a model with fewer than 2 human units gets NaN
    estimates, with a warning.
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    llm_units, human_units = _preference_units(llm, "LLM"), _preference_units(human, "human")
    keys = ["prompt", "model"]
    joined = human_units.merge(llm_units, how="left", on=keys, suffixes=("_human", ""))
    missing = joined[joined["p"].isna()]
    if len(missing):
        shown = "; ".join(f"prompt {p}, {m}" for p, m in missing[keys].head(_SHOWN).itertuples(index=False))
        raise ValueError(f"{len(missing)} human units (prompt, model) have no LLM verdict: {shown}")
    units = llm_units.merge(human_units, how="left", on=["prompt", "model"], suffixes=("", "_human"))
    rows = [_model_win_rate(str(model), group, ci, lam) for model, group in units.groupby("model", sort=True)]
    table = pd.DataFrame(rows, columns=_WIN_RATE_COLUMNS)
    few = table.loc[table["win_rate"].isna(), "model"].tolist()
    if few:
        warnings.warn(f"{len(few)} models have fewer than 2 units with a human verdict and no calibrated win rate: "
                      f"{', '.join(few[:_SHOWN])}", DataWarning, stacklevel=2)
    order = np.lexsort((table["model"].to_numpy(dtype=str), -table["win_rate"].fillna(-np.inf).to_numpy()))
    return table.iloc[order].reset_index(drop=True)


def verdicts_win_rates(llm: pd.DataFrame, human: pd.DataFrame, baseline: str, ci: float = 0.95,
                       lam: float | None = None) -> pd.DataFrame:
    """:func:`calibrated_win_rates` of two verdicts tables against ``baseline``.

    Each table's verdicts against the baseline become per-verdict preferences by
    :func:`~manyjudges.arena.winrate.baseline.model_preferences` (``p_b`` when the table has it, else the
    winner: 1, 0, a tie 1/2).
    """
    from manyjudges.arena.winrate.baseline import model_preferences

    return calibrated_win_rates(model_preferences(llm, baseline), model_preferences(human, baseline), ci, lam)
