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
"""
from __future__ import annotations

import multiprocessing
import os
import time
import warnings
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.arena.cells import RESAMPLE_UNITS, Cells, cell_table, unit_matrix
from manyjudges.arena.davidson import Davidson
from manyjudges.arena.judge_aware import JudgeAware, judge_table
from manyjudges.arena.rank_intervals import competition_ranks, percentile_intervals
from manyjudges.arena.ratings import ArenaBradleyTerry, ArenaCrowdBT, ArenaElo, ArenaRating, RatingFit
from manyjudges.arena.verdict_codes import ArenaVerdicts, code_verdicts
from manyjudges.arena.win_rates import WinCurve, logistic_win_rate, win_curve, win_rates
from manyjudges.core.blas_threads import one_blas_thread
from manyjudges.core.estimator import Estimator
from manyjudges.core.registry import Builtin, Registry

__all__ = ["LEADERBOARD_COLUMNS", "LEADERBOARD_METHODS", "Leaderboard", "READING_COLUMNS", "baseline_code", "bootstrap",
           "leaderboard_table", "make_rating"]

LEADERBOARD_COLUMNS = ["model", "rank", "score", "ci_low", "ci_high", "rank_low", "rank_high"]
#: the columns :func:`leaderboard_table` adds after :data:`LEADERBOARD_COLUMNS`: verdict count and win rate
READING_COLUMNS = ["verdicts", "win_rate", "win_low", "win_high"]

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
    n_jobs : int, optional
        Processes fitting the replicates (None: the CPUs the process may use); the numbers are the same
        for any value (:func:`bootstrap_replicates`).

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
        (:func:`~manyjudges.arena.judge_aware.judge_table`), ``judge, skill`` for ``crowd_bt``,
        None for the methods without judges.
    """

    def __init__(self, method: str | ArenaRating = "bradley_terry", params: dict[str, Any] | None = None,
                 n_bootstrap: int = 0, resample: str = "verdicts", ci: float = 0.95, seed: int = 0,
                 bothbad: str = "tie", n_jobs: int | None = None) -> None:
        self.method, self.params, self.n_bootstrap, self.resample = method, params, n_bootstrap, resample
        self.ci, self.seed, self.bothbad, self.n_jobs = ci, seed, bothbad, n_jobs

    def _check_params(self) -> None:
        make_rating(self.method, self.params)
        if not isinstance(self.n_bootstrap, (int, np.integer)) or self.n_bootstrap < 0:
            raise ValueError(f"n_bootstrap must be an integer >= 0, got {self.n_bootstrap!r}")
        if self.resample not in RESAMPLE_UNITS:
            raise ValueError(f"resample must be one of {', '.join(RESAMPLE_UNITS)}, got {self.resample!r}")
        if not 0 < self.ci < 1:
            raise ValueError(f"ci must be in (0, 1), got {self.ci}")
        if self.n_jobs is not None and (not isinstance(self.n_jobs, (int, np.integer)) or self.n_jobs < 1):
            raise ValueError(f"n_jobs must be an integer >= 1 or None, got {self.n_jobs!r}")

    def fit(self, verdicts: pd.DataFrame | ArenaVerdicts, progress: Callable[[int, int], None] | None = None
            ) -> Leaderboard:
        """Fit on the verdicts table; ``progress(done, total)`` is called after each replicate.

        ``verdicts`` is a verdicts table, or one coded already
        (:func:`~manyjudges.arena.reader.read_arena_verdicts`, with this leaderboard's ``bothbad``).
        """
        self._check_params()
        rating = make_rating(self.method, self.params)
        data = verdicts if isinstance(verdicts, ArenaVerdicts) else code_verdicts(verdicts, self.bothbad)
        if rating.by_judge and not data.has_judge:
            raise ValueError(f"{rating.name} needs a judge column in the verdicts")
        cells, cell_of_verdict = cell_table(data, rating.by_judge, rating.by_order)
        weights = rating.verdict_weights(data)
        units = unit_matrix(data, cell_of_verdict, cells.n_cells, self.resample, weights)
        counts = np.bincount(cell_of_verdict, weights=weights, minlength=cells.n_cells).astype(float)
        with one_blas_thread():
            scores, fit = _fit_counts(rating, cells, counts, None, None)
            replicates = bootstrap_replicates(rating, cells, units, fit, scores, self.n_bootstrap, self.seed,
                                              progress, self.n_jobs)
        self.fit_, self.replicates_ = fit, replicates
        self.judges_ = judges_side_table(rating, data, fit)
        self.absent_ = pd.Series(np.isnan(replicates).sum(axis=0), index=pd.Index(data.models, name="model"),
                                 name="absent")
        if self.n_bootstrap and self.absent_.any():
            worst = self.absent_.idxmax()
            warnings.warn(f"{int((self.absent_ > 0).sum())} models are absent from some bootstrap replicates "
                          f"({worst!r} from {int(self.absent_.max())} of {self.n_bootstrap}); their intervals "
                          "are over the replicates they are in", stacklevel=2)
        self.scores_ = pd.Series(scores, index=pd.Index(data.models, name="model"), name="score")
        self.table_ = leaderboard_table(data, scores, replicates, self.ci, win_curve(rating, fit))
        return self


