"""What the pipeline's arena jobs compute on one dataset.

A leaderboard per configured method, and the judge measures of the panel (against the reference
when there is one).

The leaderboard of each method is :class:`manyjudges.arena.leaderboard.Leaderboard` (its scores, ranks
and bootstrap percentile intervals) on the panel's verdicts; the bootstrap of method ``m`` on dataset
``d`` draws from ``numpy.random.default_rng(bootstrap_seed(seed, d, m))``, so each table can be
recomputed alone. The judge measures are :func:`manyjudges.arena.judges.judge_measures`.
"""
from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd

from manyjudges.arena.judges import JudgeMeasures, judge_measures
from manyjudges.arena.leaderboard import LEADERBOARD_COLUMNS, Leaderboard
from manyjudges.core.random_streams import rng_for

__all__ = ["LEADERBOARD_TABLE_COLUMNS", "arena_judges", "arena_leaderboards", "bootstrap_seed", "leaderboard_for"]

log = logging.getLogger(__name__)

#: the columns of the pipeline's ``leaderboard.tsv``: one row per method and model
LEADERBOARD_TABLE_COLUMNS = ["method", *LEADERBOARD_COLUMNS]


def bootstrap_seed(seed: int, dataset: str, method: str) -> int:
    """Return the seed of method ``method``'s bootstrap on ``dataset``.

    It is the first draw of the stream ``rng_for(seed, "arena", dataset, method)`` in [0, 2^63).
    """
    return int(rng_for(seed, "arena", dataset, method).integers(0, 2**63 - 1))


def leaderboard_for(entry: Mapping[str, Any] | None, name: str, n_bootstrap: int, resample: str, ci: float,
                    seed: int, bothbad: str = "tie", n_jobs: int | None = None) -> Leaderboard:
    """Return the (unfitted) leaderboard of one ``methods`` entry (``{method, params}``).

    The method defaults to the entry's ``name``; ``n_jobs``: the bootstrap's processes (:class:`Leaderboard`).
    """
    entry = entry or {}
    return Leaderboard(entry.get("method") or name, dict(entry.get("params") or {}), n_bootstrap=int(n_bootstrap),
                       resample=resample, ci=float(ci), seed=int(seed), bothbad=bothbad, n_jobs=n_jobs)


def arena_leaderboards(verdicts: pd.DataFrame, methods: Mapping[str, Mapping[str, Any] | None], dataset: str,
                       seed: int, n_bootstrap: int = 1000, resample: str = "verdicts", ci: float = 0.95,
                       bothbad: str = "tie", n_jobs: int | None = None) -> pd.DataFrame:
    """Return every method's leaderboard of ``verdicts``, stacked.

    Columns :data:`LEADERBOARD_TABLE_COLUMNS`, methods in the order of ``methods``, each best first.
    Method ``m``'s bootstrap seed is :func:`bootstrap_seed` (``seed``, ``dataset``, ``m``). The warning
    of a model absent from some replicates goes to the log. ``n_jobs``: the bootstrap's processes (the
    pipeline passes its job's threads); the numbers are the same for any.
    """
    tables = []
    for name, entry in methods.items():
        board = leaderboard_for(entry, name, n_bootstrap, resample, ci, bootstrap_seed(seed, dataset, name), bothbad,
                                n_jobs)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            board.fit(verdicts)
        for warning in caught:
            log.warning("%s: %s", name, warning.message)
        log.info("%s: %d models, %d bootstrap replicates (%s), %.2f s", name, len(board.table_), n_bootstrap,
                 resample, time.perf_counter() - start)
        tables.append(board.table_.assign(method=name)[LEADERBOARD_TABLE_COLUMNS])
    return pd.concat(tables, ignore_index=True)


def arena_judges(verdicts: pd.DataFrame, reference: pd.DataFrame | None = None, level: float = 0.95) -> JudgeMeasures:
    """Return the judge measures of the panel's ``verdicts`` (:func:`~manyjudges.arena.judges.judge_measures`).

    They are against ``reference`` when it has rows (an empty reference table is no reference).
    """
    return judge_measures(verdicts, reference if reference is not None and len(reference) else None, level)
