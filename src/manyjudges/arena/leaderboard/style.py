"""Style control of the leaderboard: Bradley-Terry with the answers' feature differences as covariates.

A verdicts table may carry answer features, ``NAME_a`` and ``NAME_b`` for the answers shown first and
second (e.g. ``length_a, length_b``; :func:`~manyjudges.io.tables.verdicts.feature_names` names them). Controlling for
features F (``Leaderboard(control=F)``): per verdict and feature, d = (f_a - f_b) / (f_a + f_b) (0 when
both are 0; :func:`~manyjudges.core.pairwise.covariates.feature_differences`), standardised over the
table's verdicts (mean 0, sd 1; once, on the full table: the bootstrap replicates keep those
covariates); then P(model_a beats model_b) = sigma(s_a - s_b + gamma . d) per verdict
(:func:`~manyjudges.core.pairwise.covariates.fit_covariate_bt`; Li, Angelopoulos and Chiang 2024).
The scores s are the controlled ones; gamma, one coefficient per feature, is the log-odds a verdict
moves per standard deviation of the feature's normalised difference.

The fit is per verdict, not per cell: every verdict is its own cell (:func:`_verdict_cells`: the cell's
``judge`` code is the verdict's position in canonical order), so the leaderboard's units
(:func:`~manyjudges.arena.leaderboard.cells._unit_matrix`) and its seeded draws give each replicate's verdict weights,
replicate r the same draw of units as the uncontrolled leaderboard's replicate r
(:func:`_controlled_replicates`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import sparse

from manyjudges.arena.leaderboard.ratings import ArenaBradleyTerry, ArenaRating, RatingFit
from manyjudges.arena.leaderboard.replicates import _fit_counts
from manyjudges.arena.verdict_codes import (
    ArenaVerdicts,
    _check_bothbad,
    _check_verdicts,
    _joint_codes,
    optional_codes,
    winner_codes,
)
from manyjudges.core.pairwise.bradley_terry import bt_pair_weights, check_mle_exists
from manyjudges.core.pairwise.cells import HI_WINS, LO_WINS, TIE, Cells, cells_from_codes
from manyjudges.core.pairwise.covariates import feature_differences, fit_covariate_bt, standardised
from manyjudges.io.tables.verdicts import check_features

__all__ = ["covariates"]


def _check_control(control: Sequence[str], have: Sequence[str]) -> tuple[str, ...]:
    """Return ``control`` as a tuple of feature names.

    A ValueError names a feature the verdicts lack (``have``) and lists theirs.
    """
    if isinstance(control, str):
        control = (control,)
    names = tuple(str(c) for c in control)
    if len(set(names)) != len(names):
        raise ValueError(f"control names a feature twice: {', '.join(names)}")
    try:
        check_features(names, have)
    except ValueError as err:
        raise ValueError(f"control: {err}") from None
    return names


def _feature_values(frame: pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Return the (rows, 2 P) float values ``NAME_a``, ``NAME_b`` per feature; a ValueError names a bad row and value.

    A value must be a finite number >= 0 (a count or a length).
    """
    out = np.empty((len(frame), 2 * len(names)))
    for k, name in enumerate(names):
        for side, column in enumerate((f"{name}_a", f"{name}_b")):
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
            if len(bad):
                row = int(bad[0])
                raise ValueError(f"row {frame.index[row]!r}: {column} must be a number >= 0, got "
                                 f"{frame[column].iloc[[row]].tolist()[0]!r}")
            out[:, 2 * k + side] = values
    return out


def _code_with_features(frame: pd.DataFrame, names: Sequence[str], bothbad: str = "tie"
                       ) -> tuple[ArenaVerdicts, np.ndarray]:
    """Return the verdicts coded as :func:`~manyjudges.arena.verdict_codes.code_verdicts` does, and their features.

    The features are the (verdicts, 2 P) values ``NAME_a, NAME_b`` of ``names``, rows in the verdicts'
    canonical order (by model_a, model_b, winner, prompt, judge codes, then the feature values, so that
    the result does not depend on the order of the rows).
    """
    _check_bothbad(bothbad)
    coded = _check_verdicts(frame)
    values = _feature_values(frame, names)
    n = len(frame)
    models, (a, b) = _joint_codes(coded["model_a"], coded["model_b"])
    prompts, judges = (optional_codes(coded.get(c), n) for c in ("prompt", "judge"))
    winner = winner_codes(coded["winner"])
    keep = np.ones(n, dtype=bool) if bothbad == "tie" else winner != 3
    code = np.minimum(winner, 2)
    keys = [a, b, code, prompts[1], judges[1], *values.T]
    order = np.flatnonzero(keep)[np.lexsort([k[keep] for k in keys[::-1]])]
    data = ArenaVerdicts(models=models, prompts=prompts[0], judges=judges[0], model_a=a[order], model_b=b[order],
                         winner=code[order].astype(np.int8), prompt=prompts[1][order], judge=judges[1][order],
                         has_prompt=prompts[2], has_judge=judges[2])
    return data, values[order]


