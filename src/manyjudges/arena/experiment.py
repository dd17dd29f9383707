"""What the pipeline's arena jobs compute on one dataset.

A leaderboard per configured method, and the judge measures of the panel (against the reference
when there is one); where a dataset asks for them, the style-controlled leaderboard (``control``), the win
rates against a baseline (``baseline``) and the human-calibrated leaderboard (``human``).

The leaderboard of each method is :class:`manyjudges.arena.leaderboard.estimator.Leaderboard` (its scores, ranks
and bootstrap percentile intervals) on the panel's verdicts; the bootstrap of method ``m`` on dataset
``d`` draws from ``numpy.random.default_rng(bootstrap_seed(seed, d, m))``, so each table can be
recomputed alone. The judge measures are :func:`manyjudges.arena.judges.measures.judge_measures`.
"""
from __future__ import annotations

import dataclasses
import logging
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.arena.human.leaderboard import HumanCalibratedLeaderboard
from manyjudges.arena.judges.measures import JudgeMeasures, judge_measures
from manyjudges.arena.leaderboard.estimator import _LEADERBOARD_COLUMNS, Leaderboard
from manyjudges.arena.length_preference import length_preference
from manyjudges.arena.winrate.baseline import baseline_win_rates
from manyjudges.core.random_streams import rng_for
from manyjudges.io.tables.verdicts import check_features, feature_names

__all__ = [
    "arena_controlled", "arena_human", "arena_judges", "arena_leaderboards", "arena_winrate", "bootstrap_seed",
    "with_length_preference",
]

log = logging.getLogger(__name__)

#: the columns of the pipeline's ``leaderboard.tsv``: one row per method and model
_LEADERBOARD_TABLE_COLUMNS = ["method", *_LEADERBOARD_COLUMNS]


def bootstrap_seed(seed: int, dataset: str, method: str) -> int:
    """Return the seed of method ``method``'s bootstrap on ``dataset``.

    It is the first draw of the stream ``rng_for(seed, "arena", dataset, method)`` in [0, 2^63).
    """
    return int(rng_for(seed, "arena", dataset, method).integers(0, 2**63 - 1))


