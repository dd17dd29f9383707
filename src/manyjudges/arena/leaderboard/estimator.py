"""An arena leaderboard: one score per model from all verdicts pooled, with bootstrap intervals.

The verdicts table (``prompt, judge, model_a, model_b, winner``; ``model_a`` is the answer shown
first; prompt and judge optional) is summed into cells (:mod:`manyjudges.arena.leaderboard.cells`) and
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
(:func:`~manyjudges.arena.leaderboard.rank_intervals._percentile_intervals`); ``absent_`` counts the others.
A model whose replicate scores are fewer than two or all equal gets no interval (NaN), not a zero-width one.
Verdicts whose comparison graph is in several pieces are refused (:mod:`manyjudges.arena.leaderboard.pieces`).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from manyjudges.arena.leaderboard.cells import _RESAMPLE_UNITS, _cell_table, _unit_matrix
from manyjudges.arena.leaderboard.davidson import Davidson
from manyjudges.arena.leaderboard.judge_aware import JudgeAware, _judge_table
from manyjudges.arena.leaderboard.pieces import _check_rateable, _without_flat_intervals, named
from manyjudges.arena.leaderboard.rank_intervals import _competition_ranks, _percentile_intervals
from manyjudges.arena.leaderboard.ratings import ArenaBradleyTerry, ArenaCrowdBT, ArenaElo, ArenaRating, RatingFit
from manyjudges.arena.leaderboard.replicates import _bootstrap_replicates, _fit_counts
from manyjudges.arena.leaderboard.state import (
    _WARM_STARTED,
    LeaderboardState,
    _check_without_units,
    _merge_state,
    _state_of_fit,
    _warm_start,
)
from manyjudges.arena.leaderboard.style import (
    _check_control,
    _code_with_features,
    _coefficient_table,
    _controlled_replicates,
    _ControlledBradleyTerry,
    _verdict_cells,
    covariates,
)
from manyjudges.arena.leaderboard.win_rates import WinCurve, _logistic_win_rate, win_curve, win_rates
from manyjudges.arena.verdict_codes import _BOTHBAD_RULES, ArenaVerdicts, code_verdicts
from manyjudges.core.blas_threads import one_blas_thread
from manyjudges.core.estimator import Estimator
from manyjudges.core.pairwise.cells import Cells
from manyjudges.core.parameters import Interval, Options
from manyjudges.core.registry import Builtin, Registry
from manyjudges.io.tables.verdicts import feature_names

__all__ = [
    "CONTROL_METHODS", "LEADERBOARD_METHODS", "Leaderboard", "READING_COLUMNS", "baseline_code", "bootstrap",
    "leaderboard_table", "make_rating",
]

_LEADERBOARD_COLUMNS = ["model", "rank", "score", "ci_low", "ci_high", "rank_low", "rank_high"]
#: the columns :func:`leaderboard_table` adds after :data:`_LEADERBOARD_COLUMNS`: verdict count and win rate
READING_COLUMNS = ["verdicts", "win_rate", "win_low", "win_high"]

#: the methods that take ``control`` (answer features held fixed: :mod:`manyjudges.arena.leaderboard.style`)
CONTROL_METHODS = ("bradley_terry",)

LEADERBOARD_METHODS = Registry("leaderboard", {
    "bradley_terry": Builtin(ArenaBradleyTerry, "Bradley-Terry, a tie half a win each way; log-strengths"),
    "davidson": Builtin(Davidson, "Davidson's Bradley-Terry with a tie parameter; log-strengths"),
    "elo": Builtin(ArenaElo, "Elo ratings, one game per judged pair scored by its win share (ties half)"),
    "crowd_bt": Builtin(ArenaCrowdBT, "Crowd-BT: Bradley-Terry with a skill per judge; log-strengths"),
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
    n_jobs : int, optional
        Processes fitting the replicates (None: the CPUs the process may use); the numbers are the same
        for any value (:func:`_bootstrap_replicates`).
    control : sequence of str, optional
        Answer features to control for (``bradley_terry`` only, :data:`CONTROL_METHODS`): the verdicts
        table must have the columns ``NAME_a, NAME_b`` of each; the scores are then the style-controlled
        ones (:mod:`manyjudges.arena.leaderboard.style`), the bootstrap fitted in this process (``n_jobs`` unused).

    Attributes
    ----------
    table_ : pandas.DataFrame
        ``model, rank, score, ci_low, ci_high, rank_low, rank_high``, best first (rank 1 = best;
        equal scores share the best rank of their group), then ``verdicts, win_rate, win_low, win_high``
        (:func:`leaderboard_table`: win rates against the pool's average model).
    scores_ : pandas.Series
        Scores indexed by model (natural order).
    fit_ : RatingFit
        The fit of the full data (``extra``: Davidson's [log nu], Crowd-BT's judge etas,
        judge_aware's etas then gammas).
    replicates_ : numpy.ndarray, shape (n_bootstrap, models)
        Replicate scores (NaN: absent).
    absent_ : pandas.Series
        Per model, the replicates it was absent from.
    judges_ : pandas.DataFrame or None
        The judges side table of the full-data fit: ``judge, skill, position_bias, cluster,
        cluster_size, rho, weight`` for ``judge_aware``
        (:func:`~manyjudges.arena.leaderboard.judge_aware._judge_table`), ``judge, skill`` for ``crowd_bt``,
        None for the methods without judges.
    state_ : LeaderboardState or None
        What a later :meth:`partial_fit` needs to take more verdicts (:mod:`manyjudges.arena.leaderboard.state`; its
        ``save(path)`` writes it, ``LeaderboardState.load(path)`` reads it), with the verdicts when
        ``n_bootstrap`` > 0 or the rating weighs them; None when the rating's parameters cannot be written
        as JSON, or with ``control`` (a controlled fit is not resumed).
    coefficients_ : pandas.DataFrame or None
        With ``control``: ``feature, coefficient, ci_low, ci_high``, each feature's gamma (log-odds per
        standard deviation of its normalised difference) and its bootstrap percentile interval over the
        scores' replicates (:func:`~manyjudges.arena.leaderboard.style._coefficient_table`); None without.
    """

    _parameter_constraints = {
        "method": [str, ArenaRating],
        "params": [Mapping, None],
        "n_bootstrap": [Interval(Integral, 0, None)],
        "resample": [Options(_RESAMPLE_UNITS)],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "seed": [Interval(Integral, 0, None)],
        "bothbad": [Options(_BOTHBAD_RULES)],
        "n_jobs": [Interval(Integral, 1, None), None],
        "control": [None, str, list, tuple],
    }

    def __init__(self, method: str | ArenaRating = "bradley_terry", params: dict[str, Any] | None = None,
                 n_bootstrap: int = 0, resample: str = "verdicts", ci: float = 0.95, seed: int = 0,
                 bothbad: str = "tie", n_jobs: int | None = None, control: Sequence[str] | None = None) -> None:
        self.method, self.params, self.n_bootstrap, self.resample = method, params, n_bootstrap, resample
        self.ci, self.seed, self.bothbad, self.n_jobs, self.control = ci, seed, bothbad, n_jobs, control

    def _check_params(self) -> None:
        """Check the declared constraints, then the rating's parameters and that it takes ``control``."""
        super()._check_params()
        rating = make_rating(self.method, self.params)
        if self.control and not isinstance(rating, ArenaBradleyTerry):
            raise ValueError(f"control: the method {rating.name} takes no controls (the methods that take "
                             f"controls: {', '.join(CONTROL_METHODS)})")

    def fit(self, verdicts: pd.DataFrame | ArenaVerdicts, progress: Callable[[int, int], None] | None = None
            ) -> Leaderboard:
        """Fit on the verdicts table; ``progress(done, total)`` is called after each replicate.

        ``verdicts`` is a verdicts table, or one coded already
        (:func:`~manyjudges.arena.reader.read_arena_verdicts`, with this leaderboard's ``bothbad``).
        Refused (ValueError): no verdicts (all ``tie (bothbad)`` left out), a comparison graph in several
        pieces (:func:`~manyjudges.arena.leaderboard.pieces._check_rateable`).
        Warned of: models that only won or only lost, models absent from some replicates, and models
        whose replicates are flat, whose intervals are left empty
        (:func:`~manyjudges.arena.leaderboard.pieces._without_flat_intervals`).
        """
        self._check_params()
        rating = make_rating(self.method, self.params)
        if self.control:
            assert isinstance(rating, ArenaBradleyTerry)
            return self._fit_controlled(rating, verdicts, progress)
        self.coefficients_: pd.DataFrame | None = None
        data = self._coded(rating, verdicts)
        cells, cell_of_verdict = _cell_table(data, rating.by_judge, rating.by_order)
        weights = rating.verdict_weights(data)
        counts = np.bincount(cell_of_verdict, weights=weights, minlength=cells.n_cells).astype(float)
        model_verdicts = np.bincount(data.model_a, minlength=data.n_models) + np.bincount(data.model_b,
                                                                                      minlength=data.n_models)
        keep = bool(self.n_bootstrap) or weights is not None
        return self._fit_counted(rating, data, (cells, counts, cell_of_verdict, weights), None, progress,
                                 (model_verdicts, keep))

    def partial_fit(self, verdicts: pd.DataFrame | ArenaVerdicts, progress: Callable[[int, int], None] | None = None,
                    state: LeaderboardState | None = None) -> Leaderboard:
        """Fit on the verdicts of ``state`` and ``verdicts`` together (:mod:`~manyjudges.arena.leaderboard.state`).

        ``state`` defaults to this leaderboard's own :attr:`state_` (the verdicts it was fitted on); without either,
        this is :meth:`fit`. Only the new verdicts are coded and counted; the refit of a convex method
        (``_WARM_STARTED`` in :mod:`manyjudges.arena.leaderboard.state`) starts from the state's fit; the result
        equals :meth:`fit` on all the verdicts to the solvers' tolerance, bootstrap intervals included (the state
        keeps every verdict's codes, so the units are drawn as one pass draws them). A state of another method, other
        parameters or another ``bothbad`` is a ValueError. A fit without a bootstrap keeps in its state only the
        names, the cells and the fit, not the verdicts (unless the rating weighs them: ``judge_aware``'s clusters), so
        that resuming it takes a time that grows with the new verdicts only; such a state cannot be resumed with a
        bootstrap (a ValueError).
        """
        state = getattr(self, "state_", None) if state is None else state
        if state is None:
            return self.fit(verdicts, progress)
        self._check_params()
        if self.control:
            raise ValueError("a leaderboard with control is not resumed (its features are fitted from all the "
                             "verdicts): fit all of them in one pass")
        self.coefficients_ = None
        rating = make_rating(self.method, self.params)
        state.check_same(rating, self.bothbad)
        new = self._coded(rating, verdicts)
        if not state.units:
            _check_without_units(rating, new, self.n_bootstrap)
        new_cells, new_cell_of = _cell_table(new, rating.by_judge, rating.by_order)
        data, cells, counts, names, model_verdicts = _merge_state(state, new, new_cells, np.bincount(
            new_cell_of, minlength=new_cells.n_cells).astype(float), rating.by_judge)
        weights = rating.verdict_weights(data) if state.units else None
        cell_of_verdict = None
        if weights is not None or self.n_bootstrap:  # every verdict's cell: the units, or the weights changed
            cells, cell_of_verdict = _cell_table(data, rating.by_judge, rating.by_order)
            if weights is not None:
                counts = np.bincount(cell_of_verdict, weights=weights, minlength=cells.n_cells).astype(float)
        start = _warm_start(state.fit, names) if rating.name in _WARM_STARTED else None
        return self._fit_counted(rating, data, (cells, counts, cell_of_verdict, weights), start, progress,
                                 (model_verdicts, state.units))

    def _coded(self, rating: ArenaRating, verdicts: pd.DataFrame | ArenaVerdicts) -> ArenaVerdicts:
        """Return the verdicts coded (:func:`code_verdicts`); refused without rows or a judge column it needs."""
        data = verdicts if isinstance(verdicts, ArenaVerdicts) else code_verdicts(verdicts, self.bothbad)
        if rating.by_judge and not data.has_judge:
            raise ValueError(f"{rating.name} needs a judge column in the verdicts")
        if data.n_verdicts == 0:
            raise ValueError("no verdicts to rate (every verdict was a tie (bothbad) left out by bothbad: drop)")
        return data

    def _fit_counted(self, rating: ArenaRating, data: ArenaVerdicts,
                     counted: tuple[Cells, np.ndarray, np.ndarray | None, np.ndarray | None],
                     start: RatingFit | None, progress: Callable[[int, int], None] | None,
                     kept: tuple[np.ndarray, bool]) -> Leaderboard:
        """Fit the counted ``(cells, counts, each verdict's cell or None, weights)`` from ``start``; bootstrap.

        ``kept``: each model's verdicts, and whether :attr:`state_` keeps the verdicts.
        """
        cells, counts, cell_of_verdict, weights = counted
        _check_rateable(cells, counts)
        units = (sparse.csr_matrix((cells.n_cells, 0)) if cell_of_verdict is None
                 else _unit_matrix(data, cell_of_verdict, cells.n_cells, self.resample, weights))
        with one_blas_thread():
            scores, fit = _fit_counts(rating, cells, counts, start, None)
            replicates = _bootstrap_replicates(rating, cells, units, fit, scores, self.n_bootstrap, self.seed,
                                              progress, self.n_jobs)
        self._finish(rating, data, fit, scores, replicates, kept[0])
        self.state_ = _state_of_fit(rating, self.bothbad, data, (cells, counts), fit, kept)
        return self

    def _fit_controlled(self, rating: ArenaBradleyTerry, verdicts: pd.DataFrame | ArenaVerdicts,
                        progress: Callable[[int, int], None] | None) -> Leaderboard:
        """Fit the style-controlled Bradley-Terry (:mod:`manyjudges.arena.leaderboard.style`) and its bootstrap."""
        if isinstance(verdicts, ArenaVerdicts):
            raise ValueError("control needs the verdicts as a table with the features' NAME_a, NAME_b columns, "
                             "not coded verdicts")
        assert self.control is not None
        names = _check_control(self.control, feature_names(verdicts))
        data, values = _code_with_features(verdicts, names, self.bothbad)
        if data.n_verdicts == 0:
            raise ValueError("no verdicts to rate (every verdict was a tie (bothbad) left out by bothbad: drop)")
        controlled = _ControlledBradleyTerry(rating, covariates(values, names))
        cells, _ = _verdict_cells(data)
        counts = np.ones(cells.n_cells)
        _check_rateable(cells, counts)
        units = _unit_matrix(data, np.arange(data.n_verdicts), cells.n_cells, self.resample)
        with one_blas_thread():
            scores, fit = _fit_counts(controlled, cells, counts, None, None)
            replicates, gammas = _controlled_replicates(controlled, cells, units, fit, scores, self.n_bootstrap,
                                                       self.seed, progress)
        assert fit.extra is not None
        self.coefficients_ = _coefficient_table(names, fit.extra, gammas, self.ci)
        self.state_ = None
        return self._finish(rating, data, fit, scores, replicates)

    def _finish(self, rating: ArenaRating, data: ArenaVerdicts, fit: RatingFit, scores: np.ndarray,
                replicates: np.ndarray, model_verdicts: np.ndarray | None = None) -> Leaderboard:
        """Set the fitted attributes from the full-data fit and the replicates; warn of absent models.

        ``model_verdicts``: each model's verdicts (None: counted from ``data``).
        """
        self.fit_, self.replicates_ = fit, replicates
        self.judges_ = judges_side_table(rating, data, fit)
        self.absent_ = pd.Series(np.isnan(replicates).sum(axis=0), index=pd.Index(data.models, name="model"),
                                 name="absent")
        if self.n_bootstrap and self.absent_.any():
            absent = self.absent_[self.absent_ > 0].sort_values(ascending=False, kind="stable")
            warnings.warn(f"{len(absent)} models are absent from some bootstrap replicates "
                          f"({named(np.asarray([f'{m} from {k}' for m, k in absent.items()]))} of "
                          f"{self.n_bootstrap}); their intervals are over the replicates they are in", stacklevel=4)
        self.scores_ = pd.Series(scores, index=pd.Index(data.models, name="model"), name="score")
        table = leaderboard_table(data, scores, replicates, self.ci, win_curve(rating, fit), verdicts=model_verdicts)
        self.table_ = _without_flat_intervals(table, data, replicates, self.resample)
        return self


