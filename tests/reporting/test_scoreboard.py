"""The fidelity scoreboard: its numbers recomputed by a direct loop and scipy, the data-kind column from each
family's declared sources, and the families' compared cells."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from manyjudges.consensus.report import PAPER_SOURCES as CONSENSUS_SOURCES
from manyjudges.crowd.report import PAPER_SOURCES as CROWD_SOURCES
from manyjudges.graded.report import _graded_comparisons
from manyjudges.orderings.report import _orderings_comparisons
from manyjudges.reporting.formatting import comparison_data
from manyjudges.reporting.paper_values import paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS, scoreboard, scoreboard_markdown


def _cells() -> pd.DataFrame:
    """Three tables: 4 methods x 3 keys (some values missing), one method x 5 keys, one method x 2 keys."""
    rng = np.random.default_rng(3)
    rows = []
    for m in ("a", "b", "c", "d"):
        for k in ("k1", "k2", "k3"):
            ours, paper = rng.normal(), rng.normal()
            rows.append(("p", "1", "sim", "simulated", m, k, np.nan if (m, k) == ("b", "k2") else ours,
                         np.nan if (m, k) == ("d", "k1") else paper))
    for k in range(5):
        rows.append(("p", "2", "sim", "simulated", "frespa", f"v={k}", rng.normal(), rng.normal()))
    for k in range(2):
        rows.append(("q", "search", "own", "paper's own data", "", f"v={k}", float(k), 2.0 * k))
    rows.append(("q", "search", "other", "real stand-in", "", "v=0", 1.0, np.nan))
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def _direct(cells: pd.DataFrame, paper: str, table: str, dataset: str) -> tuple[int, float, float]:
    """(cells, mean diff, tau, mean absolute diff) of one table, by a plain loop."""
    ours_by, paper_by, diffs, xs, ys = {}, {}, [], [], []
    for r in cells.itertuples(index=False):
        if (r.paper, r.table, r.dataset) != (paper, table, dataset) or np.isnan(r.ours) or np.isnan(r.paper_value):
            continue
        diffs.append(r.ours - r.paper_value)
        xs.append(r.paper_value)
        ys.append(r.ours)
        ours_by.setdefault(r.method, []).append(r.ours)
        paper_by.setdefault(r.method, []).append(r.paper_value)
    if len(ours_by) >= 3:
        xs = [np.mean(paper_by[m]) for m in ours_by]
        ys = [np.mean(ours_by[m]) for m in ours_by]
    tau = kendalltau(xs, ys).statistic if len(xs) >= 3 else np.nan
    return len(diffs), (np.mean(diffs) if diffs else np.nan), tau, (np.mean(np.abs(diffs)) if diffs else np.nan)


def test_scoreboard_numbers_match_a_direct_computation():
    cells = _cells()
    board = scoreboard(cells)
    assert list(zip(board["paper"], board["table"], board["dataset"])) == [
        ("p", "1", "sim"), ("p", "2", "sim"), ("q", "search", "own"), ("q", "search", "other")]
    for r in board.itertuples(index=False):
        n, diff, tau, abs_diff = _direct(cells, r.paper, r.table, r.dataset)
        assert r.cells == n
        assert (np.isnan(diff) and np.isnan(r.mean_diff)) or r.mean_diff == pytest.approx(diff)
        assert (np.isnan(abs_diff) and np.isnan(r.mean_abs_diff)) or r.mean_abs_diff == pytest.approx(abs_diff)
        assert (np.isnan(tau) and np.isnan(r.tau)) or r.tau == pytest.approx(tau)
    by = board.set_index(["table", "dataset"])
    assert by.loc[("1", "sim"), "cells"] == 10 and by.loc[("1", "sim"), "tau_over"] == "methods"
    assert by.loc[("1", "sim"), "tau_items"] == 4
    assert by.loc[("2", "sim"), "tau_over"] == "cells" and by.loc[("2", "sim"), "tau_items"] == 5
    assert np.isnan(by.loc[("search", "own"), "tau"])  # two cells: too few to rank
    assert by.loc[("search", "other"), "cells"] == 0


def test_scoreboard_markdown_lists_compared_tables_and_names_the_rest():
    text = scoreboard_markdown(scoreboard(_cells()))
    assert text.startswith("## Fidelity scoreboard\n")
    lines = [line for line in text.splitlines() if line.startswith("| p, ") or line.startswith("| q, ")]
    assert len(lines) == 3
    assert lines[2] == "| q, search | `own` | paper's own data | 2 | 0.500 | -0.500 | n/a |"
    assert "(4 methods)" in lines[0] and "(5 cells)" in lines[1]
    assert "Regenerated with no paper values to compare: q search on `other` (real stand-in)." in text


def test_data_kind_comes_from_the_source_and_the_family_declared_paper_sources():
    assert comparison_data("simulate") == "simulated"
    assert comparison_data("preflib") == "real stand-in"
    assert comparison_data("trec_rf10", CROWD_SOURCES) == "real stand-in"
    assert comparison_data("mirex2005", CROWD_SOURCES) == "paper's own data"
    assert comparison_data("search_results", CONSENSUS_SOURCES) == "paper's own data"
    assert comparison_data("table") == "real stand-in (your own data)"


def test_ordered_list_cells_and_their_data_kind(tmp_path):
    ed = pd.DataFrame({"noise_ratio": [0.0, 0.5, 0.0, 0.5, 0.0], "method": ["ac_tau", "ac_tau", "mine", "mine", "x"],
                       "ed_mean": [0.5, 0.3, 0.6, 0.4, 0.1], "ed_sd": 0.0, "replicates": 1})
    specs = {"sim": {"source": "simulate"}, "skate": {"source": "preflib"}, "own": {"source": "table"}}
    for name in specs:
        ed.to_csv(tmp_path / f"{name}.tsv", sep="\t", index=False)
    paper = paper_values("kim2010")
    cells = _orderings_comparisons({n: tmp_path / f"{n}.tsv" for n in specs}, {}, specs,
                                  {"ac_tau": {}, "mine": {"method": "frespa"}, "x": {}}, paper)
    assert list(cells.columns) == CELL_COLUMNS
    assert dict(zip(cells["dataset"], cells["data"])) == {
        "sim": "simulated", "skate": "real stand-in", "own": "real stand-in (your own data)"}
    sim = cells[cells["dataset"] == "sim"].reset_index(drop=True)
    p1 = paper[paper["table"] == "1"]
    for r in sim.itertuples(index=False):
        want = p1[(p1["method"] == {"mine": "frespa"}.get(r.method, r.method))
                  & np.isclose(p1["noise_ratio"].astype(float), float(r.key.split("=")[1]))]["paper_value"]
        assert (np.isnan(r.paper_value) and want.empty) or r.paper_value == float(want.iloc[0])
    assert sim["paper_value"].notna().sum() == 4  # x has no paper value


def test_graded_cells_have_paper_values_only_beside_a_simulated_panel(tmp_path):
    loglik = pd.DataFrame({"judge": ["judge00", "judge01"] * 3,
                           "method": ["m1", "m1", "m4", "m4", "uniform", "uniform"],
                           "protocol": "cross_induction", "loglik": [-8000.0, -7000, -7900, -7100, -8047, -8047],
                           "n_items": 5000})
    pairwise = pd.DataFrame({"judge": ["judge00", "judge01"], "method_a": "m23", "method_b": "m4",
                             "protocol": "cross_induction", "a_better": [2000, 2500], "b_better": [3000, 2500],
                             "ties": 0, "p_value": 0.5})
    loglik.to_csv(tmp_path / "loglik.tsv", sep="\t", index=False)
    pairwise.to_csv(tmp_path / "pairwise.tsv", sep="\t", index=False)
    files = {"loglik": tmp_path / "loglik.tsv", "pairwise": tmp_path / "pairwise.tsv"}
    specs = {"sim": {"source": "simulate"}, "own": {"source": "table"}}
    cells = _graded_comparisons({"sim": files, "own": files}, specs, paper_values("wilbur2011"))
    board = scoreboard(cells).set_index(["table", "dataset"])
    assert board.loc[("2", "sim"), "cells"] == 4 and board.loc[("4", "sim"), "cells"] == 2
    assert board.loc[("2", "own"), "cells"] == 0 and board.loc[("4", "own"), "cells"] == 0
    assert board.loc[("4", "sim"), "mean_diff"] == pytest.approx(((2000 - 2326) + (2500 - 2576)) / 2)


def test_crowd_cells_have_paper_values_only_beside_a_dataset_standing_for_the_papers(tmp_path):
    from manyjudges.crowd.report import _crowd_comparisons

    metrics = pd.DataFrame([(m, x, 0.5) for m in ("mpm", "borda") for x in ("P@3", "MAP", "P@7")],
                           columns=["method", "metric", "value"])
    kl = pd.DataFrame({"topic": ["t1", "t2", "t1"], "method": ["mpm", "mpm", "crowd_bt"], "kl": [1.0, 2.0, 3.0]})
    metrics.to_csv(tmp_path / "ranking_metrics.tsv", sep="\t", index=False)
    kl.to_csv(tmp_path / "quality_kl.tsv", sep="\t", index=False)
    files = {"ranking_metrics": tmp_path / "ranking_metrics.tsv", "quality_kl": tmp_path / "quality_kl.tsv"}
    specs = {"mirex": {"source": "mirex2005"}, "sim": {"source": "simulate"}}
    cells = _crowd_comparisons({"mirex": files, "sim": files}, specs, paper_values("niu2015"), [3])
    board = scoreboard(cells).set_index(["table", "dataset"])
    # P@7 is not a metric of ks = [3]; borda has no paper value
    assert board.loc[("2", "mirex"), "cells"] == 2 and board.loc[("2", "mirex"), "data"] == "paper's own data"
    assert board.loc[("2", "mirex"), "mean_diff"] == pytest.approx(((0.5 - 0.485) + (0.5 - 0.516)) / 2)
    assert board.loc[("kl", "mirex"), "mean_diff"] == pytest.approx(((1.5 - 1.93) + (3.0 - 2.86)) / 2)
    assert board.loc[("2", "sim"), "cells"] == 0 and board.loc[("kl", "sim"), "data"] == "simulated"
