"""The simulated ordering panel's calibration line: computed from the orderings and Table 1 at noise 0."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from manyjudges.orderings.report import _orderings_markdown, calibration_markdown
from manyjudges.reporting.paper_values import paper_values

#: two sets: 3 judges over 4 items, 2 judges over 3 items (rank 1 = best)
RANKS = {"s1": [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]], "s2": [[1, 2, 3], [3, 2, 1]]}


def _orderings() -> pd.DataFrame:
    rows = [(s, f"j{j}", str(i + 1), r) for s, judges in RANKS.items() for j, ranks in enumerate(judges)
            for i, r in enumerate(ranks)]
    return pd.DataFrame(rows, columns=["set_id", "judge", "item", "rank"])


def _mean_pairwise(fn) -> float:
    per_set = []
    for judges in RANKS.values():
        pairs = [fn(a, b)[0] for i, a in enumerate(judges) for b in judges[i + 1:]]
        per_set.append(np.mean(pairs))
    return float(np.mean(per_set))


def test_calibration_line_is_computed_from_the_tables():
    paper = paper_values("kim2010")
    p0 = paper[(paper["table"] == "1") & (paper["noise_ratio"] == 0)].set_index("method")["paper_value"].astype(float)
    ed = pd.DataFrame({"noise_ratio": [0.0, 0.0, 0.0, 0.5], "method": ["ac_tau", "ac_sp", "frespa", "ac_tau"],
                       "ed_mean": [0.5, 0.6, 0.6, 0.3], "ed_sd": 0.0, "replicates": 1})
    text = calibration_markdown(_orderings(), ed, paper, {"target_mean_tau": 0.45})
    tau, rho = _mean_pairwise(stats.kendalltau), _mean_pairwise(stats.spearmanr)
    assert f"this panel's is {tau:.3f}" in text and f"the paper's: {p0['ac_tau']:.3f})" in text
    assert f"mean Spearman rho is {rho:.3f}, {rho / tau:.2f} times their tau" in text
    assert f"(the paper's AC-sp/AC-tau EDs: {p0['ac_sp'] / p0['ac_tau']:.2f})" in text
    gaps = {m: v - p0[m] for m, v in (("ac_tau", 0.5), ("ac_sp", 0.6), ("frespa", 0.6))}
    assert ("ours - paper: " + ", ".join(f"{m} {g:+.3f}" for m, g in gaps.items())) in text
    assert "ac_tau, ac_sp sit above the paper's and frespa below" in text
    assert calibration_markdown(_orderings(), ed, paper, {}) == ""


def test_calibration_line_only_under_a_simulated_dataset(tmp_path):
    ed = pd.DataFrame({"noise_ratio": [0.0], "method": "ac_tau", "ed_mean": [0.45], "ed_sd": [0.0], "replicates": [1]})
    ed.to_csv(tmp_path / "ed.tsv", sep="\t", index=False)
    _orderings().to_csv(tmp_path / "orderings.tsv", sep="\t", index=False)
    specs = {"sim": {"source": "simulate", "target_mean_tau": 0.45}, "mine": {"source": "table"}}
    report = _orderings_markdown({n: tmp_path / "ed.tsv" for n in specs}, {}, specs,
                                {n: tmp_path / "orderings.tsv" for n in specs}, None, paper_values("kim2010"))
    _, sim, mine = report.split("### Dataset ")
    assert "Calibration, measured on this run" in sim and "Calibration" not in mine