def _leaderboard_for(entry: Mapping[str, Any] | None, name: str, n_bootstrap: int, resample: str, ci: float,
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

    Columns :data:`_LEADERBOARD_TABLE_COLUMNS`, methods in the order of ``methods``, each best first.
    Method ``m``'s bootstrap seed is :func:`bootstrap_seed` (``seed``, ``dataset``, ``m``). The warning
    of a model absent from some replicates goes to the log. ``n_jobs``: the bootstrap's processes (the
    pipeline passes its job's threads); the numbers are the same for any.
    """
    tables = []
    for name, entry in methods.items():
        board = _leaderboard_for(entry, name, n_bootstrap, resample, ci, bootstrap_seed(seed, dataset, name), bothbad,
                                n_jobs)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            board.fit(verdicts)
        for warning in caught:
            log.warning("%s: %s", name, warning.message)
        log.info("%s: %d models, %d bootstrap replicates (%s), %.2f s", name, len(board.table_), n_bootstrap,
                 resample, time.perf_counter() - start)
        tables.append(board.table_.assign(method=name)[_LEADERBOARD_TABLE_COLUMNS])
    return pd.concat(tables, ignore_index=True)


def arena_judges(verdicts: pd.DataFrame, reference: pd.DataFrame | None = None, level: float = 0.95,
                 length: str | None = None) -> JudgeMeasures:
    """Return the judge measures of the panel's ``verdicts`` (:func:`~manyjudges.arena.judges.measures.judge_measures`).

    They are against ``reference`` when it has rows (an empty reference table is no reference). With
    ``length``, the name of an answer feature of the verdicts (columns ``NAME_a, NAME_b``), the judges table
    ends with each judge's length preference (:func:`with_length_preference`); ``"auto"``: the feature
    ``length`` when the verdicts have it (the pipeline's choice), else none.
    """
    measures = judge_measures(verdicts, reference if reference is not None and len(reference) else None, level)
    if length == "auto":
        length = "length" if "length" in feature_names(verdicts) else None
    return measures if length is None else with_length_preference(measures, verdicts, length, level)


def with_length_preference(measures: JudgeMeasures, verdicts: pd.DataFrame, feature: str,
                           level: float = 0.95) -> JudgeMeasures:
    """Return ``measures`` with the judges' length columns joined to the judges table.

    The columns are :func:`~manyjudges.arena.length_preference.length_preference`'s on the feature
    ``feature`` (a ValueError lists the verdicts' features when they lack it).
    """
    check_features([feature], feature_names(verdicts))
    lengths = length_preference(verdicts, feature, level=level)
    return dataclasses.replace(measures, judges=measures.judges.merge(lengths, on="judge", how="left",
                                                                      validate="one_to_one"))


def arena_controlled(verdicts: pd.DataFrame, control: Sequence[str], dataset: str, seed: int, n_bootstrap: int = 1000,
                     resample: str = "verdicts", ci: float = 0.95, bothbad: str = "tie"
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the style-controlled ``bradley_terry`` leaderboard of ``verdicts`` and its coefficients table.

    ``control`` names answer features of the verdicts (columns ``NAME_a, NAME_b``;
    :mod:`manyjudges.arena.leaderboard.style`); the bootstrap's seed is :func:`bootstrap_seed` (``seed``, ``dataset``,
    ``"controlled"``). Returns (the leaderboard table, ``feature, coefficient, ci_low, ci_high``).
    """
    board = Leaderboard("bradley_terry", n_bootstrap=int(n_bootstrap), resample=resample, ci=float(ci),
                        seed=bootstrap_seed(seed, dataset, "controlled"), bothbad=bothbad, control=tuple(control))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board.fit(verdicts)
    for warning in caught:
        log.warning("controlled: %s", warning.message)
    assert board.coefficients_ is not None
    return board.table_, board.coefficients_


def arena_winrate(verdicts: pd.DataFrame, baseline: str, control: Sequence[str], dataset: str, seed: int,
                  n_bootstrap: int = 1000, ci: float = 0.95) -> pd.DataFrame:
    """Return each model's win rate against ``baseline``.

    They are :func:`~manyjudges.arena.winrate.baseline.baseline_win_rates`, length-controlled when
    ``control`` names the feature ``length`` (AlpacaEval 2.0's GLM takes the answers' length, no other
    feature); the prompt bootstrap's seed is :func:`bootstrap_seed` (``seed``, ``dataset``, ``"winrate"``).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = baseline_win_rates(verdicts, baseline, n_bootstrap=int(n_bootstrap), ci=float(ci),
                                   seed=bootstrap_seed(seed, dataset, "winrate"),
                                   control="length" if "length" in control else None)
    for warning in caught:
        log.warning("winrate: %s", warning.message)
    return table


def _unit_keys(verdicts: pd.DataFrame) -> pd.MultiIndex:
    """Each verdict's unit: (prompt, the pair's two models in code-point order)."""
    a, b = verdicts["model_a"].astype(str).to_numpy(), verdicts["model_b"].astype(str).to_numpy()
    return pd.MultiIndex.from_arrays([verdicts["prompt"].astype(str), np.where(a < b, a, b), np.where(a < b, b, a)])


def _human_share(reference: pd.DataFrame, share: float, dataset: str, seed: int,
                panel: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return the reference's verdicts on a seeded ``share`` of its units (prompt, unordered model pair).

    The units are the reference's, and the ``panel``'s too when it is given (a human unit must have LLM
    verdicts); ceil(share x units) of them, drawn without replacement from ``rng_for(seed, "arena",
    dataset, "human")`` among the units sorted by prompt and the pair's two models (code-point order);
    rows in their order.
    """
    keys = _unit_keys(reference)
    units = keys.unique() if panel is None else keys.unique().intersection(_unit_keys(panel).unique())
    units = units.sort_values()
    n = int(np.ceil(share * len(units)))
    chosen = units[np.sort(rng_for(seed, "arena", dataset, "human").choice(len(units), n, replace=False))]
    return reference[keys.isin(chosen)].reset_index(drop=True)


def arena_human(verdicts: pd.DataFrame, reference: pd.DataFrame, share: float, dataset: str, seed: int,
                n_bootstrap: int = 1000, ci: float = 0.95, bothbad: str = "tie") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the human-calibrated ``bradley_terry`` leaderboard and its summary.

    The panel's ``verdicts`` are the LLM verdicts; the reference's on a seeded ``share`` of the units both
    judged (:func:`_human_share`) the human ones
    (:class:`~manyjudges.arena.human.leaderboard.HumanCalibratedLeaderboard`,
    sandwich intervals, ``n_bootstrap`` normal draws for the ranks seeded by :func:`bootstrap_seed`
    (``seed``, ``dataset``, ``"human"``)).
    """
    human = _human_share(reference, share, dataset, seed, verdicts)
    board = HumanCalibratedLeaderboard(n_bootstrap=int(n_bootstrap), ci=float(ci),
                                       seed=bootstrap_seed(seed, dataset, "human"), bothbad=bothbad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board.fit(verdicts, human)
    for warning in caught:
        log.warning("human: %s", warning.message)
    return board.table_, board.summary_
