"""The truth-inference papers' accuracies in paper_values.tsv: parsed, keyed by pinned datasets, one row per cell."""

from __future__ import annotations

from manyjudges.pipeline.download import _pinned_files
from manyjudges.reporting.paper_values import paper_lookup, paper_values


def test_truth_accuracies_parse_and_name_pinned_sets() -> None:
    for paper, methods, cells in (("li2019", {"ebcc", "ibcc", "bwa"}, 15), ("ustalov2024", None, 13)):
        rows = paper_values(paper)
        assert len(rows) == cells
        assert set(rows["table"]) == {"accuracy"} and set(rows["statistic"]) == {"accuracy"}
        values = paper_lookup(rows, "accuracy", ["dataset", "method"])
        assert len(values) == cells  # no (dataset, method) twice
        assert all(0.5 < v < 1 for v in values.values())
        for dataset in {d for d, _ in values}:
            assert set(_pinned_files(dataset)["repo_path"].str.rsplit("/", n=1).str[1]) == {"label.csv", "truth.csv"}
        if methods is not None:
            assert {m for _, m in values} == methods
            assert {d for d, _ in values} == {"truth_product", "truth_senti", "truth_rte", "truth_dog", "truth_trec"}
    crowd_kit = paper_lookup(paper_values("ustalov2024"), "accuracy", ["dataset", "method"])
    assert {d for d, _ in crowd_kit} == {"truth_product", "truth_senti"}
    assert ("truth_product", "mmsr") not in crowd_kit  # not run on D_Product in the paper
