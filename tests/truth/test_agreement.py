"""Krippendorff's alpha and the labels summary, against the krippendorff package and Krippendorff's own example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth.agreement import _krippendorff_alpha, coincidence_matrix, summarise_labels

krippendorff = pytest.importorskip("krippendorff")

NAN = np.nan
#: Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers (rows) x 12 units
EXAMPLE = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
])


def long_table(matrix: np.ndarray, names: list | None = None) -> pd.DataFrame:
    """The judge x item matrix (NaN = no label) as a long table; ``names`` maps codes to labels."""
    judge, item = np.nonzero(~np.isnan(matrix))
    codes = matrix[judge, item].astype(int)
    label = codes if names is None else np.asarray(names, dtype=object)[codes]
    return pd.DataFrame({"item": [f"u{i:02d}" for i in item], "judge": [f"w{w}" for w in judge], "label": label})


def random_panel(seed: int) -> np.ndarray:
    """Judges x items class codes, NaN where missing: noisy copies of a hidden class per item."""
    rng = np.random.default_rng(seed)
    n_judges, n_items, k = rng.integers(3, 9), rng.integers(5, 31), rng.integers(2, 6)
    truth = rng.integers(0, k, n_items)
    noisy = rng.random((n_judges, n_items)) < rng.uniform(0.2, 0.7)
    codes = np.where(noisy, rng.integers(0, k, (n_judges, n_items)), truth[None, :]).astype(float)
    codes[rng.random((n_judges, n_items)) < rng.uniform(0.1, 0.6)] = NAN
    return codes


def test_krippendorffs_example() -> None:
    table = long_table(EXAMPLE)
    assert round(_krippendorff_alpha(table, "nominal"), 3) == 0.743
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=EXAMPLE, level_of_measurement=level)
        assert _krippendorff_alpha(table, level) == pytest.approx(expected, abs=1e-12)


def test_coincidence_marginals_are_the_pairable_values() -> None:
    o = coincidence_matrix(long_table(EXAMPLE))
    assert np.allclose(o, o.T)
    pairable = (~np.isnan(EXAMPLE)).sum(axis=0) >= 2
    values = EXAMPLE[:, pairable]
    counts = [int((values == c).sum()) for c in range(6)]  # classes 0..5 (0 unused)
    assert np.allclose(o.sum(axis=1), counts)
    assert o.sum() == pytest.approx(40)  # 41 values, one in a unit of its own


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_random_panels_match_the_package(seed: int, level: str) -> None:
    panel = random_panel(seed)
    expected = krippendorff.alpha(reliability_data=panel, level_of_measurement=level)
    assert _krippendorff_alpha(long_table(panel), level) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_named_classes_use_their_declared_order(level: str) -> None:
    panel = random_panel(11)
    names = ["low", "mid", "high", "top", "max"]
    crowd = as_crowd_labels(long_table(panel, names), classes=names)
    expected = krippendorff.alpha(reliability_data=panel, level_of_measurement=level)  # ranks = codes
    assert _krippendorff_alpha(crowd, level) == pytest.approx(expected, abs=1e-10)


def test_interval_uses_numeric_class_values() -> None:
    panel = random_panel(3)
    values = np.array([1.0, 2.0, 5.0, 11.0, 12.0])
    table = long_table(panel, list(values[: int(np.nanmax(panel)) + 1].astype(int)))
    crowd = as_crowd_labels(table, classes=list(values.astype(int)))
    mapped = np.where(np.isnan(panel), NAN, values[np.nan_to_num(panel).astype(int)])
    expected = krippendorff.alpha(reliability_data=mapped, level_of_measurement="interval")
    assert _krippendorff_alpha(crowd, "interval") == pytest.approx(expected, abs=1e-10)


def test_edge_cases() -> None:
    perfect = long_table(np.array([[0, 1, 2, 1], [0, 1, 2, 1], [0, 1, NAN, 1]]))
    assert _krippendorff_alpha(perfect) == 1.0
    one_class = long_table(np.array([[1, 1, 1], [1, 1, NAN]]))
    assert np.isnan(_krippendorff_alpha(one_class))
    unpairable = long_table(np.array([[0, NAN, 1], [NAN, 1, NAN]]))
    assert np.isnan(_krippendorff_alpha(unpairable))
    with pytest.raises(ValueError, match="level must be one of"):
        _krippendorff_alpha(perfect, "ratio")


def test_summary_against_pandas() -> None:
    table = pd.DataFrame({
        "item": ["a", "a", "a", "b", "b", "c", "d", "d"],
        "judge": ["w1", "w2", "w1", "w1", "w3", "w2", "w2", "w3"],
        "label": [0, 1, 0, 2, 2, 1, 0, 0],
    })
    crowd = as_crowd_labels(table, duplicates="keep")
    summary = summarise_labels(crowd, ordinal=True)
    per_item = table.groupby("item").size()
    judges_per_item = table.groupby("item")["judge"].nunique()
    per_judge = table.groupby("judge").size()
    expected = {"items": 4, "judges": 3, "labels": 8, "classes": 3, "pairable_items": int((per_item >= 2).sum())}
    for name, series in (("labels_per_item", per_item), ("judges_per_item", judges_per_item),
                         ("labels_per_judge", per_judge)):
        expected.update({f"{name}_mean": series.mean(), f"{name}_median": series.median(),
                         f"{name}_min": series.min(), f"{name}_max": series.max()})
    for key, value in expected.items():
        assert summary[key] == pytest.approx(value), key
    assert summary["alpha_nominal"] == pytest.approx(_krippendorff_alpha(crowd, "nominal"))
    assert summary["alpha_ordinal"] == pytest.approx(_krippendorff_alpha(crowd, "ordinal"))
    # each label is one value: w1's second label of item a counts as a fourth observer's (columns a, b, c, d)
    reshaped = np.array([[0, 2, NAN, NAN], [1, NAN, 1, 0], [NAN, 2, NAN, 0], [0, NAN, NAN, NAN]])
    assert summary["alpha_nominal"] == pytest.approx(
        krippendorff.alpha(reliability_data=reshaped, level_of_measurement="nominal"), abs=1e-12)
    assert "alpha_ordinal" not in summarise_labels(crowd, ordinal=False)


@pytest.mark.parametrize("dataset", ["truth_product", "truth_senti", "truth_rte", "truth_dog", "truth_trec"])
def test_benchmark_sets_nominal_alpha(mirror, dataset: str) -> None:
    from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = {p.rsplit("/", 1)[1]: _mirror_path(p, mirror) for p in _pinned_files(dataset)["repo_path"]}
    crowd = as_crowd_labels(parse_truth_benchmark(files["label.csv"], files["truth.csv"]).labels)
    matrix = np.full((crowd.n_judges, crowd.n_items), NAN)
    matrix[crowd.judge, crowd.item] = crowd.label
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert _krippendorff_alpha(crowd, "nominal") == pytest.approx(expected, abs=1e-10)
