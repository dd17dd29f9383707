"""The default config's truth tables do not depend on how many threads numpy's BLAS runs, nor on the order of the
labels' rows: every truth dataset of ``config/config.yaml`` with every configured method, run in this process under
``threadpoolctl.threadpool_limits(1)`` and ``(2)`` and on the rows shuffled, equal to 1e-6 (measured seconds aside).
The machine's BLAS settings are left as they are."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from manyjudges.truth.data import truth_tables
from manyjudges.truth.experiment import run_methods

threadpoolctl = pytest.importorskip("threadpoolctl")

CONFIG = yaml.safe_load((Path(__file__).parents[2] / "config" / "config.yaml").read_text(encoding="utf-8"))
SECTION = CONFIG["truth"]
METHODS = {name: dict(spec or {}) for name, spec in SECTION["methods"].items()}


def tables(name: str, threads: int, shuffle: int | None = None) -> dict[str, pd.DataFrame]:
    labels, truth = truth_tables(name, SECTION["datasets"][name], [], CONFIG["seed"])
    if shuffle is not None:
        labels = labels.sample(frac=1.0, random_state=shuffle).reset_index(drop=True)
    with threadpoolctl.threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_methods(labels, truth, METHODS)
    return {"accuracy": run.accuracy.drop(columns="seconds"), "labels": run.labels, "judges": run.judges}


def assert_same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    for key in a:
        left, right = a[key], b[key]
        assert list(left.columns) == list(right.columns)
        assert len(left) == len(right)
        for column in left.columns:
            x, y = left[column].to_numpy(), right[column].to_numpy()
            if np.issubdtype(x.dtype, np.floating):
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-6, err_msg=f"{key}.{column}")
            else:
                assert (x.astype(str) == y.astype(str)).all(), f"{key}.{column}"


@pytest.mark.parametrize("name", list(SECTION["datasets"]))
def test_default_truth_tables_one_or_two_blas_threads_any_row_order(name: str) -> None:
    one = tables(name, 1)
    assert_same(one, tables(name, 2))
    assert_same(one, tables(name, 2, shuffle=0))
