"""The units of a human calibration: (prompt, model pair) with the LLM's mean outcome and the humans' where judged.

A unit is a prompt and an unordered model pair, its models in the natural order of the LLM verdicts'
models; its LLM prediction is the mean outcome of the LLM's verdicts on it (every judge, both orders: the
share won by the first model, a tie half), its human label the mean of the human verdicts on it, if any.
Fitted by :mod:`manyjudges.arena.human.leaderboard`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from manyjudges.arena.verdict_codes import code_verdicts

__all__ = ["CalibrationUnits", "calibration_units", "units_without_llm"]

_SHOWN = 5  # units named in an error


class CalibrationUnits(NamedTuple):
    """Units (prompt, model_1 < model_2 in natural order) of LLM verdicts, with human outcomes where there are some.

    ``lo``, ``hi``: model codes (``models``, natural order of the LLM verdicts' models); ``llm``: the mean
    LLM outcome (share won by ``lo``, ties half); ``human``: the mean human outcome, NaN without a human
    verdict; ``llm_verdicts``, ``human_verdicts``: verdicts per unit; ``prompts``: each unit's prompt.
    """

    models: np.ndarray
    prompts: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    llm: np.ndarray
    human: np.ndarray
    llm_verdicts: np.ndarray
    human_verdicts: np.ndarray

    @property
    def labelled(self) -> np.ndarray:
        """Whether each unit has a human verdict."""
        return ~np.isnan(self.human)


def _unit_outcomes(verdicts: pd.DataFrame, bothbad: str) -> pd.DataFrame:
    """One row per (prompt, model_1, model_2) unit: ``outcome`` (share won by model_1, ties half) and ``verdicts``."""
    data = code_verdicts(verdicts, bothbad)
    a, b = data.model_a, data.model_b
    a_name, b_name = data.models[a].astype(str), data.models[b].astype(str)
    swap = a > b  # model_1 is the pair's first model in natural order
    first_won = np.where(data.winner == 2, 0.5, (data.winner == 0).astype(float))
    frame = pd.DataFrame({"prompt": data.prompts[data.prompt].astype(str),
                          "model_1": np.where(swap, b_name, a_name), "model_2": np.where(swap, a_name, b_name),
                          "outcome": np.where(swap, 1.0 - first_won, first_won)})
    grouped = frame.groupby(["prompt", "model_1", "model_2"], sort=True)["outcome"]
    return pd.DataFrame({"outcome": grouped.mean(), "verdicts": grouped.size()}).reset_index()


def _missing_units(human: pd.DataFrame, llm: pd.DataFrame) -> None:
    """Raise a ValueError naming the first human units that have no LLM verdict."""
    keys = ["prompt", "model_1", "model_2"]
    joined = human[keys].merge(llm[keys], how="left", on=keys, indicator=True)
    missing = joined[joined["_merge"] == "left_only"]
    if len(missing):
        first = missing[keys].head(_SHOWN).itertuples(index=False)
        shown = "; ".join(f"prompt {p}, {m1} vs {m2}" for p, m1, m2 in first)
        more = f" (and {len(missing) - _SHOWN} more)" if len(missing) > _SHOWN else ""
        raise ValueError(f"{len(missing)} human units (prompt, model pair) have no LLM verdict: {shown}{more}")


def _oriented(units: pd.DataFrame, code: pd.Series) -> pd.DataFrame:
    """Return ``units`` with model_1 before model_2 in the order of ``code`` (the LLM's models), outcomes flipped.

    Natural order depends on the whole set of names (numeric only when every name is a digit string), so the
    human table's own order may differ from the LLM table's. Models unknown to ``code`` keep their order.
    """
    first, second = (code.reindex(units[c]).to_numpy(float) for c in ("model_1", "model_2"))
    swap = first > second
    return units.assign(model_1=np.where(swap, units["model_2"], units["model_1"]),
                        model_2=np.where(swap, units["model_1"], units["model_2"]),
                        outcome=np.where(swap, 1.0 - units["outcome"], units["outcome"]))


def units_without_llm(llm: pd.DataFrame, human: pd.DataFrame) -> np.ndarray:
    """Return the positions (0-based, in row order) of the human verdicts whose unit has no LLM verdict."""
    def keys(frame: pd.DataFrame) -> pd.Series:
        a, b = frame["model_a"].astype(str), frame["model_b"].astype(str)
        lo, hi = a.where(a < b, b), b.where(a < b, a)
        return frame["prompt"].astype(str) + "\x00" + lo + "\x00" + hi

    return np.flatnonzero(~keys(human).isin(set(keys(llm))).to_numpy())


def calibration_units(llm: pd.DataFrame, human: pd.DataFrame, bothbad: str = "tie") -> CalibrationUnits:
    """Code the LLM and the human verdicts tables (``prompt, judge, model_a, model_b, winner``) as units.

    Returns :class:`CalibrationUnits`.

    A human unit without LLM verdicts is a ValueError naming the first few.
    """
    models = code_verdicts(llm, bothbad).models.astype(str)
    code = pd.Series(np.arange(len(models)), index=models)
    llm_units, human_units = _unit_outcomes(llm, bothbad), _oriented(_unit_outcomes(human, bothbad), code)
    _missing_units(human_units, llm_units)
    keys = ["prompt", "model_1", "model_2"]
    units = llm_units.merge(human_units, how="left", on=keys, suffixes=("", "_human"))
    return CalibrationUnits(models, units["prompt"].to_numpy(), code[units["model_1"]].to_numpy(),
                            code[units["model_2"]].to_numpy(), units["outcome"].to_numpy(float),
                            units["outcome_human"].to_numpy(float), units["verdicts"].to_numpy(np.int64),
                            units["verdicts_human"].fillna(0).to_numpy(np.int64))
