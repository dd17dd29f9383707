"""One arena dataset as two verdicts tables: the panel's verdicts and the reference's.

A dataset of the ``arena`` config section is a pinned published set (``llmfao``, ``prd``, ``pandalm``:
:func:`manyjudges.io.sources.verdict_sources.verdicts_of_source` of its files), a simulated arena
(``simulate``: :func:`manyjudges.arena.simulate.simulate_arena`) or a table of the user's own
(``verdicts_table``: a verdicts or preferences table at ``path``,
:func:`manyjudges.io.tables.verdicts.read_verdicts_or_preferences`). Its ``reference`` patterns
pick the judges whose votes are the reference (PRD's human votes, PandaLM's annotators); its ``judges``
patterns pick the panel (default: every judge the reference does not take). Patterns are shell-style
(``fnmatch``, case-sensitive: ``human-*``, ``gpt4``), one string or a list.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.arena.simulate import SIMULATION_OPTIONS, simulate_arena
from manyjudges.core.random_streams import rng_for
from manyjudges.io.sources.verdict_sources import VERDICT_SOURCES, verdicts_of_source
from manyjudges.io.tables.verdicts import read_verdicts, read_verdicts_or_preferences

__all__ = ["SOURCES", "arena_tables", "read_reference", "split_panel"]

#: the config ``source`` values: ``simulate``, the pinned verdict sets and a table of the user's own
SOURCES = ("simulate", *VERDICT_SOURCES, "verdicts_table")


def _patterns_of(value: str | Sequence[str] | None) -> list[str]:
    """Return the patterns of a ``judges`` or ``reference`` entry: one string, a list, or none."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _judges_matching(judges: Sequence[str], patterns: Sequence[str], key: str) -> list[str]:
    """Return the judges (in the given order) that match one of ``patterns``.

    A pattern that matches none is a ValueError naming ``key``, the pattern and (up to 20 of) the
    judges there are.
    """
    matched = {p: {j for j in judges if fnmatchcase(j, p)} for p in patterns}
    empty = [p for p, js in matched.items() if not js]
    if empty:
        shown = ", ".join(sorted(judges)[:20]) + (", ..." if len(judges) > 20 else "")
        raise ValueError(f"{key}: patterns {empty} match no judge; judges: {shown}")
    hit = set().union(*matched.values()) if matched else set()
    return [j for j in judges if j in hit]


def split_panel(verdicts: pd.DataFrame, judges: str | Sequence[str] | None = None,
                reference: str | Sequence[str] | None = None,
                where: str = "dataset") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``verdicts`` into (the panel's verdicts, the reference's verdicts), rows in their order.

    The reference is the verdicts of the judges ``reference`` matches (none without it); the panel those
    of the judges ``judges`` matches, by default every judge the reference does not take. A judge in
    both, a pattern that matches no judge, or an empty panel is a ValueError naming ``where``.
    """
    names = list(pd.unique(verdicts["judge"].astype(str)))
    ref = _judges_matching(names, _patterns_of(reference), f"{where}.reference")
    if judges is None:
        panel = [j for j in names if j not in set(ref)]
    else:
        panel = _judges_matching(names, _patterns_of(judges), f"{where}.judges")
    both = sorted(set(panel) & set(ref))
    if both:
        raise ValueError(f"{where}: judges {both[:10]} are both in judges and in reference; a judge is graded "
                         "against the reference, so it cannot be part of it")
    if not panel:
        raise ValueError(f"{where}: no judge is left for the panel (judges: {', '.join(names[:20])})")
    judge = verdicts["judge"].astype(str).to_numpy()
    in_panel, in_ref = np.isin(judge, panel), np.isin(judge, ref)
    return verdicts[in_panel].reset_index(drop=True), verdicts[in_ref].reset_index(drop=True)


def arena_tables(name: str, spec: Mapping[str, Any], files: Sequence[str | os.PathLike[str]],
                 seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (panel verdicts, reference verdicts) of the arena dataset ``name``.

    The dataset has config entry ``spec`` and input ``files`` (its pinned files; its table for
    ``verdicts_table``; none for ``simulate``, which draws from the stream ``rng_for(seed, "arena",
    name)``), split by :func:`split_panel`.
    """
    source = spec["source"]
    if source == "simulate":
        options = {k: spec[k] for k in SIMULATION_OPTIONS if spec.get(k) is not None}
        verdicts = simulate_arena(rng_for(seed, "arena", name), panel=spec["panel"], **options).verdicts
    elif source in VERDICT_SOURCES:
        verdicts = verdicts_of_source(source, files)
    elif source == "verdicts_table":
        verdicts = read_verdicts_or_preferences(files[0])
    else:
        raise ValueError(f"arena.datasets.{name}: unknown source {source!r}; known: {', '.join(SOURCES)}")
    return split_panel(verdicts, spec.get("judges"), spec.get("reference"), where=f"arena.datasets.{name}")


def read_reference(path: str | os.PathLike[str]) -> pd.DataFrame | None:
    """Return the reference's verdicts table at ``path`` (:func:`~manyjudges.io.tables.verdicts.read_verdicts`).

    None when the file holds its header and no row (a dataset without a reference).
    """
    with open(path, encoding="utf-8") as text:
        text.readline()
        if not any(line.strip() for line in text):
            return None
    return read_verdicts(path)
