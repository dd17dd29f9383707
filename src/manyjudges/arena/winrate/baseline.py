"""Each model's win rate against a baseline model, from the verdicts where it met the baseline (AlpacaEval's).

Li, Zhang, Dubois et al., "AlpacaEval: An Automatic Evaluator of Instruction-following Models" (2023), and
alpaca_eval's ``metrics/winrate.py`` (``get_winrate``). Not :mod:`~manyjudges.arena.leaderboard.win_rates`, which
reads a fitted leaderboard's scores as win rates: here no model is fitted, the verdicts against the baseline are
counted.

Every verdict between a model m and the baseline b, in either order (m as model_a or as model_b), gives
p_i, the probability that m's answer is the better: from the verdict's soft preference ``p_b`` when the
table has that column (p_b when m is model_b, 1 - p_b when m is model_a), else from its winner (1 when m
won, 0 when b won, 1/2 for ``tie`` and ``tie (bothbad)``). Over the N verdicts of m against b:

- win_rate = mean_i p_i;
- se = sd(p) / sqrt(N), sd the sample standard deviation (ddof 1): NaN for N = 1;
- discrete_win_rate = mean_i [p_i > 1/2] + 1/2 mean_i [p_i = 1/2] (ties half);
- the interval: win_rate -+ z se, z the normal quantile of (1 + ci) / 2, clipped to [0, 1]; or, with
  ``n_bootstrap > 0``, the (1 - ci) / 2 and (1 + ci) / 2 percentiles of the win rates of bootstrap
  replicates that resample whole prompts (every prompt with a verdict against the baseline, with
  replacement; a prompt's verdicts in or out together), numpy's default_rng(seed). Empty for N = 1.

AlpacaEval prints percentages; these are fractions in [0, 1]. With ``control`` (a feature such as the
answers' length), win_rate, se and the interval are the length-controlled ones
(:mod:`~manyjudges.arena.winrate.length_controlled`): se the bootstrap replicates' sd with ``n_bootstrap > 0``,
else the delta-method sandwich se; discrete_win_rate stays the raw one, and ``raw_win_rate`` is added.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.special import ndtri  # the normal quantile, as scipy.stats.norm.ppf

from manyjudges.arena.winrate import length_controlled as lc
from manyjudges.core.length import LengthOf
from manyjudges.io.engine.errors import DataWarning
from manyjudges.io.tables.verdicts import MISSING, check_features, feature_names

__all__ = ["baseline_win_rates", "model_preferences"]

#: the probability that model_b's answer is the better, by the verdict's winner
_P_B = {"model_a": 0.0, "model_b": 1.0, "tie": 0.5, "tie (bothbad)": 0.5}
#: the bootstrap draws' largest matrix (replicates x prompts) made at once
_CHUNK_CELLS = 2_000_000


class _BaselineVerdicts:
    """The verdicts against the baseline, coded, in one canonical order (the same for any row order).

    Attributes
    ----------
    models, prompts : numpy.ndarray of str
        The models that met the baseline and the prompts of their verdicts, sorted.
    model, prompt : numpy.ndarray of int
        Each verdict's codes in those.
    p : numpy.ndarray
        Each verdict's probability that the model's answer is the better.
    delta : numpy.ndarray or None
        Each verdict's feature of the model's answer minus the baseline's (with a feature).
    """

    def __init__(self, table: pd.DataFrame) -> None:
        self.models, self.model = np.unique(table["model"].to_numpy(dtype=str), return_inverse=True)
        self.prompts, self.prompt = np.unique(table["prompt"].to_numpy(dtype=str), return_inverse=True)
        self.p = table["p"].to_numpy(dtype=float)
        self.delta = table["delta"].to_numpy(dtype=float) if "delta" in table else None

    #: The number of models that met the baseline.
    n_models = LengthOf("models")
    #: The number of prompts of the verdicts against the baseline.
    n_prompts = LengthOf("prompts")


def _models_of(frame: pd.DataFrame) -> list[str]:
    """Return every model of the verdicts, sorted."""
    return sorted(set(frame["model_a"].astype(str)) | set(frame["model_b"].astype(str)))


def _p_b(frame: pd.DataFrame) -> np.ndarray:
    """Return each verdict's probability that model_b's answer is the better: ``p_b``, else from ``winner``."""
    if "p_b" in frame:
        p_b = frame["p_b"].to_numpy(dtype=float)
        bad = ~((p_b >= 0.0) & (p_b <= 1.0))
        if bad.any():
            raise ValueError(f"p_b must be a probability in [0, 1]; got {p_b[bad][0]!r}")
        return p_b
    winner = frame["winner"].astype(str)
    unknown = sorted(set(winner) - set(_P_B))
    if unknown:
        raise ValueError(f"winner must be one of {', '.join(_P_B)}; got {unknown[0]!r}")
    return winner.map(_P_B).to_numpy(dtype=float)


def _against_baseline(frame: pd.DataFrame, baseline: str, feature: str | None = None) -> pd.DataFrame:
    """Return the verdicts against ``baseline`` seen from the other model: prompt, judge, model, p (and delta).

    ``p`` is the probability that the model's answer is the better (module docstring); ``delta`` (with a
    ``feature`` NAME, the columns NAME_a and NAME_b) the model's answer's feature minus the baseline's.
    Rows sorted by model, prompt, judge, p, delta (one order for any row order of ``frame``). Models that
    never met the baseline are warned of (a DataWarning naming them).

    Raises
    ------
    ValueError
        ``baseline`` is not a model of the verdicts (the message lists them), or a feature's column is
        missing or empty on a verdict against the baseline.
    """
    models = _models_of(frame)
    if baseline not in models:
        raise ValueError(f"the baseline {baseline!r} is not a model of the verdicts; the models: {', '.join(models)}")
    first, second = frame["model_a"].astype(str).to_numpy(), frame["model_b"].astype(str).to_numpy()
    is_a, is_b = first == baseline, second == baseline
    keep = is_a ^ is_b
    p_b = _p_b(frame)[keep]
    out = pd.DataFrame({"prompt": _column(frame, "prompt")[keep], "judge": _column(frame, "judge")[keep],
                        "model": np.where(is_a, second, first)[keep], "p": np.where(is_b[keep], 1.0 - p_b, p_b)})
    if feature is not None:
        out["delta"] = _feature_delta(frame, feature, is_b)[keep]
    _warn_unmet(models, baseline, set(out["model"]))
    return out.sort_values(list(out.columns), kind="mergesort", ignore_index=True)


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    """Return a text column, or ``-`` on every row when the frame has none (as the reader does)."""
    return frame[name].astype(str).to_numpy() if name in frame else np.full(len(frame), MISSING, dtype=object)


def _feature_delta(frame: pd.DataFrame, feature: str, baseline_second: np.ndarray) -> np.ndarray:
    """Return NAME_a - NAME_b, or NAME_b - NAME_a where the baseline is model_a: the model's minus the baseline's."""
    check_features([feature], feature_names(frame))
    a, b = (frame[f"{feature}_{side}"].to_numpy(dtype=float) for side in "ab")
    return np.where(baseline_second, a - b, b - a)


def _warn_unmet(models: list[str], baseline: str, met: set[str]) -> None:
    """Warn of the models that never met the baseline (they get no row)."""
    unmet = [m for m in models if m != baseline and m not in met]
    if unmet:
        warnings.warn(f"{len(unmet)} model(s) never met the baseline {baseline} and have no win rate: "
                      f"{', '.join(unmet)}", DataWarning, stacklevel=3)


def model_preferences(frame: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Return each verdict against ``baseline`` as prompt, judge, model, p (the model's answer better, in [0, 1]).

    p from the verdict's ``p_b`` when the frame has it (p_b when the model is model_b, 1 - p_b when it is
    model_a), else from its winner (1, 0, and 1/2 for a tie); rows in one canonical order. See
    :func:`_against_baseline` for the errors and warnings.
    """
    return _against_baseline(frame, baseline)[["prompt", "judge", "model", "p"]]


