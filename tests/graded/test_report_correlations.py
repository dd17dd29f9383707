"""The graded report's per-judge comparison with the paper (Pearson r, Kendall tau-b) and the
per-judge calibration line, checked against scipy on small tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from manyjudges.graded.report import _graded_markdown, paper_correlations
from manyjudges.reporting.paper_values import key_value, paper_lookup, paper_values

OURS = {"m1": [-100.0, -90.0, -95.0, -80.0, -85.0], "m4": [-70.0, -75.0, -72.0, -71.0, -90.0]}
PAPER = {"m1": [-101.0, -92.0, -93.0, -79.0, -86.0], "m4": [-60.0, -61.0, -62.0, -63.0, -64.0]}


def _loglik(values: dict[str, list[float]], protocol: str = "cross_induction", n_items: int = 5000) -> pd.DataFrame:
    n = len(next(iter(values.values())))
    rows = [{"judge": f"judge{j:02d}", "method": m, "protocol": protocol, "loglik": v[j], "n_items": n_items}
            for m, v in values.items() for j in range(n)]
    rows += [{"judge": f"judge{j:02d}", "method": "uniform", "protocol": protocol,
              "loglik": n_items * np.log(0.2), "n_items": n_items} for j in range(n)]
    return pd.DataFrame(rows)


def test_paper_correlations_match_scipy_and_numpy():
    paper = {("cross_induction", j, m, None, None, "loglik"): v[j] for m, v in PAPER.items() for j in range(5)}
    paper[("cross_induction", "Ave", "m1", None, None, "loglik")] = -90.0  # not a judge: left out
    table = paper_correlations(_loglik(OURS), "cross_induction", paper).set_index("method")
    assert list(table.index) == ["m1", "m4"]
    for m in ("m1", "m4"):
        ours, theirs = np.array(OURS[m]), np.array(PAPER[m])
        assert table.loc[m, "judges"] == 5
        assert table.loc[m, "pearson_r"] == pytest.approx(np.corrcoef(ours, theirs)[0, 1], abs=1e-12)
        assert table.loc[m, "pearson_r"] == pytest.approx(stats.pearsonr(ours, theirs)[0], abs=1e-12)
        assert table.loc[m, "kendall_tau_b"] == pytest.approx(stats.kendalltau(ours, theirs)[0], abs=1e-12)
    # by hand for m1: ours ranks judges 3 < 4 < 1 < 2 < 0 from best, the paper 3 < 4 < 1 < 2 < 0: tau 1
    assert table.loc["m1", "kendall_tau_b"] == pytest.approx(1.0)
    # m4 against a strictly falling paper row: a pair is concordant when ours falls too; of the 10
    # pairs of -70, -75, -72, -71, -90 only (-75, -72), (-75, -71), (-72, -71) rise
    assert table.loc["m4", "kendall_tau_b"] == pytest.approx((7 - 3) / 10)


def test_paper_correlations_need_three_judges_and_skip_other_protocols():
    paper = {("cross_induction", j, "m1", None, None, "loglik"): PAPER["m1"][j] for j in range(2)}
    assert paper_correlations(_loglik(OURS), "cross_induction", paper).empty
    assert paper_correlations(_loglik(OURS), "single_parameter", paper).empty


def _report(tmp_path, spec: dict, values: dict[str, list[float]]) -> str:
    loglik = _loglik(values)
    grades = pd.DataFrame({"item": ["a"] * 13, "judge": [f"judge{j:02d}" for j in range(13)]})
    tables = {
        "loglik": loglik,
        "pairwise": pd.DataFrame(columns=["judge", "method_a", "method_b", "protocol", "a_better", "b_better",
                                          "ties", "p_value"]),
        "parameters": pd.DataFrame(columns=["method", "protocol", "parameter", "mean", "min", "max", "judges",
                                            "judges_at_bound"]),
        "grades": grades,
    }
    paths = {}
    for name, table in tables.items():
        paths[name] = tmp_path / f"{name}.tsv"
        table.to_csv(paths[name], sep="\t", index=False)
    return _graded_markdown({"sim": paths}, {"sim": spec}, paper_values("wilbur2011"))


def test_report_states_the_calibration_gap_and_the_correlations(tmp_path):
    paper = paper_values("wilbur2011")
    lut = paper_lookup(paper, "2", ("protocol", "judge", "method"), key=key_value)
    m1 = np.array([lut[("cross_induction", j, "m1")] for j in range(13)])
    m5 = np.array([lut[("cross_induction", j, "m5")] for j in range(13)])
    offsets = np.array([0.5, -0.25, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, -1.0, 0])
    ours_m5 = m5[::-1].copy()
    report = _report(tmp_path, {"source": "simulate", "target_m1_by_judge": "wilbur2011_table2",
                                "calibration_tolerance": 0.0002},
                     {"m1": list(m1 + offsets), "m5": list(ours_m5)})
    assert "the paper's Table 2 M1 value for that judge" in report
    assert "tolerance 0.0002 x |target|" in report
    rel = np.abs(offsets) / np.abs(m1)
    assert f"reached within 1.50 nats for every judge (largest relative gap {rel.max():.2g}, judge02)" in report
    r = stats.pearsonr(ours_m5, m5)[0]
    tau = stats.kendalltau(ours_m5, m5)[0]
    assert f"| m5 | 13 | {r:.3f} | {tau:.3f} |" in report
    assert "| m1 | 13 | 1.000 | 1.000 |" in report
    assert "calibrated to the paper's values, so its correlation is near 1 by construction" in report


def test_report_without_per_judge_calibration_keeps_the_old_line(tmp_path):
    report = _report(tmp_path, {"source": "simulate", "target_m1_ave": -7433}, {"m1": [-7000.0] * 13})
    assert "noise calibrated so M1's cross-induction average is -7433 per 5000 labels" in report
    assert "correlation is near 1 by construction" not in report
    assert "| m1 | 13 | n/a | n/a |" in report  # constant values: no correlation defined
    report = _report(tmp_path, {"source": "table"}, {"m1": [-7000.0] * 13})
    assert "Per-judge agreement with the paper" not in report
