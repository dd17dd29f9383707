"""The graded figure: the paper's per-judge values (minus eq. 11's uniform) beside ours only when given."""
from __future__ import annotations

import numpy as np
import pandas as pd
from reporting.figure_capture import capture, legend_texts, own_lines, paper_lines

from manyjudges.graded import plots
from manyjudges.reporting.paper_values import paper_values

PAPER = paper_values("wilbur2011")


def _loglik() -> pd.DataFrame:
    rows = [(f"judge{j:02d}", m, p, -8000.0 + 100 * j + 10 * k, 5000)
            for p in ("cross_induction", "single_parameter") for j in range(3)
            for k, m in enumerate(["m1", "m4", "mine", "uniform"])]
    return pd.DataFrame(rows, columns=["judge", "method", "protocol", "loglik", "n_items"])


def test_loglik_figure_draws_the_papers_gain_over_uniform_per_judge(monkeypatch):
    table = _loglik()
    bare = capture(monkeypatch, plots, lambda: plots.plot_loglik_by_judge(table, "d", ["x.png"]))
    fig = capture(monkeypatch, plots, lambda: plots.plot_loglik_by_judge(table, "d", ["x.png"], paper=PAPER))
    uniform = float(PAPER[PAPER["table"] == "eq11"]["paper_value"].iloc[0])
    for ax0, ax, protocol, no in zip(bare.axes, fig.axes, ("cross_induction", "single_parameter"), ("2", "3")):
        assert paper_lines(ax0) == [] and "dashed, hollow: paper" not in legend_texts(ax0)
        assert own_lines(ax) == own_lines(ax0)
        extra = paper_lines(ax)
        assert len(extra) == 2  # m1 and m4; 'mine' has no paper values
        rows = PAPER[(PAPER["table"] == no) & (PAPER["protocol"] == protocol)]
        for line, method in zip(extra, ("m1", "m4")):
            want = [float(rows[(rows["method"] == method) & (rows["judge"] == j)]["paper_value"].iloc[0]) - uniform
                    for j in range(3)]
            assert np.allclose(line.get_ydata(), want) and list(line.get_xdata()) == [0, 1, 2]
        own = {line.get_label(): line.get_color() for line in ax.lines if line.get_gid() != "paper"}
        assert [line.get_color() for line in extra] == [own["m1"], own["m4"]]
        assert legend_texts(ax)[-1] == "dashed, hollow: paper"


def test_only_a_simulated_panel_gets_the_papers_values():
    from manyjudges.graded.report import figure_paper_values

    assert figure_paper_values({"source": "simulate"}, PAPER) is PAPER
    assert figure_paper_values({"source": "adultcontent3"}, PAPER) is None
