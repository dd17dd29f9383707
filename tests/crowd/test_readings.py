"""The crowd Readings row (CrowdAgg's eq. 6) recomputed from the paper's table rows directly."""
import pandas as pd
import pytest

from manyjudges.crowd.readings import crowd_readings
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
    (row,) = crowd_readings("trec", "real public data", "trec_rf10", path, methods, paper)
    assert list(row.distances) == ["margin", "paper_literal"] and row.cells == 3
    assert row.distances["margin"] == pytest.approx(sum(abs(0.5 - want[m]) for m in metrics) / 3)
    assert row.distances["paper_literal"] == pytest.approx(sum(abs(0.7 - want[m]) for m in metrics) / 3)


def test_no_reading_on_a_dataset_the_paper_does_not_have(tmp_path):
    path = tmp_path / "ranking_metrics.tsv"
    pd.DataFrame({"method": ["crowdagg_ndcg"], "metric": ["P@3"], "value": [0.5]}).to_csv(path, sep="\t", index=False)
    methods = {"crowdagg_ndcg": {}, "x": {"method": "crowdagg_ndcg", "params": {"pairwise": "paper_literal"}}}
    assert crowd_readings("sim", "simulated", "simulate", path, methods, paper_values("niu2015")) == []
