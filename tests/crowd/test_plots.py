"""The crowd Table 2 figure: the paper's values as hollow markers on the bars only when given."""
from __future__ import annotations

import numpy as np
import pandas as pd
from reporting.figure_capture import capture, legend_texts, paper_lines

from manyjudges.crowd import plots
from manyjudges.crowd.report import figure_paper_values
from manyjudges.reporting.paper_values import paper_values

PAPER = figure_paper_values({"source": "trec_rf10"}, paper_values("niu2015"))


def test_table2_figure_marks_the_papers_value_on_each_bar(monkeypatch):
    methods = ["mpm", "borda", "crowd_bt"]
    table = pd.DataFrame([(m, x, 0.1 * (k + 1)) for k, m in enumerate(methods) for x in plots.FIGURE_METRICS],
                         columns=["method", "metric", "value"])
    bare = capture(monkeypatch, plots, lambda: plots.plot_table2(table, "d", "x.png", "x.pdf"))
    fig = capture(monkeypatch, plots, lambda: plots.plot_table2(table, "d", "x.png", "x.pdf", paper=PAPER))
    (ax0,), (ax,) = bare.axes, fig.axes
    assert paper_lines(ax0) == [] and len(ax0.lines) == 0 and "hollow: paper" not in legend_texts(ax0)
    assert [p.get_height() for p in ax.patches] == [p.get_height() for p in ax0.patches]  # the same bars
    extra = paper_lines(ax)
    assert len(extra) == len(plots.FIGURE_METRICS)
    t2 = PAPER[PAPER["table"] == "2"]
    for k, (line, metric) in enumerate(zip(extra, plots.FIGURE_METRICS)):
        want = [t2[(t2["method"] == m) & (t2["metric"] == metric)]["paper_value"].astype(float) for m in methods]
        want = [float(w.iloc[0]) if len(w) else np.nan for w in want]  # borda has none
        assert np.allclose(line.get_ydata(), want, equal_nan=True)
        bars = ax.containers[k].patches
        assert np.allclose(line.get_xdata(), [b.get_x() + b.get_width() / 2 for b in bars])
        assert line.get_linestyle() == "None" and line.get_markerfacecolor() == "none"
    assert legend_texts(ax)[-1] == "hollow: paper"


def test_only_a_stand_in_dataset_gets_the_papers_values():
    niu = paper_values("niu2015")
    assert set(figure_paper_values({"source": "mirex2005"}, niu)["dataset"]) == {"mirex2005"}
    assert set(PAPER["dataset"]) == {"cs_trec2011"}
    assert figure_paper_values({"source": "simulate"}, niu) is None
