"""The ordered-list section of the reproduction report: each data caveat only under its own source."""
from __future__ import annotations

import pandas as pd

from manyjudges.io.sources import preflib
from manyjudges.orderings import simulate
from manyjudges.orderings.report import _dataset_summary, _orderings_markdown
from manyjudges.reporting.paper_values import paper_values


def test_data_caveats_appear_only_under_a_dataset_of_their_source(tmp_path):
    ed = pd.DataFrame({"noise_ratio": [0.0, 0.5], "method": "ac_tau", "ed_mean": [0.45, 0.3], "ed_sd": [0.0, 0.01],
                       "replicates": [1, 2]})
    specs = {"sim": {"source": "simulate"}, "skate": {"source": "preflib"}, "mine": {"source": "table"}}
    tables = {}
    for name in specs:
        tables[name] = tmp_path / f"{name}.tsv"
        ed.to_csv(tables[name], sep="\t", index=False)
    report = _orderings_markdown(tables, {}, specs, None, None, paper_values("kim2010"))
    header, sim, skate, mine = report.split("### Dataset ")
    assert "`sim` (**simulated**)" in sim and simulate.REPORT_NOTE in sim
    assert "`skate` (real public data)" in skate and preflib.REPORT_NOTE in skate
    assert "`mine` (your own data)" in mine
    for text in (header, mine):
        assert simulate.REPORT_NOTE not in text and preflib.REPORT_NOTE not in text and "Barzilay" not in text
    assert simulate.REPORT_NOTE not in skate and preflib.REPORT_NOTE not in sim


def test_dataset_summary_counts_sets_judges_items_and_tied_orderings():
    rows = [("s1", "a", "x", 1), ("s1", "a", "y", 2), ("s1", "b", "x", 1), ("s1", "b", "y", 1),
            ("s2", "a", "x", 2), ("s2", "a", "y", 1), ("s2", "a", "z", 3), ("s2", "c", "x", 1),
            ("s2", "c", "y", 2), ("s2", "c", "z", 3), ("s2", "d", "x", 3), ("s2", "d", "y", 3), ("s2", "d", "z", 3)]
    table = pd.DataFrame(rows, columns=["set_id", "judge", "item", "rank"])
    assert _dataset_summary(table) == ("2 sets; judges per set 2-3 (mean 2.5); items per set 2-3 (mean 2.5); "
                                      "orderings with ties: 40%")