def covariates(values: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Return the standardised normalised differences (verdicts, P) of :func:`_code_with_features`'s values.

    A feature whose difference is the same in every verdict is a ValueError naming it.
    """
    d = feature_differences(values[:, 0::2], values[:, 1::2])
    try:
        return standardised(d)[0]
    except ValueError:
        flat = [n for n, col in zip(names, d.T) if not np.ptp(col) > 0]
        raise ValueError(f"control: the feature {flat[0] if flat else names[0]!r} has the same normalised "
                         "difference (f_a - f_b) / (f_a + f_b) in every verdict: it cannot be controlled for"
                         ) from None


def _verdict_cells(data: ArenaVerdicts) -> tuple[Cells, np.ndarray]:
    """Return cells of one verdict each, presentation order kept, and each verdict's cell (its position).

    The cell's ``judge`` code is the verdict's position in canonical order, so a cell never holds two
    verdicts and a model subset (:meth:`~manyjudges.core.pairwise.cells.Cells.subset`) keeps it.
    """
    n = data.n_verdicts
    lo, hi = np.minimum(data.model_a, data.model_b), np.maximum(data.model_a, data.model_b)
    a_is_lo = data.model_a == lo
    outcome = np.where(data.winner == 2, TIE, np.where((data.winner == 0) == a_is_lo, LO_WINS, HI_WINS))
    return cells_from_codes(lo, hi, outcome, np.arange(n), data.n_models, max(n, 1), data.models,
                            a_is_lo.astype(np.int64))


class _ControlledBradleyTerry(ArenaRating):
    """The leaderboard's ``bradley_terry`` with covariates, on :func:`_verdict_cells` (module docstring).

    ``base`` gives ``ties``, ``reg``, ``max_iter`` and ``tol``; ``x`` holds each verdict's covariates
    (canonical order). A cell's count is its verdict's weight; a tie is y = 1/2 (``ties="half"``) or
    weight 0 (``"drop"``). ``RatingFit.extra`` is gamma.
    """

    name = "bradley_terry"
    _parameter_constraints = {"base": [ArenaBradleyTerry], "x": [np.ndarray]}

    def __init__(self, base: ArenaBradleyTerry, x: np.ndarray) -> None:
        self.base, self.x = base, x

    def fit_cells(self, cells: Cells, counts: np.ndarray, start: RatingFit | None = None) -> RatingFit:
        """Fit the controlled scores and gamma to the verdicts' weights ``counts``."""
        base = self.base
        if base.reg == 0:
            check_mle_exists(*bt_pair_weights(cells, counts, base.ties), cells.n_models, cells.names)
        assert cells.lo_first is not None
        first = cells.lo_first.astype(bool)
        a, b = np.where(first, cells.lo, cells.hi), np.where(first, cells.hi, cells.lo)
        tie = cells.outcome == TIE
        y = np.where(tie, 0.5, ((cells.outcome == LO_WINS) == first).astype(float))
        w = np.where(tie, 0.0, counts) if base.ties == "drop" else counts
        x0 = None if start is None or start.extra is None else np.concatenate([start.scores, start.extra])
        s, gamma = fit_covariate_bt(a, b, self.x[cells.judge], y, w, cells.n_models, base.reg, x0, base.max_iter,
                                    base.tol)
        return RatingFit(s, gamma)


def _controlled_replicates(rating: _ControlledBradleyTerry, cells: Cells, units: sparse.csr_matrix, fit: RatingFit,
                          scores: np.ndarray, n: int, seed: int, progress: Callable[[int, int], None] | None = None
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Return the (n, models) replicate scores and the (n, P) replicate coefficients.

    Replicate r draws ``rng.integers(0, n_units, n_units)`` (``rng = numpy.random.default_rng(seed)``,
    one draw per replicate in order: the leaderboard's draws), its verdict weights are ``units`` (the
    (verdicts, units) matrix of :func:`~manyjudges.arena.leaderboard.cells._unit_matrix`, each verdict its own cell)
    times the units' multiplicities, and its fit starts from the
    full-data fit (:func:`~manyjudges.arena.leaderboard.replicates._fit_counts`: a model absent from the replicate
    is NaN there, the others' mean kept at their full-data mean). One process.
    """
    rng = np.random.default_rng(seed)
    n_units = units.shape[1]
    out = np.full((n, cells.n_models), np.nan)
    gammas = np.full((n, rating.x.shape[1]), np.nan)
    for r in range(n):
        weight = np.bincount(rng.integers(0, n_units, n_units), minlength=n_units).astype(float)
        out[r], replicate = _fit_counts(rating, cells, units @ weight, fit, scores)
        gammas[r] = replicate.extra
        if progress is not None:
            progress(r + 1, n)
    return out, gammas


def _coefficient_table(names: Sequence[str], gamma: np.ndarray, replicates: np.ndarray, ci: float) -> pd.DataFrame:
    """Return ``feature, coefficient, ci_low, ci_high``: gamma and its bootstrap percentile interval.

    The interval is the (1 - ci) / 2 and (1 + ci) / 2 quantiles of the replicates' coefficients (numpy's
    linear interpolation, as the scores'); NaN without replicates.
    """
    if len(replicates):
        low, high = np.quantile(replicates, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0)
    else:
        low = high = np.full(len(names), np.nan)
    return pd.DataFrame({"feature": np.asarray(names, dtype=object), "coefficient": np.asarray(gamma, dtype=float),
                         "ci_low": low, "ci_high": high})
