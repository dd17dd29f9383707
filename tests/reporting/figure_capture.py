"""Capturing a plot function's figure instead of saving it, and its paper-value artists."""
from __future__ import annotations

from manyjudges.reporting.figures import _PAPER_GID, plt


def capture(monkeypatch, module, call) -> plt.Figure:
    """The figure ``call()`` draws, with ``module.save_figure`` replaced so nothing is written."""
    figures = []
    monkeypatch.setattr(module, "save_figure", lambda fig, paths: figures.append(fig))
    call()
    (fig,) = figures
    return fig


def paper_lines(ax) -> list:
    """The axes' lines that show a paper's values."""
    return [line for line in ax.lines if line.get_gid() == _PAPER_GID]


def own_lines(ax) -> list:
    """The axes' other lines, as (x, y) lists."""
    return [(list(line.get_xdata()), list(line.get_ydata())) for line in ax.lines if line.get_gid() != _PAPER_GID]


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]
