"""Self-preference: how much more a judge that is also a contestant favours its own model's answers than the others do.

A judge J is a contestant when a model M of the verdicts is J's own: a model of the same name, or one
named for it (``judge_models``). On a **unit** u (a prompt and an unordered model pair,
:func:`~manyjudges.arena.verdict_codes.code_units`) whose pair holds M, a verdict scores M's answer
1 (M wins), 1/2 (a tie, ``tie (bothbad)`` too) or 0 (M loses), whichever order the two were shown in
(both orders pooled). J's unit score o_u is the mean of its verdicts' scores on u; the others' r_u the
mean of the scores of the other judges' verdicts on u, leaving out the judges that are contestants in
u (whose own bias would push r_u away from M). Over the n units where both are defined,

    self_preference = mean_u (o_u - r_u),   d_u = o_u - r_u,
    self_low, self_high = mean(d) -/+ z_{(1 + ci) / 2} sd(d) / sqrt(n)   (sd with n - 1; n < 2: no interval)

a paired Wald interval over the units: the self-enhancement bias of Zheng et al. 2023 ("Judging
LLM-as-a-judge with MT-Bench and Chatbot Arena", section 3.3) and the self-preference of Panickssery et
al. 2024 ("LLM evaluators recognize and favor their own generations"), measured here as a paired
difference against the other judges of the same answers. The units are treated as independent:
units that share a prompt may not be, which makes the interval too narrow when a prompt's units
agree. Judges that are not contestants get NaN.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.special import ndtri  # the normal quantile, as scipy.stats.norm.ppf

from manyjudges.arena.verdict_codes import _check_verdicts, code_units

__all__ = ["SELF_PREFERENCE_COLUMNS", "self_preference"]

#: the columns of :func:`self_preference` after ``judge``
SELF_PREFERENCE_COLUMNS = ["self_preference", "self_low", "self_high", "self_units"]


def _contestant_models(judges: np.ndarray, models: np.ndarray, judge_models: Mapping[str, str] | None = None
                      ) -> np.ndarray:
    """Return each judge's own model's index into ``models``, -1 for a judge that is not a contestant.

    A judge is the model of its own name unless ``judge_models`` names its model; a judge of ``judge_models``
    that is not a judge of the verdicts, or whose model is not a model of them, is a ValueError.
    """
    judge_models = dict(judge_models or {})
    names = [str(j) for j in judges]
    unknown = sorted(set(judge_models) - set(names))
    if unknown:
        raise ValueError(f"judge_models names judges that gave no verdict: {', '.join(unknown)}")
    lookup = {str(m): i for i, m in enumerate(models)}
    absent = sorted(f"{j}={m}" for j, m in judge_models.items() if m not in lookup)
    if absent:
        raise ValueError(f"judge_models names models that are in no verdict: {', '.join(absent)}")
    return np.array([lookup.get(judge_models.get(j, j), -1) for j in names], dtype=np.int64)


def _unit_means(unit: np.ndarray, score: np.ndarray, mask: np.ndarray, n_units: int) -> np.ndarray:
    """Return the mean of ``score`` over the verdicts in ``mask`` of each unit (NaN: none)."""
    total = np.bincount(unit[mask], weights=score[mask], minlength=n_units)
    count = np.bincount(unit[mask], minlength=n_units)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _paired(d: np.ndarray, ci: float) -> tuple[float, float, float]:
    """Return the mean of the paired differences ``d`` and its Wald interval (NaN with fewer than two)."""
    if not len(d):
        return np.nan, np.nan, np.nan
    mean = float(d.mean())
    if len(d) < 2:
        return mean, np.nan, np.nan
    half = float(ndtri((1 + ci) / 2) * d.std(ddof=1) / np.sqrt(len(d)))
    return mean, mean - half, mean + half


def self_preference(verdicts: pd.DataFrame, judge_models: Mapping[str, str] | None = None,
                    ci: float = 0.95) -> pd.DataFrame:
    """Return each judge's self-preference (module docstring): ``judge`` and :data:`SELF_PREFERENCE_COLUMNS`.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        A verdicts table with a judge column (``prompt, judge, model_a, model_b, winner``).
    judge_models : mapping, optional
        Judge -> its own model, for judges named otherwise than their model.
    ci : float
        Level of the paired Wald interval.

    Returns
    -------
    pandas.DataFrame
        One row per judge, natural order; NaN (``self_units`` missing) for a judge that is not a contestant.
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    _check_verdicts(verdicts)
    coded = code_units(verdicts)
    table = coded.tables[0]
    judges, unit, canonical = np.asarray(table["judges"], dtype=object), table["unit"], table["canonical"]
    judge = table["judge"]
    own = _contestant_models(judges, coded.models, judge_models)
    code = {str(m): i for i, m in enumerate(coded.models)}
    first = coded.units["model_1"].map(code).to_numpy()[unit]
    second = coded.units["model_2"].map(code).to_numpy()[unit]
    first_score = np.select([canonical == 0, canonical == 1], [1.0, 0.0], 0.5)
    in_unit = (own[judge] >= 0) & ((own[judge] == first) | (own[judge] == second))
    rows: list[tuple[float, float, float, object]] = []
    for j, model in enumerate(own):
        if model < 0:
            rows.append((np.nan, np.nan, np.nan, pd.NA))
            continue
        mine = (first == model) | (second == model)
        score = np.where(first == model, first_score, 1.0 - first_score)
        o = _unit_means(unit, score, mine & (judge == j), coded.n_units)
        r = _unit_means(unit, score, mine & (judge != j) & ~in_unit, coded.n_units)
        both = ~np.isnan(o) & ~np.isnan(r)
        rows.append((*_paired(o[both] - r[both], ci), int(both.sum())))
    out = pd.DataFrame(rows, columns=SELF_PREFERENCE_COLUMNS)
    out["self_units"] = out["self_units"].astype("Int64")
    out.insert(0, "judge", [str(j) for j in judges])
    return out