def judges_side_table(rating: ArenaRating, data: ArenaVerdicts, fit: RatingFit) -> pd.DataFrame | None:
    """Return :attr:`Leaderboard.judges_` (None for a method without judge parameters)."""
    if isinstance(rating, JudgeAware):
        return judge_table(data.judges, fit, getattr(rating, "weights_", None))
    if isinstance(rating, ArenaCrowdBT) and fit.extra is not None:
        return pd.DataFrame({"judge": np.asarray([str(j) for j in data.judges], dtype=object), "skill": fit.extra})
    return None


def bootstrap_replicates(rating: ArenaRating, cells: Cells, units: Any, fit: RatingFit, scores: np.ndarray,
                         n: int, seed: int, progress: Callable[[int, int], None] | None = None,
                         n_jobs: int | None = None) -> np.ndarray:
    """Return the (n, models) replicate scores (module docstring), fitted by ``n_jobs`` processes.

    Replicate r's unit multiplicities are ``bincount(rng.integers(0, n_units, n_units))``, its cell
    counts ``units @ multiplicities``. This process makes the draws, one replicate at a time in the
    order r = 0, 1, ...; this process fits replicate 0, and with ``n_jobs`` > 1 forked worker
    processes fit the others, in blocks of consecutive replicates (:func:`_fit_in_processes`). A fit
    depends on its draw and the full-data fit only, so every replicate's scores are the same, bit
    for bit, for any ``n_jobs`` (BLAS on one thread in each process:
    :func:`~manyjudges.core.blas_threads.one_blas_thread`). ``n_jobs``: None, as many processes as
    the CPUs this process may use, but only when replicate 0's time says the others would take
    :data:`PARALLEL_SECONDS` or more here (else forking costs more than it saves); 1 (or a system
    without ``fork``), this process alone. ``progress(done, total)`` is called as replicates are
    done (after each, or each block), ``done`` counting up.
    """
    jobs = max(1, min(_available_cpus() if n_jobs is None else int(n_jobs), n))
    rng = np.random.default_rng(seed)
    n_units = units.shape[1]
    state = (rating, cells, units, fit, scores)
    out = np.full((n, cells.n_models), np.nan)
    start = time.perf_counter()
    for r in range(n):
        if r == 1 and jobs > 1 and "fork" in multiprocessing.get_all_start_methods() and (
                n_jobs is not None or (n - 1) * (time.perf_counter() - start) >= PARALLEL_SECONDS):
            _fit_in_processes(state, rng, out, 1, jobs, progress)
            break
        out[r] = _fit_draw(state, rng.integers(0, n_units, n_units))
        if progress is not None:
            progress(r + 1, n)
    return out


#: with ``n_jobs=None``, the bootstrap forks worker processes when the first replicate's time says
#: the others would take at least this many seconds in one process
PARALLEL_SECONDS = 1.0
#: what a replicate's fit needs: (rating, cells, units, full-data fit, full-data scores)
_State = tuple[ArenaRating, Cells, Any, RatingFit, np.ndarray]
#: a forked worker's :data:`_State`, set by :func:`_start_worker`
_WORKER_STATE: _State | None = None
#: a block of consecutive replicates sent to a worker holds at most this many unit draws in all
_BLOCK_DRAWS = 1_000_000


