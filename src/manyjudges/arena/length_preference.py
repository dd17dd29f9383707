"""Each judge's preference for the longer answer: a length coefficient per judge, the models' scores shared.

One style-controlled Bradley-Terry fit (:func:`~manyjudges.core.pairwise.covariates.fit_covariate_bt`) on
all verdicts, with one covariate per judge j: d_i [judge_i = j], d_i the verdict's standardised
normalised length difference (:func:`~manyjudges.arena.leaderboard.style.covariates`, over the whole table), so

    P(model_a beats model_b in verdict i) = sigma(s_a - s_b + gamma_{judge_i} d_i)

with the models' scores s shared by every judge (ridge ``reg`` on s and gamma, ties half a
win each way). gamma_j, a judge's ``length_preference``, is the log-odds it adds to an answer per
standard deviation of the normalised length difference; > 0 favours the longer answer. Its interval
``length_low, length_high`` is Wald's: gamma_j -+ z_{(1 + level) / 2} sqrt([H^{-1}]_jj), H the
objective's Hessian at the optimum (the observed information; the centring term of the objective moves
only the scores' common shift, to which gamma's block of H^{-1} is blind). A judge with fewer than
:data:`MIN_VERDICTS` verdicts, or whose verdicts all have the same length difference, gets no
covariate (gamma_j held at 0 in the fit, its verdicts still count for the scores) and NaN columns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtri

from manyjudges.arena.leaderboard.style import _code_with_features, covariates
from manyjudges.core.pairwise.covariates import covariate_hessian, fit_covariate_bt

__all__ = ["MIN_VERDICTS", "length_preference"]

#: the columns :func:`length_preference` gives per judge, after ``judge``
_LENGTH_COLUMNS = ["length_preference", "length_low", "length_high"]
#: a judge with fewer verdicts than this gets NaN length columns
MIN_VERDICTS = 20


def _judge_design(judge: np.ndarray, d: np.ndarray, n_judges: int, min_verdicts: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Return the (verdicts, K) covariates d_i [judge_i = j] of the K judges that get one, and those judges' codes."""
    counts = np.bincount(judge, minlength=n_judges)
    lo = np.full(n_judges, np.inf)
    hi = np.full(n_judges, -np.inf)
    np.minimum.at(lo, judge, d)
    np.maximum.at(hi, judge, d)
    fitted = np.flatnonzero((counts >= min_verdicts) & (hi > lo))
    column = np.full(n_judges, -1)
    column[fitted] = np.arange(len(fitted))
    x = np.zeros((len(judge), len(fitted)))
    rows = np.flatnonzero(column[judge] >= 0)
    x[rows, column[judge[rows]]] = d[rows]
    return x, fitted


def length_preference(verdicts: pd.DataFrame, feature: str = "length", bothbad: str = "tie", reg: float = 0.01,
                      level: float = 0.95, min_verdicts: int = MIN_VERDICTS) -> pd.DataFrame:
    """Return ``judge, length_preference, length_low, length_high``, judges in natural order (module docstring).

    Parameters
    ----------
    verdicts : pandas.DataFrame
        A verdicts table with the columns ``FEATURE_a``, ``FEATURE_b`` (lengths of the answers shown first
        and second, numbers >= 0).
    feature : str
        The length feature's name.
    bothbad : {"tie", "drop"}
        ``tie (bothbad)`` is a tie, or the verdict is left out.
    reg : float
        Ridge on the models' scores and on the judges' length coefficients.
    level : float
        Coverage of the Wald intervals.
    min_verdicts : int
        Judges with fewer verdicts get NaN.

    Returns
    -------
    pandas.DataFrame
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    data, values = _code_with_features(verdicts, [feature], bothbad)
    d = covariates(values, [feature])[:, 0]
    x, fitted = _judge_design(data.judge, d, len(data.judges), min_verdicts)
    y = np.where(data.winner == 2, 0.5, (data.winner == 0).astype(float))
    w = np.ones(data.n_verdicts)
    s, gamma = fit_covariate_bt(data.model_a, data.model_b, x, y, w, data.n_models, reg)
    hess = covariate_hessian(np.concatenate([s, gamma]), data.model_a, data.model_b, x, w, reg)
    m = data.n_models
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.diag(np.linalg.pinv(hess))[m:])
    z = float(ndtri(0.5 + level / 2.0))
    out = np.full((len(data.judges), 3), np.nan)
    out[fitted] = np.column_stack([gamma, gamma - z * se, gamma + z * se])
    table = pd.DataFrame(out, columns=_LENGTH_COLUMNS)
    table.insert(0, "judge", np.asarray([str(j) for j in data.judges], dtype=object))
    return table
