"""Figure output shared by every family.

Matplotlib without a display, PNG and PDF from one figure with fixed metadata (no dates or versions), so
reruns give identical files; and the style of a paper's values drawn beside ours (dashed, hollow
markers, ``gid`` 'paper').

matplotlib is the ``figures`` extra, not a dependency of the library: without it, importing this module (and so
any family's ``plots``) raises an ImportError that says ``pip install 'manyjudges[figures]'``.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

try:
    import matplotlib
except ModuleNotFoundError as error:  # the library and the command install without it
    if error.name != "matplotlib":
        raise
    raise ModuleNotFoundError(
        "the figures need matplotlib, which the library alone does not install: pip install 'manyjudges[figures]'",
        name="matplotlib",
    ) from error

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

__all__ = ["figure_bytes", "paper_handle", "paper_style", "plt", "save_figure"]

#: ``gid`` of every artist that shows a paper's values (so a reader of the figure object can find them)
_PAPER_GID = "paper"

_PDF_METADATA = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
_PNG_METADATA = {"Software": None}
_SVG_METADATA = {"Date": None, "Creator": None}
#: the formats :func:`figure_bytes` writes, by file name suffix
_FIGURE_FORMATS = ("png", "svg", "pdf")


def save_figure(fig: plt.Figure, paths: Sequence[str | Path]) -> None:
    """Save ``fig`` to each path (PDF for ``.pdf``, else a 150 dpi raster), then close it."""
    for path in paths:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if str(path).endswith(".pdf"):
            fig.savefig(path, metadata=_PDF_METADATA)
        else:
            fig.savefig(path, dpi=150, metadata=dict(_PNG_METADATA))
    plt.close(fig)


def paper_style(color: str | tuple, line: bool = True) -> dict:
    """Return keyword arguments of ``Axes.plot`` for a paper's values beside a series of ``color``.

    Hollow markers of that colour, joined by a dashed line when ``line``; kept out of the legend (see
    :func:`paper_handle`).
    """
    return {"color": color, "linestyle": "--" if line else "none", "linewidth": 1, "marker": "o",
            "markerfacecolor": "none", "markeredgecolor": color, "markersize": 6, "gid": _PAPER_GID,
            "label": "_paper"}


def paper_handle(label: str = "dashed, hollow: paper", line: bool = True) -> Line2D:
    """Return a legend entry for the paper's values (grey, in :func:`paper_style`)."""
    return Line2D([], [], **{**paper_style("0.35", line), "label": label, "gid": None})


def figure_bytes(fig: plt.Figure, fmt: str, close: bool = True) -> bytes:
    """Return ``fig`` as a PNG (150 dpi), SVG or PDF file's bytes, with fixed metadata (reruns give the same bytes).

    The SVG's element ids are salted with a fixed string (``svg.hashsalt``) and its text is text, not
    paths (``svg.fonttype: none``: searchable, smaller). The figure is closed unless ``close`` is False.
    """
    from io import BytesIO

    if fmt not in _FIGURE_FORMATS:
        raise ValueError(f"a figure is written as {', '.join(_FIGURE_FORMATS)}, not {fmt!r}")
    metadata = {"png": _PNG_METADATA, "svg": _SVG_METADATA, "pdf": _PDF_METADATA}[fmt]
    buffer = BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "manyjudges", "svg.fonttype": "none"}):
        fig.savefig(buffer, format=fmt, dpi=150, metadata=dict(metadata))
    if close:
        plt.close(fig)
    return buffer.getvalue()