def _fit_draw(state: _State, draw: np.ndarray) -> np.ndarray:
    """Return one replicate's centred scores from its draw of unit indices."""
    rating, cells, units, fit, scores = state
    weight = np.bincount(draw, minlength=units.shape[1]).astype(float)
    return _fit_counts(rating, cells, units @ weight, fit, scores)[0]


def _start_worker(state: _State) -> None:
    """Keep ``state`` for :func:`_fit_block` and limit the worker's BLAS to one thread for its life."""
    global _WORKER_STATE
    _WORKER_STATE = state
    one_blas_thread().__enter__()


def _fit_block(draws: np.ndarray) -> np.ndarray:
    """Return the scores of a block of replicates (in a worker), one row of ``draws`` each."""
    assert _WORKER_STATE is not None
    return np.stack([_fit_draw(_WORKER_STATE, draw) for draw in draws])


def _fit_in_processes(state: _State, rng: np.random.Generator, out: np.ndarray, first: int, jobs: int,
                      progress: Callable[[int, int], None] | None) -> None:
    """Fill the rows ``first, first + 1, ...`` of ``out`` (one per replicate) by ``jobs`` forked processes.

    The draws are made here, in row order, a block of consecutive replicates at a time, at most 2
    blocks per job waiting. A block has at most 25 replicates and :data:`_BLOCK_DRAWS` unit draws
    (int32), and about an eighth of a job's share, so that the jobs end together and the progress
    moves.
    """
    n_units, n = state[2].shape[1], len(out)
    block = max(1, min(25, (n - first) // (8 * jobs), _BLOCK_DRAWS // max(n_units, 1)))
    pending: dict[Future[np.ndarray], int] = {}
    drawn = done = first
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker,
                               initargs=(state,))
    try:
        while drawn < n or pending:
            while drawn < n and len(pending) < 2 * jobs:
                k = min(block, n - drawn)
                draws = np.stack([rng.integers(0, n_units, n_units) for _ in range(k)]).astype(np.int32)
                pending[pool.submit(_fit_block, draws)] = drawn
                drawn += k
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                row = pending.pop(future)
                scores = future.result()
                out[row:row + len(scores)] = scores
                done += len(scores)
                if progress is not None:
                    progress(done, n)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _available_cpus() -> int:
    """Return how many CPUs this process may run on (its affinity where the system tells it, else all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover


def leaderboard_table(data: ArenaVerdicts, scores: np.ndarray, replicates: np.ndarray, ci: float,
                      curve: WinCurve = logistic_win_rate, baseline: str | None = None) -> pd.DataFrame:
    """Return the leaderboard table, best first (ties by model).

    Columns: ``model, rank, score, ci_low, ci_high, rank_low, rank_high`` (:class:`Leaderboard`), then
    ``verdicts`` (the verdicts the model is in, as model_a or model_b; after ``bothbad="drop"``),
    ``win_rate`` (the expected win rate against the pool's average model, a model whose score is the
    mean score, or against ``baseline``, whose own row is 0.5: ``curve`` of the score difference,
    :mod:`manyjudges.arena.win_rates`) and ``win_low, win_high`` (its bootstrap percentile interval).
    ``rank_low, rank_high`` are nullable integers (missing without replicates).
    """
    n = data.n_models
    if len(replicates):
        ci_low, ci_high, rank_low, rank_high = percentile_intervals(replicates, ci)
    else:
        ci_low = ci_high = rank_low = rank_high = np.full(n, np.nan)
    win_rate, win_low, win_high = win_rates(scores, replicates, curve, ci, baseline_code(data, baseline))
    counts = np.bincount(data.model_a, minlength=n) + np.bincount(data.model_b, minlength=n)
    table = pd.DataFrame({"model": data.models.astype(str), "rank": competition_ranks(scores).astype(np.int64),
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