def raw_rates(model: np.ndarray, p: np.ndarray, n_models: int) -> tuple[np.ndarray, ...]:
    """Return (win_rate, se, discrete_win_rate, n) per model (module docstring)."""
    n = np.bincount(model, minlength=n_models)
    count = n.astype(float)
    rate = np.bincount(model, weights=p, minlength=n_models) / count
    squares = np.bincount(model, weights=(p - rate[model]) ** 2, minlength=n_models)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(n >= 2, np.sqrt(squares / (count - 1.0) / count), np.nan)
    decided = (p > 0.5) + 0.5 * (p == 0.5)
    discrete = np.bincount(model, weights=decided, minlength=n_models) / count
    return rate, se, discrete, n


def normal_interval(rate: np.ndarray, se: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """Return rate -+ z se, z = the normal quantile of (1 + ci) / 2, clipped to [0, 1] (NaN where se is)."""
    z = float(ndtri((1.0 + ci) / 2.0))
    return np.clip(rate - z * se, 0.0, 1.0), np.clip(rate + z * se, 0.0, 1.0)


def prompt_weights(n_prompts: int, n_bootstrap: int, seed: int) -> list[np.ndarray]:
    """Return bootstrap multiplicities of the prompts, (replicates, prompts) in chunks, from default_rng(seed).

    Each replicate draws ``n_prompts`` prompts with replacement; a chunk holds at most 2,000,000 cells.
    """
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_CELLS // max(n_prompts, 1))
    chunks = []
    for start in range(0, n_bootstrap, per_chunk):
        size = min(per_chunk, n_bootstrap - start)
        draws = rng.integers(0, n_prompts, size=(size, n_prompts))
        flat = (draws + n_prompts * np.arange(size)[:, None]).ravel()
        chunks.append(np.bincount(flat, minlength=size * n_prompts).reshape(size, n_prompts).astype(float))
    return chunks


def raw_replicates(data: _BaselineVerdicts, weights: list[np.ndarray]) -> np.ndarray:
    """Return the replicates' raw win rates, (replicates, models): sum w p / sum w, NaN where a model is absent."""
    shape = (data.n_prompts, data.n_models)
    total = csr_matrix((data.p, (data.prompt, data.model)), shape=shape)
    count = csr_matrix((np.ones(len(data.p)), (data.prompt, data.model)), shape=shape)
    out = []
    for w in weights:
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.asarray((total.T @ w.T).T) / np.asarray((count.T @ w.T).T))
    return np.vstack(out)


