"""A leaderboard's fits from cell counts: the full data's and each bootstrap replicate's, on every core.

:func:`_fit_counts` fits a rating to cell counts and centres its scores; :func:`_bootstrap_replicates`
draws the replicates (:mod:`manyjudges.arena.leaderboard.estimator` says how) and fits them, replicate 0 here and
the others in forked worker processes when they would take long, bit for bit the serial numbers.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import numpy as np

from manyjudges.arena.leaderboard.ratings import ArenaRating, RatingFit
from manyjudges.core.blas_threads import one_blas_thread
from manyjudges.core.pairwise.cells import Cells


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


def _bootstrap_replicates(rating: ArenaRating, cells: Cells, units: Any, fit: RatingFit, scores: np.ndarray,
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
    :data:`_PARALLEL_SECONDS` or more here (else forking costs more than it saves); 1 (or a system
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
                n_jobs is not None or (n - 1) * (time.perf_counter() - start) >= _PARALLEL_SECONDS):
            _fit_in_processes(state, rng, out, 1, jobs, progress)
            break
        out[r] = _fit_draw(state, rng.integers(0, n_units, n_units))
        if progress is not None:
            progress(r + 1, n)
    return out


#: with ``n_jobs=None``, the bootstrap forks worker processes when the first replicate's time says
#: the others would take at least this many seconds in one process
_PARALLEL_SECONDS = 1.0


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

