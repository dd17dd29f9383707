"""Result tables gathered from per-job TSVs, and text files written atomically."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.atomic import atomic_file

__all__ = ["concat_tables", "in_method_order", "write_text_atomic"]


def concat_tables(paths: Iterable[str | Path], dtype: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Concatenate TSVs in the given order (``dtype``: column types, e.g. ids kept as strings)."""
    frames = [pd.read_csv(p, sep="\t", dtype=dtype) for p in paths]
    if not frames:
        raise ValueError("no tables to concatenate")
    return pd.concat(frames, ignore_index=True)


def in_method_order(table: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """Return the rows stably reordered so that the methods come in ``methods`` order.

    ``methods`` is the configured order (a job may hold several methods); each method's rows stay in
    the order they came.
    """
    rank = {m: n for n, m in enumerate(methods)}
    order = np.argsort(table["method"].map(rank).to_numpy(), kind="stable")
    return table.iloc[order].reset_index(drop=True)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary sibling, so readers never see a partial file."""
    with atomic_file(path) as handle:
        handle.write(text)
