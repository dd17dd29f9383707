"""A truth data set's labels and truth tables, by its config ``source``.

The source is simulated, a pinned benchmark set, a crowd set with expert gold (the snow2008 tasks,
trec_rf10), a panel of LLM judges with a human truth (llmjudge, prd, pandalm), or a user's table; then the
panel is kept to the config's ``judges``.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.core.random_streams import rng_for
from manyjudges.io.sources.llmjudge import parse_llmjudge
from manyjudges.io.sources.pandalm import parse_pandalm
from manyjudges.io.sources.prd import parse_prd
from manyjudges.io.sources.snow2008 import parse_snow2008, snow2008_gold
from manyjudges.io.sources.trec_rf10 import trec_rf10_labels
from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark
from manyjudges.io.tables.labels import read_labels, read_truth
from manyjudges.truth.scenarios import _SCENARIOS, DEFAULT_SCENARIO, scenario_options
from manyjudges.truth.simulate import simulate_labels

_log = logging.getLogger(__name__)

__all__ = ["SIMULATION_OPTIONS", "SOURCES", "keep_judges", "truth_tables"]

#: the config ``source`` values
SOURCES = ("simulate", "truth_benchmark", "snow2008", "trec_rf10", "llmjudge", "prd", "pandalm", "labels_table")
#: the keys of a ``simulate`` entry passed to :func:`~manyjudges.truth.simulate.simulate_labels`
SIMULATION_OPTIONS = ("n_items", "n_judges", "labels_per_item", "n_classes", "judge_mix", "good_accuracy", "bias",
                      "ordinal")


def truth_tables(name: str, spec: Mapping[str, Any], files: Sequence[str | os.PathLike[str]],
                 seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(labels ``item, judge, label``, truth ``item, truth``) of the data set ``name``.

    Its config entry is ``spec``, its input ``files`` (the pinned files of its source; none for ``simulate``
    and ``labels_table``, which name their own). ``simulate`` draws from the stream (seed, "truth", name),
    with the generator its ``scenario`` names (:mod:`manyjudges.truth.scenarios`; default simulate_labels);
    a user's table without ``truth`` gets an empty truth table. With ``judges`` (name patterns), only
    the labels of the judges they match are kept (:func:`keep_judges`).
    """
    labels, truth = _source_tables(name, spec, files, seed)
    if spec.get("judges"):
        labels, truth = keep_judges(labels, truth, spec["judges"])
    return labels, truth


def keep_judges(labels: pd.DataFrame, truth: pd.DataFrame,
                 patterns: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Keep the labels of the judges whose name matches one of the shell-style ``patterns``.

    Patterns are matched by ``fnmatch``, case-sensitive, e.g. ``"TREMA-*"``, ``"*:ab"``; the truth of the items
    they still label is kept too. A pattern that matches no judge is a ValueError naming it and the judges there are.
    """
    judges = labels["judge"].astype(str).unique()
    matched = {p: [w for w in judges if fnmatchcase(w, p)] for p in patterns}
    empty = [p for p, ws in matched.items() if not ws]
    if empty:
        raise ValueError(f"judges patterns {empty} match no judge; judges: {sorted(judges)}")
    kept = labels[labels["judge"].isin({w for ws in matched.values() for w in ws})].reset_index(drop=True)
    return kept, truth[truth["item"].isin(set(kept["item"]))].reset_index(drop=True)


def _source_tables(name: str, spec: Mapping[str, Any], files: Sequence[str | os.PathLike[str]],
                   seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`truth_tables` before the ``judges`` filter."""
    source = spec["source"]
    if source == "simulate":  # ``scenario``: a generator of manyjudges.truth.scenarios, else simulate_labels
        scenario = spec.get("scenario", DEFAULT_SCENARIO)
        options = scenario_options(scenario, spec)  # an unknown scenario, another one's option: a ValueError
        if scenario != DEFAULT_SCENARIO:
            return _SCENARIOS[scenario](rng_for(seed, "truth", name), **options)
        options = {k: spec[k] for k in SIMULATION_OPTIONS if k in spec}
        labels, truth, _ = simulate_labels(rng_for(seed, "truth", name), **options)
        return labels, truth
    if source == "truth_benchmark":
        named = {Path(p).name: p for p in files}
        data = parse_truth_benchmark(named["label.csv"], named["truth.csv"])
        return data.labels, data.truth
    if source == "snow2008":  # the judges' binned ratings, the expert gold binned alike
        path = files[0]
        labels = parse_snow2008(path, spec["task"]).grades
        return labels, snow2008_gold(path, spec["task"])
    if source == "trec_rf10":  # the crowd's 0/1/2 relevance labels, NIST's as truth
        return trec_rf10_labels(files[0])
    if source in ("llmjudge", "prd", "pandalm"):  # LLM judges' verdicts, a human truth
        panel = (parse_llmjudge(files) if source == "llmjudge" else parse_prd(files) if source == "prd"
                 else parse_pandalm(files, spec.get("humans", ())))
        for rule, count in panel.dropped.items():
            if count:
                _log.warning("%s: %d %s dropped", name, count, rule.replace("_", " "))
        return panel.labels, panel.truth
    if source == "labels_table":
        labels = read_labels(spec["path"], classes=spec.get("classes"), duplicates=spec.get("duplicates", "error"))
        if not spec.get("truth"):
            return labels, pd.DataFrame({"item": pd.Series(dtype=str), "truth": pd.Series(dtype=str)})
        return labels, read_truth(spec["truth"], labels=labels, classes=spec.get("classes"),
                                  strict=spec.get("strict", False))
    raise ValueError(f"unknown truth source {source!r}; known: {', '.join(SOURCES)}")
