"""The graded Readings row (M4's predictive) recomputed from the paper's table rows directly."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.graded.readings import _graded_readings
from manyjudges.reporting.paper_values import paper_values


def _paper(table: str, protocol: str, judge: int, method: str) -> float:
    p = paper_values("wilbur2011")
    row = p[(p["table"] == table) & (p["protocol"] == protocol) & (p["judge"] == judge) & (p["method"] == method)]
    return float(row["paper_value"].iloc[0])


def test_m4_predictive_reading_compares_each_entry_judge_by_judge(tmp_path):
    rows = [("judge00", "m4", "cross_induction", -8400.0), ("judge01", "m4", "cross_induction", -7000.0),
            ("judge00", "m4", "single_parameter", -8500.0),
            ("judge00", "m4_discrete", "cross_induction", -8600.0),
            ("judge01", "m4_discrete", "cross_induction", -6900.0),
            ("judge00", "m4_discrete", "single_parameter", -8300.0), ("judge00", "m1", "cross_induction", -1.0)]
    path = tmp_path / "loglik_by_judge.tsv"
    pd.DataFrame(rows, columns=["judge", "method", "protocol", "loglik"]).assign(n_items=5000).to_csv(
        path, sep="\t", index=False)
    methods = {"m1": {}, "m4": {}, "m4_discrete": {"method": "m4", "params": {"predictive": "discrete"}}}
    (row,) = _graded_readings("sim", "simulated", path, methods, paper_values("wilbur2011"))
    paper = [_paper("2", "cross_induction", 0, "m4"), _paper("2", "cross_induction", 1, "m4"),
             _paper("3", "single_parameter", 0, "m4")]
    ours = {"binned": [-8400.0, -7000.0, -8500.0], "discrete": [-8600.0, -6900.0, -8300.0]}
    assert list(row.distances) == ["binned", "discrete"] and row.default == "binned" and row.cells == 3
    for option, values in ours.items():
        assert row.distances[option] == pytest.approx(sum(abs(a - b) for a, b in zip(values, paper)) / 3)


def test_no_reading_without_two_entries(tmp_path):
    path = tmp_path / "loglik_by_judge.tsv"
    pd.DataFrame({"judge": ["judge00"], "method": ["m4"], "protocol": ["cross_induction"], "loglik": [-1.0],
                  "n_items": [1]}).to_csv(path, sep="\t", index=False)
    assert _graded_readings("sim", "simulated", path, {"m4": {}}, paper_values("wilbur2011")) == []


def test_lambda_scale_reading_measures_orders_of_magnitude(tmp_path):
    from manyjudges.graded.readings import _lambda_scale_reading

    params = tmp_path / "parameters.tsv"
    pd.DataFrame({"method": ["m5", "m5"], "protocol": ["single_parameter", "cross_induction"],
                  "parameter": ["lambda", "lambda"], "mean": [0.01, 0.5], "min": [0.01, 0.4], "max": [0.01, 0.6],
                  "judges": [4, 4], "judges_at_bound": [0, 0]}).to_csv(params, sep="\t", index=False)
    grades = tmp_path / "grades.tsv"  # 4 judges x 50 items: N = 200 x 3 / 4 = 150 instances per fit
    pd.DataFrame({"item": np.repeat(np.arange(50), 4), "judge": np.tile(["a", "b", "c", "d"], 50),
                  "label": 0}).to_csv(grades, sep="\t", index=False)
    paper = pd.DataFrame({"table": ["1"], "method": ["m5"], "paper_value": [0.1]})
    (reading,) = _lambda_scale_reading("d", "simulated", params, grades, paper)
    assert reading.distances["mean"] == pytest.approx(1.0)  # |log10(0.01 / 0.1)|
    assert reading.distances["sum"] == pytest.approx(abs(np.log10(0.01 * 150 / 0.1)))
    assert reading.default == "mean" and reading.closest() == "mean"
