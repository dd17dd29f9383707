"""Same judgments, same numbers: every truth method, ``auto`` included, gives the same posteriors for any row
order of the table (the fits run on the labels sorted by code, :func:`manyjudges.core.coded_labels.canonical_order`),
on simulated panels and on the five benchmark sets of the data mirror, each shuffled three ways."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels, canonical_order
from manyjudges.core.random_streams import rng_for
from manyjudges.truth import TRUTH_METHODS, make_truth_estimator
from manyjudges.truth.simulate import simulate_labels

METHODS = sorted(TRUTH_METHODS)
BENCHMARK_SETS = ["truth_product", "truth_senti", "truth_rte", "truth_dog", "truth_trec"]
#: the slow methods are fitted on the smaller benchmark sets only, shuffled once (the sorted codes are checked
#: equal under three shuffles on every set, and a fit is a function of them)
SLOW = {"glad", "mace", "mace_em", "ebcc", "ordinal_dawid_skene"}
SMALL_SETS = {"truth_rte", "truth_dog"}


def shuffles(labels: pd.DataFrame, n: int = 3):
    for seed in range(n):
        yield labels.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def assert_same_fit(name: str, labels: pd.DataFrame, n_shuffles: int = 3, **fit_kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = make_truth_estimator(name).fit(labels, **fit_kwargs)
        for shuffled in shuffles(labels, n_shuffles):
            other = make_truth_estimator(name).fit(shuffled, **fit_kwargs)
            np.testing.assert_allclose(other.proba_.to_numpy(), first.proba_.to_numpy(), rtol=0, atol=1e-6)
            assert other.labels_.equals(first.labels_)
            if first.skills_ is not None:
                np.testing.assert_allclose(other.skills_.to_numpy(), first.skills_.to_numpy(), rtol=0, atol=1e-6)


def test_canonical_order_sorts_by_item_judge_label_and_keeps_a_sorted_table():
    labels = pd.DataFrame({"item": ["b", "a", "b", "a", "a"], "judge": ["x", "y", "x", "x", "x"],
                           "label": [1, 0, 0, 1, 0]})
    data = canonical_order(as_crowd_labels(labels, duplicates="keep"))
    rows = list(zip(data.items[data.item], data.judges[data.judge], data.classes[data.label]))
    assert rows == sorted(zip(labels["item"], labels["judge"], labels["label"]))
    assert canonical_order(data) is data  # already sorted: no copy


@pytest.mark.parametrize("name", METHODS)
def test_every_method_any_row_order_simulated(name: str) -> None:
    labels, _, _ = simulate_labels(rng_for(0, "test", "row order"), n_items=150, n_judges=12, labels_per_item=4,
                                   n_classes=3, judge_mix={"good": 0.7, "random": 0.15, "biased": 0.15})
    assert_same_fit(name, labels)


def test_gold_any_row_order() -> None:
    labels, truth, _ = simulate_labels(rng_for(0, "test", "row order gold"), n_items=150, n_judges=12,
                                       labels_per_item=4, n_classes=3)
    assert_same_fit("auto", labels, gold=truth.iloc[::10])
    assert_same_fit("dawid_skene", labels, gold=truth.iloc[::10])


@pytest.mark.parametrize("dataset", BENCHMARK_SETS)
def test_benchmark_sets_any_row_order(mirror, dataset: str) -> None:
    from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = {p.rsplit("/", 1)[1]: _mirror_path(p, mirror) for p in _pinned_files(dataset)["repo_path"]}
    labels = parse_truth_benchmark(files["label.csv"], files["truth.csv"]).labels
    reference = canonical_order(as_crowd_labels(labels, duplicates="first"))
    for shuffled in shuffles(labels):  # the sorted codes are the same arrays, whatever the row order
        data = canonical_order(as_crowd_labels(shuffled, duplicates="first"))
        for field in ("item", "judge", "label"):
            np.testing.assert_array_equal(getattr(data, field), getattr(reference, field))
    for name in METHODS:
        if name in SLOW and dataset not in SMALL_SETS:
            continue
        assert_same_fit(name, labels, n_shuffles=1 if name in SLOW else 3, duplicates="first")
