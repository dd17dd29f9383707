"""The crowd Readings row (CrowdAgg's eq. 6) recomputed from the paper's table rows directly."""
import pandas as pd
import pytest

from manyjudges.crowd.readings import _crowd_readings
from manyjudges.reporting.paper_values import paper_values


def test_crowdagg_pairwise_reading_compares_every_metric_with_the_papers(tmp_path):
    paper = paper_values("niu2015")
    t2 = paper[(paper["table"] == "2") & (paper["dataset"] == "cs_trec2011") & (paper["method"] == "crowdagg_ndcg")]
    want = dict(zip(t2["metric"], t2["paper_value"].astype(float)))
    metrics = ["P@3", "P@5", "MAP"]
    assert all(m in want for m in metrics)
    rows = [("crowdagg_ndcg", m, 0.5) for m in metrics] + [("crowdagg_ndcg_literal", m, 0.7) for m in metrics]
    rows.append(("crowdagg_ndcg", "not_in_paper", 0.1))
    path = tmp_path / "ranking_metrics.tsv"
    pd.DataFrame(rows, columns=["method", "metric", "value"]).to_csv(path, sep="\t", index=False)
    methods = {"crowdagg_ndcg": {}, "crowdagg_ndcg_literal": {"method": "crowdagg_ndcg",
                                                              "params": {"pairwise": "paper_literal"}}}
    (row,) = _crowd_readings("trec", "real public data", "trec_rf10", path, methods, paper)
    assert list(row.distances) == ["margin", "paper_literal"] and row.cells == 3
    assert row.distances["margin"] == pytest.approx(sum(abs(0.5 - want[m]) for m in metrics) / 3)
    assert row.distances["paper_literal"] == pytest.approx(sum(abs(0.7 - want[m]) for m in metrics) / 3)


def test_no_reading_on_a_dataset_the_paper_does_not_have(tmp_path):
    path = tmp_path / "ranking_metrics.tsv"
    pd.DataFrame({"method": ["crowdagg_ndcg"], "metric": ["P@3"], "value": [0.5]}).to_csv(path, sep="\t", index=False)
    methods = {"crowdagg_ndcg": {}, "x": {"method": "crowdagg_ndcg", "params": {"pairwise": "paper_literal"}}}
    assert _crowd_readings("sim", "simulated", "simulate", path, methods, paper_values("niu2015")) == []


def test_relevance_reading_compares_binary_metrics_at_each_threshold(tmp_path):
    from manyjudges.crowd.readings import _relevance_readings

    paper = paper_values("niu2015")
    t2 = paper[(paper["table"] == "2") & (paper["dataset"] == "cs_trec2011") & (paper["method"] == "mpm")]
    want = dict(zip(t2["metric"], t2["paper_value"].astype(float)))
    rows = [(g, "mpm_entry", m, v) for g, v in ((1, 0.4), (2, 0.2)) for m in ("P@5", "MAP", "NDCG@5")]
    path = tmp_path / "ranking_metrics_by_relevance.tsv"
    pd.DataFrame(rows, columns=["relevant_grade", "method", "metric", "value"]).to_csv(path, sep="\t", index=False)
    (row,) = _relevance_readings("trec", "real public data", "trec_rf10", path, 2, {"mpm_entry": {"method": "mpm"}},
                                paper)
    assert list(row.distances) == ["grade >= 2", "grade >= 1"] and row.default == "grade >= 2"
    assert row.cells == 2  # NDCG does not depend on the threshold: left out
    assert row.distances["grade >= 1"] == pytest.approx((abs(0.4 - want["P@5"]) + abs(0.4 - want["MAP"])) / 2)
    assert row.distances["grade >= 2"] == pytest.approx((abs(0.2 - want["P@5"]) + abs(0.2 - want["MAP"])) / 2)


def test_metrics_by_relevance_counts_grades_at_or_above_each_threshold():
    from manyjudges.crowd.data import CrowdDataset
    from manyjudges.crowd.experiment import metrics_by_relevance, relevance_thresholds

    dataset = CrowdDataset(topics={}, truth={"t": {"a": 2, "b": 1, "c": 0}})
    rankings = pd.DataFrame({"method": "m", "topic": "t", "item": ["b", "a", "c"], "rank": [1, 2, 3]})
    assert relevance_thresholds(dataset) == [1, 2]
    table = metrics_by_relevance(rankings, dataset, ["m"], ks=(1, 2))
    p1 = table[table["metric"] == "P@1"].set_index("relevant_grade")["value"]
    assert p1[1] == 1.0 and p1[2] == 0.0  # b (grade 1) first: relevant only at threshold 1
    ndcg = table[table["metric"] == "NDCG@2"]["value"]
    assert ndcg.nunique() == 1
