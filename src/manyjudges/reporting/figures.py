"""Figure output shared by every family: matplotlib without a display, PNG and PDF from one figure
with fixed metadata (no dates or versions), so reruns give identical files."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["PDF_METADATA", "PNG_METADATA", "plt", "save_figure"]

PDF_METADATA = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
PNG_METADATA = {"Software": None}


def save_figure(fig: plt.Figure, paths: Sequence[str | Path]) -> None:
    """Save ``fig`` to each path (PDF for ``.pdf``, else a 150 dpi raster), then close it."""
    for path in paths:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if str(path).endswith(".pdf"):
            fig.savefig(path, metadata=PDF_METADATA)
        else:
            fig.savefig(path, dpi=150, metadata=dict(PNG_METADATA))
    plt.close(fig)