def percentile_interval(replicates: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the (1 - ci) / 2 and (1 + ci) / 2 percentiles per column, NaN replicates left out (NaN if < 2)."""
    finite = np.isfinite(replicates).sum(axis=0)
    low = np.full(replicates.shape[1], np.nan)
    high = np.full(replicates.shape[1], np.nan)
    ok = finite >= 2
    if ok.any():
        low[ok], high[ok] = np.nanquantile(replicates[:, ok], [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0)
    return low, high


def replicate_sd(replicates: np.ndarray) -> np.ndarray:
    """Return the sample sd (ddof 1) per column over the finite replicates (NaN with fewer than two)."""
    finite = np.isfinite(replicates)
    count = finite.sum(axis=0)
    values = np.where(finite, replicates, 0.0)
    mean = values.sum(axis=0) / np.maximum(count, 1)
    squares = (np.where(finite, replicates - mean, 0.0) ** 2).sum(axis=0)
    return np.where(count >= 2, np.sqrt(squares / np.maximum(count - 1, 1)), np.nan)


class _LengthModel:
    """The length GLM's inputs on the verdicts against the baseline (fixed across bootstrap replicates)."""

    def __init__(self, data: _BaselineVerdicts, reg: float) -> None:
        if data.delta is None or not np.isfinite(data.delta).all():
            raise ValueError("the length control needs the feature of both answers on every verdict against the "
                             "baseline")
        gamma = lc._prompt_difficulty(data.prompt, data.model, data.p)
        self.data, self.reg = data, reg
        self.X = lc.design(lc._length_term(data.delta, data.model, data.n_models), gamma)
        self.beta = lc._fit_length_glm(data.model, self.X, data.p, np.ones(len(data.p)), data.n_models, reg)

    def rates(self, w: np.ndarray | None = None, beta: np.ndarray | None = None) -> np.ndarray:
        """Return LC_m with verdict weights ``w`` (1 by default) and parameters ``beta`` (the fit's)."""
        w = np.ones(len(self.data.p)) if w is None else w
        return lc.length_controlled(self.data.model, self.X[:, 2], w, self.beta if beta is None else beta)

    def replicates(self, weights: list[np.ndarray]) -> np.ndarray:
        """Return the LC win rates refitted on each replicate's prompt multiplicities, (replicates, models)."""
        d = self.data
        out = []
        for chunk in weights:
            for row in chunk:
                w = row[d.prompt]
                drawn = w > 0  # the verdicts of the prompts drawn
                beta = lc._fit_length_glm(d.model[drawn], self.X[drawn], d.p[drawn], w[drawn], d.n_models, self.reg,
                                         start=self.beta)
                out.append(self.rates(w, beta))
        return np.vstack(out) if out else np.empty((0, d.n_models))

    def se(self) -> np.ndarray:
        """Return the delta-method sandwich se of LC_m."""
        return lc._length_controlled_se(self.data.model, self.X, self.data.p, self.beta, self.reg)


def _check(n_bootstrap: int, ci: float, control: Sequence[str] | str | None) -> str | None:
    """Refuse a bad ``n_bootstrap``, ``ci`` or more than one control feature; return the feature or None."""
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0, got {n_bootstrap}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be between 0 and 1, got {ci}")
    features = [control] if isinstance(control, str) else list(control or [])
    if len(features) > 1:
        raise ValueError(f"the win rate is controlled for one feature, the answers' length; got {', '.join(features)}")
    return features[0] if features else None


def baseline_win_rates(frame: pd.DataFrame, baseline: str, n_bootstrap: int = 0, ci: float = 0.95, seed: int = 0,
                       control: Sequence[str] | str | None = None, reg: float = 1.0) -> pd.DataFrame:
    """Return each model's win rate against ``baseline``, best first (module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        Verdicts ``prompt, judge, model_a, model_b, winner`` (prompt and judge optional), with ``p_b`` (the
        verdict's probability that model_b's answer is the better) when the table has it, and the feature
        columns NAME_a, NAME_b for ``control``.
    baseline : str
        The model every win rate is taken against; it has no row.
    n_bootstrap : int
        Bootstrap replicates resampling whole prompts (0: normal intervals).
    ci : float
        The intervals' coverage.
    seed : int
        The seed of numpy's default_rng for the bootstrap.
    control : str or sequence of one str, optional
        A length-like feature NAME: the win rate is AlpacaEval 2.0's length-controlled one.
    reg : float
        The length GLM's ridge on phi and psi.

    Returns
    -------
    pandas.DataFrame
        ``model, win_rate, se, ci_low, ci_high, discrete_win_rate, n`` (and ``raw_win_rate`` with control),
        fractions in [0, 1], sorted by win_rate descending then model. Without control, se is
        sd(p) / sqrt(n) with or without the bootstrap (which sets only the interval).

    Raises
    ------
    ValueError
        ``baseline`` is not a model (the message lists them), a ``p_b`` outside [0, 1], an unknown winner,
        a ``control`` feature the frame lacks (the message lists its features) or more than one,
        ``n_bootstrap < 0``, ``ci`` outside (0, 1).

    Warns
    -----
    DataWarning
        Naming the models that never met the baseline (they have no row).
    """
    feature = _check(n_bootstrap, ci, control)
    data = _BaselineVerdicts(_against_baseline(frame, baseline, feature))
    rate, se, discrete, n = raw_rates(data.model, data.p, data.n_models)
    columns: dict[str, np.ndarray] = {"raw_win_rate": rate} if feature is not None else {}
    weights = prompt_weights(data.n_prompts, n_bootstrap, seed) if n_bootstrap > 0 else []
    if feature is not None:
        glm = _LengthModel(data, reg)
        rate = glm.rates()
        replicates = glm.replicates(weights) if weights else None
        se = replicate_sd(replicates) if replicates is not None else glm.se()
    else:
        replicates = raw_replicates(data, weights) if weights else None
    low, high = percentile_interval(replicates, ci) if replicates is not None else normal_interval(rate, se, ci)
    empty = n < 2
    table = pd.DataFrame({"model": data.models, "win_rate": rate, "se": np.where(empty, np.nan, se),
                          "ci_low": np.where(empty, np.nan, low), "ci_high": np.where(empty, np.nan, high),
                          "discrete_win_rate": discrete, "n": n.astype(np.int64), **columns})
    order = np.lexsort((table["model"].to_numpy(), -np.nan_to_num(table["win_rate"].to_numpy(), nan=-np.inf)))
    return table.iloc[order].reset_index(drop=True)
