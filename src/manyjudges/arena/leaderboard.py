"""An arena leaderboard: one score per model from all verdicts pooled, with bootstrap intervals.

The verdicts table (``prompt, judge, model_a, model_b, winner``; ``model_a`` is the answer shown
first; prompt and judge optional) is summed into cells (:mod:`manyjudges.arena.cells`) and
rated by one of :data:`LEADERBOARD_METHODS`. Scores are centred to mean 0 over the models, on
the method's scale: natural-log strengths for ``bradley_terry``, ``davidson``, ``crowd_bt`` and
``judge_aware`` (exp(score_i - score_j) is the odds of i beating j), Elo points for ``elo``.

The bootstrap (Efron and Tibshirani 1993) resamples units with replacement, n of n: the
verdicts, or whole prompts, or whole judges (a cluster bootstrap: the verdicts of one prompt
or judge go in or out together). Replicate r draws ``rng.integers(0, n_units, n_units)``
(``rng = numpy.random.default_rng(seed)``, one draw per replicate in order) and counts how often
each unit was drawn; its cell counts are the precomputed (cells x units) verdict counts times
those multiplicities, so a replicate costs one sparse product and one fit, started from the
full-data fit. Units are in canonical order: verdicts sorted by (model_a, model_b, winner,
prompt, judge) codes, prompts and judges in natural order. A model with no verdict in a
replicate is absent from it: its score and rank there are NaN, the others are fitted and ranked
among themselves, and the replicate's scores are shifted so that the present models' mean equals
their mean in the full-data fit (with every model present that is mean 0, the usual
normalisation). Intervals are percentile intervals over the replicates where the model is present
(:func:`~manyjudges.arena.rank_intervals.percentile_intervals`); ``absent_`` counts the others.
A model whose replicate scores are fewer than two or all equal gets no interval (NaN), not a zero-width one.
Verdicts whose comparison graph is in several pieces are refused (:mod:`manyjudges.arena.pieces`).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.arena.cells import RESAMPLE_UNITS, Cells, cell_table, unit_matrix
from manyjudges.arena.davidson import Davidson
from manyjudges.arena.judge_aware import JudgeAware
from manyjudges.arena.pieces import comparison_pieces, flat_replicates, named, one_sided_models, pieces_message
from manyjudges.arena.rank_intervals import competition_ranks, percentile_intervals
from manyjudges.arena.ratings import ArenaBradleyTerry, ArenaCrowdBT, ArenaElo, ArenaRating, RatingFit
from manyjudges.arena.verdict_codes import ArenaVerdicts, code_verdicts
from manyjudges.core.estimator import Estimator
from manyjudges.core.registry import Builtin, Registry

__all__ = ["LEADERBOARD_COLUMNS", "LEADERBOARD_METHODS", "Leaderboard", "bootstrap", "check_rateable", "make_rating",
           "without_flat_intervals"]

LEADERBOARD_COLUMNS = ["model", "rank", "score", "ci_low", "ci_high", "rank_low", "rank_high"]

LEADERBOARD_METHODS = Registry("leaderboard", {
    "bradley_terry": Builtin(ArenaBradleyTerry, "Bradley-Terry, a tie half a win each way; log-strengths"),
    "davidson": Builtin(Davidson, "Davidson's Bradley-Terry with a tie parameter; log-strengths"),
    "elo": Builtin(ArenaElo, "Elo ratings, one game per judged pair scored by its win share (ties half)"),
    "crowd_bt": Builtin(ArenaCrowdBT, "Crowd-BT: Bradley-Terry with a reliability per judge; log-strengths"),
    "judge_aware": Builtin(JudgeAware, "Crowd-BT with a position effect per judge and judges that share errors "
                           "down-weighted; log-strengths"),
}, required=("fit_cells",))


def make_rating(method: str | ArenaRating, params: dict[str, Any] | None = None) -> ArenaRating:
    """Return a leaderboard rating from a built-in name (:data:`LEADERBOARD_METHODS`) or ``package.module:callable``.

    It is built with the given parameters; an :class:`ArenaRating` object is taken as it is.
    """
    if isinstance(method, ArenaRating):
        if params:
            raise ValueError("give the parameters to the rating object itself, not as params")
        method._check_params()
        return method
    return LEADERBOARD_METHODS.build(method, params)


def _centred(scores: np.ndarray, present: np.ndarray, reference: np.ndarray | None) -> np.ndarray:
    """Return the scores of the present models (NaN for the others), shifted to the mean of ``reference``.

    The mean is over the present models (0 when ``reference`` is None).
    """
    out = np.full(len(present), np.nan)
    target = 0.0 if reference is None else float(reference[present].mean())
    out[present] = scores - scores.mean() + target
    return out


def _fit_counts(rating: ArenaRating, cells: Cells, counts: np.ndarray, start: RatingFit | None,
                reference: np.ndarray | None) -> tuple[np.ndarray, RatingFit]:
    """Centred scores (NaN: absent model) and the raw fit; a model without verdicts is fitted without."""
    present = cells.model_totals(counts) > 0
    if present.all():
        fit = rating.fit_cells(cells, counts, start)
        return _centred(fit.scores, present, reference), fit
    sub_cells, sub_counts = cells.subset(present, counts)
    sub_start = None if start is None else RatingFit(start.scores[present], start.extra)
    fit = rating.fit_cells(sub_cells, sub_counts, sub_start)
    return _centred(fit.scores, present, reference), fit


class Leaderboard(Estimator):
    """Scores, ranks and bootstrap intervals of the models of an arena (module docstring).

    Parameters
    ----------
    method : str or ArenaRating
        ``bradley_terry`` (ties half a win each way), ``davidson``, ``elo``, ``crowd_bt`` (needs a
        judge column), ``judge_aware`` (needs a judge column), ``package.module:callable``, or a rating object.
    params : dict, optional
        The method's parameters (e.g. ``{"reg": 0}``).
    n_bootstrap : int
        Bootstrap replicates; 0: no intervals (NaN).
    resample : {"verdicts", "prompts", "judges"}
    ci : float
        Coverage of the percentile intervals.
    seed : int
        Seed of ``numpy.random.default_rng``.
    bothbad : {"tie", "drop"}
        ``tie (bothbad)`` verdicts are ties (default) or left out.

    Attributes
    ----------
    table_ : pandas.DataFrame
        ``model, rank, score, ci_low, ci_high, rank_low, rank_high``, best first (rank 1 = best;
        equal scores share the best rank of their group).
    scores_ : pandas.Series
        Scores indexed by model (natural order).
    fit_ : RatingFit
        The fit of the full data (``extra``: Davidson's [log nu], Crowd-BT's judge etas,
        judge_aware's etas then gammas).
    replicates_ : numpy.ndarray, shape (n_bootstrap, models)
        Replicate scores (NaN: absent).
    absent_ : pandas.Series
        Per model, the replicates it was absent from.
    """

    def __init__(self, method: str | ArenaRating = "bradley_terry", params: dict[str, Any] | None = None,
                 n_bootstrap: int = 0, resample: str = "verdicts", ci: float = 0.95, seed: int = 0,
                 bothbad: str = "tie") -> None:
        self.method, self.params, self.n_bootstrap, self.resample = method, params, n_bootstrap, resample
        self.ci, self.seed, self.bothbad = ci, seed, bothbad

    def _check_params(self) -> None:
        make_rating(self.method, self.params)
        if not isinstance(self.n_bootstrap, (int, np.integer)) or self.n_bootstrap < 0:
            raise ValueError(f"n_bootstrap must be an integer >= 0, got {self.n_bootstrap!r}")
        if self.resample not in RESAMPLE_UNITS:
            raise ValueError(f"resample must be one of {', '.join(RESAMPLE_UNITS)}, got {self.resample!r}")
        if not 0 < self.ci < 1:
            raise ValueError(f"ci must be in (0, 1), got {self.ci}")

    def fit(self, verdicts: pd.DataFrame | ArenaVerdicts, progress: Callable[[int, int], None] | None = None
            ) -> Leaderboard:
        """Fit on the verdicts table; ``progress(done, total)`` is called after each replicate.

        ``verdicts`` is a verdicts table, or one coded already
        (:func:`~manyjudges.arena.reader.read_arena_verdicts`, with this leaderboard's ``bothbad``).
        Refused (ValueError): no verdicts (all ``tie (bothbad)`` left out), a comparison graph in several
        pieces (:func:`check_rateable`).
        Warned of: models that only won or only lost, models absent from some replicates, and models
        whose replicates are flat, whose intervals are left empty (:func:`without_flat_intervals`).
        """
        self._check_params()
        rating = make_rating(self.method, self.params)
        data = verdicts if isinstance(verdicts, ArenaVerdicts) else code_verdicts(verdicts, self.bothbad)
        if rating.by_judge and not data.has_judge:
            raise ValueError(f"{rating.name} needs a judge column in the verdicts")
        if data.n_verdicts == 0:
            raise ValueError("no verdicts to rate (every verdict was a tie (bothbad) left out by bothbad: drop)")
        cells, cell_of_verdict = cell_table(data, rating.by_judge, rating.by_order)
        weights = rating.verdict_weights(data)
        units = unit_matrix(data, cell_of_verdict, cells.n_cells, self.resample, weights)
        counts = np.bincount(cell_of_verdict, weights=weights, minlength=cells.n_cells).astype(float)
        check_rateable(cells, counts)
        scores, fit = _fit_counts(rating, cells, counts, None, None)
        replicates = bootstrap_replicates(rating, cells, units, fit, scores, self.n_bootstrap, self.seed, progress)
        self.fit_, self.replicates_ = fit, replicates
        self.absent_ = pd.Series(np.isnan(replicates).sum(axis=0), index=pd.Index(data.models, name="model"),
                                 name="absent")
        if self.n_bootstrap and self.absent_.any():
            absent = self.absent_[self.absent_ > 0].sort_values(ascending=False, kind="stable")
            warnings.warn(f"{len(absent)} models are absent from some bootstrap replicates "
                          f"({named(np.asarray([f'{m} from {k}' for m, k in absent.items()]))} of "
                          f"{self.n_bootstrap}); their intervals are over the replicates they are in", stacklevel=2)
        self.scores_ = pd.Series(scores, index=pd.Index(data.models, name="model"), name="score")
        self.table_ = without_flat_intervals(leaderboard_table(data, scores, replicates, self.ci), data, replicates,
                                             self.resample)
        return self


def check_rateable(cells: Cells, counts: np.ndarray) -> None:
    """Refuse cells whose comparison graph is in several pieces; warn of models that only won or only lost.

    A ValueError (:func:`~manyjudges.arena.pieces.pieces_message`: scores of different pieces are not
    comparable) names the pieces. A warning names the models that won every verdict they were in, or lost
    every one (no finite maximum-likelihood score: the ridge or the prior holds theirs;
    :mod:`manyjudges.arena.pieces`). Both are read from the cells with a positive count (a cell is a judged
    pair and its outcome, :data:`~manyjudges.core.pairwise.cells.LO_WINS` = 0, ``HI_WINS`` = 1, ``TIE`` = 2,
    the winner codes with ``lo`` as model_a), which hold the same pairs and outcomes as the verdicts.
    """
    seen = counts > 0
    lo, hi, outcome = cells.lo[seen], cells.hi[seen], cells.outcome[seen]
    pieces = comparison_pieces(cells.n_models, lo, hi)
    models = np.asarray(cells.names if cells.names is not None else np.arange(cells.n_models), dtype=object)
    if pieces.max() > 0:
        raise ValueError(pieces_message(models, pieces))
    won, lost = one_sided_models(cells.n_models, lo, hi, outcome)
    said = [f"models that {what}: {named(models[codes])}" for what, codes in
            (("won every verdict they were in", won), ("lost every verdict they were in", lost)) if len(codes)]
    if said:
        warnings.warn(f"{'; '.join(said)}; their scores have no finite maximum-likelihood value: only the method's "
                      "ridge or prior (Elo: its K and rounds) holds them, and they say only that these models are "
                      "above (below) the others", stacklevel=3)


def without_flat_intervals(table: pd.DataFrame, data: ArenaVerdicts, replicates: np.ndarray, resample: str
                           ) -> pd.DataFrame:
    """Return the leaderboard table with the intervals of models whose replicates are flat emptied, with a warning.

    A model whose replicate scores are fewer than two or all equal (:func:`~manyjudges.arena.pieces.flat_replicates`:
    one unit to resample, every unit alike, a model in at most one replicate) would get a zero-width
    interval (and ``rank_low == rank_high``) that the data does not support: its ``ci_low, ci_high,
    rank_low, rank_high`` are left empty (NaN) instead, and a warning names the models.
    """
    if not len(replicates):
        return table
    flat = data.models[flat_replicates(replicates)]
    if not len(flat):
        return table
    table = table.copy()
    rows = table["model"].isin([str(m) for m in flat]).to_numpy()
    table.loc[rows, ["ci_low", "ci_high"]] = np.nan
    table.loc[rows, ["rank_low", "rank_high"]] = pd.NA
    warnings.warn(f"models with the same score in every bootstrap replicate they are in, or in "
                  f"fewer than two ({named(flat)}; {len(replicates)} replicates resampling {resample}): too few "
                  "verdicts for an interval, theirs are left empty", stacklevel=3)
    return table


def bootstrap_replicates(rating: ArenaRating, cells: Cells, units: Any, fit: RatingFit, scores: np.ndarray,
                         n: int, seed: int, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Return the (n, models) replicate scores (module docstring).

    Replicate r's unit multiplicities are ``bincount(rng.integers(0, n_units, n_units))``, its cell
    counts ``units @ multiplicities``.
    """
    rng = np.random.default_rng(seed)
    n_units = units.shape[1]
    out = np.full((n, cells.n_models), np.nan)
    for r in range(n):
        weight = np.bincount(rng.integers(0, n_units, n_units), minlength=n_units).astype(float)
        out[r], _ = _fit_counts(rating, cells, units @ weight, fit, scores)
        if progress is not None:
            progress(r + 1, n)
    return out


def leaderboard_table(data: ArenaVerdicts, scores: np.ndarray, replicates: np.ndarray, ci: float) -> pd.DataFrame:
    """Return the table ``model, rank, score, ci_low, ci_high, rank_low, rank_high``, best first (ties by model).

    ``rank_low, rank_high`` are nullable integers (missing without replicates).
    """
    n = data.n_models
    if len(replicates):
        ci_low, ci_high, rank_low, rank_high = percentile_intervals(replicates, ci)
    else:
        ci_low = ci_high = rank_low = rank_high = np.full(n, np.nan)
    table = pd.DataFrame({"model": data.models.astype(str), "rank": competition_ranks(scores).astype(np.int64),
                          "score": scores, "ci_low": ci_low, "ci_high": ci_high,
                          "rank_low": pd.array(rank_low, dtype="Float64").astype("Int64"),
                          "rank_high": pd.array(rank_high, dtype="Float64").astype("Int64")})
    order = np.lexsort((np.arange(n), table["rank"].to_numpy()))
    return table.iloc[order].reset_index(drop=True)


def bootstrap(verdicts: pd.DataFrame, method: str | ArenaRating = "bradley_terry", n: int = 1000,
              resample: str = "verdicts", ci: float = 0.95, seed: int = 0, params: dict[str, Any] | None = None,
              bothbad: str = "tie", progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Return the leaderboard table with ``n`` bootstrap replicates resampling ``resample`` (module docstring).

    ``n=0``: scores and ranks only, the interval columns empty.
    """
    return Leaderboard(method, params, n_bootstrap=n, resample=resample, ci=ci, seed=seed,
                       bothbad=bothbad).fit(verdicts, progress).table_
