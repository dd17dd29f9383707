"""Ordered-list figures: the paper's Table 1 and Tables 2-4 drawn beside ours only when given."""
from __future__ import annotations

import numpy as np
import pandas as pd
from reporting.figure_capture import capture, legend_texts, own_lines, paper_lines

from manyjudges.orderings import plots
from manyjudges.reporting.paper_values import paper_values

PAPER = paper_values("kim2010")


def _ed() -> pd.DataFrame:
    rows = [(r, m, 0.5 - r / 4 + k / 10, 0.01, 3) for k, m in enumerate(["ac_tau", "frespa", "mine"])
            for r in (0.0, 0.5, 1.0)]
    return pd.DataFrame(rows, columns=["noise_ratio", "method", "ed_mean", "ed_sd", "replicates"])


def test_ed_by_noise_draws_the_papers_table1_per_method_of_the_same_name(monkeypatch):
    table = _ed()
    bare = capture(monkeypatch, plots, lambda: plots.plot_ed_by_noise(table, "d", ["x.png"]))
    fig = capture(monkeypatch, plots, lambda: plots.plot_ed_by_noise(table, "d", ["x.png"], paper=PAPER))
    (ax0,), (ax,) = bare.axes, fig.axes
    assert paper_lines(ax0) == [] and "dashed, hollow: paper" not in legend_texts(ax0)
    assert own_lines(ax) == own_lines(ax0)  # ours unchanged
    extra = paper_lines(ax)
    assert len(extra) == 2  # ac_tau and frespa; 'mine' has no paper method of its name
    p1 = PAPER[PAPER["table"] == "1"]
    for line, method in zip(extra, ["ac_tau", "frespa"]):
        want = p1[p1["method"] == method].sort_values("noise_ratio")
        assert np.allclose(line.get_xdata(), want["noise_ratio"].astype(float))
        assert np.allclose(line.get_ydata(), want["paper_value"].astype(float))
        assert line.get_linestyle() == "--" and line.get_markerfacecolor() == "none"
    colours = {c.get_label(): c.lines[0].get_color() for c in ax.containers}
    assert extra[0].get_color() == colours["ac_tau"] and extra[1].get_color() == colours["frespa"]
    assert legend_texts(ax)[-1] == "dashed, hollow: paper"


def test_frespa_sweep_draws_the_papers_values_at_our_parameter_values(monkeypatch):
    rows = [(p, v, r, 0.6 + v / 1000 - r / 10, 0.01, 2) for p, values in (("w_len", [0, 1, 100]), ("min_sup", [0.5, 1]))
            for v in values for r in (0.0, 0.5)]
    table = pd.DataFrame(rows, columns=["parameter", "value", "noise_ratio", "ed_mean", "ed_sd", "replicates"])
    bare = capture(monkeypatch, plots, lambda: plots.plot_frespa_sweep(table, "d", ["x.png"]))
    fig = capture(monkeypatch, plots, lambda: plots.plot_frespa_sweep(table, "d", ["x.png"], paper=PAPER))
    for ax0, ax in zip(bare.axes, fig.axes):
        assert paper_lines(ax0) == [] and own_lines(ax) == own_lines(ax0)
    w_len, min_sup = fig.axes
    assert len(paper_lines(w_len)) == 2 and len(paper_lines(min_sup)) == 2  # one per noise ratio
    t2 = PAPER[(PAPER["table"] == "2") & (PAPER["parameter"] == "w_len")]
    for line, r in zip(paper_lines(w_len), (0.0, 0.5)):
        want = [float(t2[np.isclose(t2["value"].astype(float), v) & np.isclose(t2["noise_ratio"].astype(float), r)]
                      ["paper_value"].iloc[0]) for v in (0, 1, 100)]
        assert list(line.get_xdata()) == [0, 1, 2]  # w_len is drawn at evenly spaced positions
        assert np.allclose(line.get_ydata(), want)
    t4 = PAPER[PAPER["table"] == "4"]
    for line, r in zip(paper_lines(min_sup), (0.0, 0.5)):
        want = t4[np.isclose(t4["noise_ratio"].astype(float), r) & t4["value"].astype(float).isin([0.5, 1.0])]
        want = want.sort_values("value")
        assert np.allclose(line.get_xdata(), [0.5, 1.0])
        assert np.allclose(line.get_ydata(), want["paper_value"].astype(float))
    assert legend_texts(fig.axes[-1])[-1] == "dashed, hollow: paper" and bare.axes[0].get_legend() is None
