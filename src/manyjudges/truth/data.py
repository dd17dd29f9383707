"""A truth data set's labels and truth tables, by its config ``source``: simulated, a pinned benchmark
set, a graded crowd set with expert gold (the snow2008 affect tasks, trec_rf10), or a user's table."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.io.labels import read_labels, read_truth
from manyjudges.io.sources.snow2008 import parse_snow2008, snow2008_gold
from manyjudges.io.sources.trec_rf10 import trec_rf10_labels
from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark
from manyjudges.random_streams import rng_for
from manyjudges.truth.scenarios import DEFAULT_SCENARIO, SCENARIOS, scenario_options
from manyjudges.truth.simulate import simulate_labels

__all__ = ["SIMULATION_OPTIONS", "SOURCES", "truth_tables"]

#: the config ``source`` values
SOURCES = ("simulate", "truth_benchmark", "snow2008", "trec_rf10", "labels_table")
#: the keys of a ``simulate`` entry passed to :func:`~manyjudges.truth.simulate.simulate_labels`
SIMULATION_OPTIONS = ("n_items", "n_workers", "labels_per_item", "n_classes", "worker_mix", "good_accuracy", "bias",
                      "ordinal")


def truth_tables(name: str, spec: Mapping[str, Any], files: Sequence[str | os.PathLike[str]],
                 seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(labels ``item, worker, label``, truth ``item, truth``) of the data set ``name`` with config entry
    ``spec`` and input ``files`` (the pinned files of its source; none for ``simulate`` and
    ``labels_table``, which name their own). ``simulate`` draws from the stream (seed, "truth", name),
    with the generator its ``scenario`` names (:mod:`manyjudges.truth.scenarios`; default simulate_labels);
    a user's table without ``truth`` gets an empty truth table."""
    source = spec["source"]
    if source == "simulate":  # ``scenario``: a generator of manyjudges.truth.scenarios, else simulate_labels
        scenario = spec.get("scenario", DEFAULT_SCENARIO)
        options = scenario_options(scenario, spec)  # an unknown scenario, another one's option: a ValueError
        if scenario != DEFAULT_SCENARIO:
            return SCENARIOS[scenario](rng_for(seed, "truth", name), **options)
        options = {k: spec[k] for k in SIMULATION_OPTIONS if k in spec}
        labels, truth, _ = simulate_labels(rng_for(seed, "truth", name), **options)
        return labels, truth
    if source == "truth_benchmark":
        named = {Path(p).name: p for p in files}
        data = parse_truth_benchmark(named["label.csv"], named["truth.csv"])
        return data.labels, data.truth
    if source == "snow2008":  # the workers' binned ratings, the expert gold binned alike
        path = files[0]
        labels = parse_snow2008(path, spec["task"]).grades.rename(columns={"judge": "worker"})
        return labels, snow2008_gold(path, spec["task"])
    if source == "trec_rf10":  # the crowd's 0/1/2 relevance labels, NIST's as truth
        return trec_rf10_labels(files[0])
    if source == "labels_table":
        labels = read_labels(spec["path"], classes=spec.get("classes"), duplicates=spec.get("duplicates", "error"))
        if not spec.get("truth"):
            return labels, pd.DataFrame({"item": pd.Series(dtype=str), "truth": pd.Series(dtype=str)})
        return labels, read_truth(spec["truth"], labels=labels, classes=spec.get("classes"),
                                  strict=spec.get("strict", False))
    raise ValueError(f"unknown truth source {source!r}; known: {', '.join(SOURCES)}")