def judges_side_table(rating: ArenaRating, data: ArenaVerdicts, fit: RatingFit) -> pd.DataFrame | None:
    """Return :attr:`Leaderboard.judges_` (None for a method without judge parameters)."""
    if isinstance(rating, JudgeAware):
        return _judge_table(data.judges, fit, getattr(rating, "weights_", None))
    if isinstance(rating, ArenaCrowdBT) and fit.extra is not None:
        return pd.DataFrame({"judge": np.asarray([str(j) for j in data.judges], dtype=object), "skill": fit.extra})
    return None


def leaderboard_table(data: ArenaVerdicts, scores: np.ndarray, replicates: np.ndarray, ci: float,
                      curve: WinCurve = _logistic_win_rate, baseline: str | None = None,
                      verdicts: np.ndarray | None = None) -> pd.DataFrame:
    """Return the leaderboard table, best first (ties by model).

    Columns: ``model, rank, score, ci_low, ci_high, rank_low, rank_high`` (:class:`Leaderboard`), then
    ``verdicts`` (the verdicts the model is in, as model_a or model_b; after ``bothbad="drop"``),
    ``win_rate`` (the expected win rate against the pool's average model, a model whose score is the
    mean score, or against ``baseline``, whose own row is 0.5: ``curve`` of the score difference,
    :mod:`manyjudges.arena.leaderboard.win_rates`) and ``win_low, win_high`` (its bootstrap percentile interval).
    ``rank_low, rank_high`` are nullable integers (missing without replicates). ``verdicts``: each model's
    verdicts when ``data`` holds only the names (None: counted from ``data``).
    """
    n = data.n_models
    if len(replicates):
        ci_low, ci_high, rank_low, rank_high = _percentile_intervals(replicates, ci)
    else:
        ci_low = ci_high = rank_low = rank_high = np.full(n, np.nan)
    win_rate, win_low, win_high = win_rates(scores, replicates, curve, ci, baseline_code(data, baseline))
    counts = (np.bincount(data.model_a, minlength=n) + np.bincount(data.model_b, minlength=n)
              if verdicts is None else np.asarray(verdicts))
    table = pd.DataFrame({"model": data.models.astype(str), "rank": _competition_ranks(scores).astype(np.int64),
                          "score": scores, "ci_low": ci_low, "ci_high": ci_high,
                          "rank_low": pd.array(rank_low, dtype="Float64").astype("Int64"),
                          "rank_high": pd.array(rank_high, dtype="Float64").astype("Int64"),
                          "verdicts": counts.astype(np.int64), "win_rate": win_rate, "win_low": win_low,
                          "win_high": win_high})
    order = np.lexsort((np.arange(n), table["rank"].to_numpy()))
    return table.iloc[order].reset_index(drop=True)


def baseline_code(data: ArenaVerdicts, baseline: str | None) -> int | None:
    """Return the code of model ``baseline`` (None: None); a name that is not a model is a ValueError."""
    if baseline is None:
        return None
    found = np.flatnonzero(data.models.astype(str) == str(baseline))
    if not len(found):
        shown = ", ".join(map(str, data.models[:10])) + (", ..." if data.n_models > 10 else "")
        raise ValueError(f"baseline {baseline!r} is not a model of the verdicts (models: {shown})")
    return int(found[0])


def bootstrap(verdicts: pd.DataFrame, method: str | ArenaRating = "bradley_terry", n: int = 1000,
              resample: str = "verdicts", ci: float = 0.95, seed: int = 0, params: dict[str, Any] | None = None,
              bothbad: str = "tie", progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Return the leaderboard table with ``n`` bootstrap replicates resampling ``resample`` (module docstring).

    ``n=0``: scores and ranks only, the interval columns empty.
    """
    return Leaderboard(method, params, n_bootstrap=n, resample=resample, ci=ci, seed=seed,
                       bothbad=bothbad).fit(verdicts, progress).table_
