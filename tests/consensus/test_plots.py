"""The consensus grid figure: the reference kappas as hollow markers only when given."""
from __future__ import annotations

import numpy as np
import pandas as pd
from reporting.figure_capture import capture, legend_texts, own_lines, paper_lines

from manyjudges.consensus import plots
from manyjudges.reporting.paper_values import paper_values

PAPER = paper_values("lin2017")


def test_consensus_grid_marks_the_reference_kappas_in_their_gammas_colour(monkeypatch):
    rows = [(s, lam, gam, 10 * lam * gam + (s == "google")) for s in ("google", "bing", "other")
            for lam in (0.5, 0.9, 1.0) for gam in (0.9, 1.0)]
    table = pd.DataFrame(rows, columns=["list_set", "lambda", "gamma", "kappa"])
    bare = capture(monkeypatch, plots, lambda: plots.plot_consensus_grid(table, "d", ["x.png"]))
    fig = capture(monkeypatch, plots, lambda: plots.plot_consensus_grid(table, "d", ["x.png"], paper=PAPER))
    kappa = PAPER[PAPER["statistic"] == "kappa"]
    for ax0, ax, name in zip(bare.axes, fig.axes, ("google", "bing", "other")):
        assert paper_lines(ax0) == [] and own_lines(ax) == own_lines(ax0)
        extra = paper_lines(ax)
        if name == "other":
            assert extra == [] and "large hollow: reference" not in legend_texts(ax)
            continue
        assert len(extra) == 2  # gamma 0.9: (0.9, 0.9); gamma 1: (0.5, 1), (1, 1)
        colours = {line.get_label(): line.get_color() for line in ax.lines if line.get_gid() != "paper"}
        for line, gam in zip(extra, (0.9, 1.0)):
            ref = kappa[(kappa["list_set"] == name) & np.isclose(kappa["gamma"].astype(float), gam)]
            ref = ref.sort_values("lambda")
            assert np.allclose(line.get_xdata(), ref["lambda"].astype(float))
            assert np.allclose(line.get_ydata(), np.log10(ref["paper_value"].astype(float)))
            assert line.get_color() == colours[f"gamma = {gam:g}"]
        assert legend_texts(ax)[-1] == "large hollow: reference"
