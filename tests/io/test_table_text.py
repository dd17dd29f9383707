"""The table writer gives pandas' to_csv bytes, also on the pyarrow path for large tables."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from manyjudges.io.engine import table_text
from manyjudges.io.engine.table_text import _float_text, _write_delimited


def pandas_text(df: pd.DataFrame, sep: str) -> str:
    out = io.StringIO()
    df.to_csv(out, sep=sep, index=False, lineterminator="\n")
    return out.getvalue()


def ours(df: pd.DataFrame, sep: str) -> str:
    out = io.StringIO()
    _write_delimited(df, out, sep)
    return out.getvalue()


def awkward_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """Floats of every kind below 1e9: uniform, log-uniform down to subnormals, integers, few decimals,
    near 1, around the 1e-4 and 1e-5 and 1e-6 switches, signed zeros, NaN and infinities."""
    parts = [rng.random(n), 10.0 ** rng.uniform(-330, 9, n) * rng.choice([-1, 1], n),
             rng.integers(-10**9 + 1, 10**9, n).astype(float), np.round(rng.random(n), rng.integers(0, 12)),
             1 - rng.random(n) * 1e-9, rng.random(n) * 1e-4, rng.random(n) * 1e-5, rng.random(n) * 1e-6,
             np.array([0.0, -0.0, 1.0, 1e-4, 9.9999e-5, 1e-5, 1e-6, 1e-7, 5e-324, 2.2250738585072014e-308,
                       999999999.9999999, np.nan, np.inf, -np.inf, 0.1, 1 / 3])]
    values = np.concatenate(parts)
    return values[~(np.abs(values) >= 1e9) | ~np.isfinite(values)]


def test_float_text_is_repr() -> None:
    rng = np.random.default_rng(7)
    values = awkward_floats(rng, 40_000)
    values = values[np.isfinite(values)]
    assert _float_text(values).to_pylist() == [repr(float(v)) for v in values]


@pytest.mark.parametrize("sep", ["\t", ","])
def test_large_tables_as_pandas_writes_them(monkeypatch, sep: str) -> None:
    monkeypatch.setattr(table_text, "_FAST_ROWS", 0)
    monkeypatch.setattr(table_text, "_BLOCK_ROWS", 777)  # several blocks
    rng = np.random.default_rng(8)
    floats = awkward_floats(rng, 2_000)
    n = len(floats)
    df = pd.DataFrame({"item": pd.Series([f"i{k}" for k in rng.permutation(n)], dtype="str"),
                       "label": rng.integers(-5, 5, n), "p_0": floats, "p_1": rng.permutation(floats),
                       "name": np.asarray([f"x y{k}" if k % 7 else "" for k in range(n)], dtype=object)})
    expected = pandas_text(df, sep)
    with monkeypatch.context() as patched:  # the pyarrow path, not a fallback to to_csv
        patched.setattr(pd.DataFrame, "to_csv", lambda *a, **k: pytest.fail("fell back to to_csv"))
        assert ours(df, sep) == expected


def test_files_get_the_bytes_pandas_writes(monkeypatch, tmp_path) -> None:
    """Into a file the blocks go as UTF-8 bytes, past the text layer: still pandas' bytes, non-ASCII ids too."""
    monkeypatch.setattr(table_text, "_FAST_ROWS", 0)
    monkeypatch.setattr(table_text, "_BLOCK_ROWS", 333)
    rng = np.random.default_rng(9)
    floats = awkward_floats(rng, 500)
    n = len(floats)
    df = pd.DataFrame({"item": pd.Series([f"é{k}" for k in rng.permutation(n)], dtype="str"), "p": floats,
                       "label": rng.integers(0, 3, n)})
    for sep, name in (("\t", "out.tsv"), (",", "out.csv")):
        expected = tmp_path / f"pandas_{name}"
        df.to_csv(expected, sep=sep, index=False, lineterminator="\n")
        table_text.write_table(df, tmp_path / name)
        assert (tmp_path / name).read_bytes() == expected.read_bytes()


def test_columns_put_together_from_several(monkeypatch) -> None:
    """A str column made by pd.concat is Arrow-backed in several chunks (pandas 3): one array here."""
    monkeypatch.setattr(table_text, "_FAST_ROWS", 0)
    parts = [pd.DataFrame({"method": name, "item": pd.Series([f"i{k}" for k in range(50)], dtype="str"),
                           "p": np.linspace(0, 1, 50)}) for name in ("a", "b", "c")]
    df = pd.concat(parts, ignore_index=True)
    assert ours(df, "\t") == pandas_text(df, "\t")


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"a": ["x\ty", "z"], "b": [1.0, 2.0]}),          # a separator inside a field: quoted
    pd.DataFrame({"a": ['say "hi"', "z"], "b": [1.0, 2.0]}),     # a quote
    pd.DataFrame({"a": ["x", "z"], "b": [1e12, 2.0]}),           # a float past the limit
    pd.DataFrame({"a": ["x", "z"], "b": [True, False]}),         # bools
    pd.DataFrame({"a": ["x", None], "b": np.array([1, 2], dtype=np.float32)}),
    pd.DataFrame({"a": [1, "z"], "b": [0.5, 2.0]}),              # mixed types
])
def test_other_tables_fall_back_to_pandas(monkeypatch, frame: pd.DataFrame) -> None:
    monkeypatch.setattr(table_text, "_FAST_ROWS", 0)
    for sep in ("\t", ","):
        assert ours(frame, sep) == pandas_text(frame, sep)
