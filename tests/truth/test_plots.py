"""The truth-inference figure: a bar per configured entry, the published accuracies as hollow markers on the
bar of the same method, or on rows of their own for methods we do not run."""
from __future__ import annotations

import numpy as np
import pandas as pd
from reporting.figure_capture import capture, legend_texts, paper_lines

from manyjudges.truth import plots


def test_published_accuracies_sit_on_the_bar_of_their_method(monkeypatch):
    accuracy = pd.DataFrame({"method": ["mv", "dawid_skene"], "accuracy": [0.9, 0.93]})
    published = pd.DataFrame({"paper": ["p", "p", "q"], "method": ["dawid_skene", "bwa", "majority_vote"],
                              "accuracy": [0.94, 0.92, 0.89]})
    bare = capture(monkeypatch, plots, lambda: plots.plot_accuracy(accuracy, "d", "x.png", "x.pdf"))
    fig = capture(monkeypatch, plots, lambda: plots.plot_accuracy(accuracy, "d", "x.png", "x.pdf", published,
                                                                   method_of={"mv": "majority_vote"}))
    (ax0,), (ax,) = bare.axes, fig.axes
    assert paper_lines(ax0) == [] and [p.get_width() for p in ax0.patches] == [0.9, 0.93]
    (line,) = paper_lines(ax)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["mv", "dawid_skene", "bwa"]  # bwa: published only, a row of its own
    marks = dict(zip(line.get_ydata(), line.get_xdata()))
    bars = {p.get_y() + p.get_height() / 2: p.get_width() for p in ax.patches}
    assert np.isclose(marks[max(bars)], 0.89) and np.isclose(marks[min(bars)], 0.94)  # mv, dawid_skene bars
    assert np.isclose(min(marks.items())[1], 0.92)  # the lowest row: bwa
    assert legend_texts(ax) == ["hollow: published"]
