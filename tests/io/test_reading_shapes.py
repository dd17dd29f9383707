"""Reading labels of every id shape, in any row order: the same codes and outputs, and bounded memory.

The reader codes ids one of two ways (``manyjudges.core.id_codes``): one prefix and a number without
hashing, anything else hashed. Both must give what pandas' parse and a plain Python sort give, and the
same bytes out whatever the order of the rows.
"""
import re
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.labels import read_crowd_labels, read_truth
from manyjudges.truth import DawidSkene
from manyjudges.truth.results import labels_table

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.speed.truth_scale import write_text_labels  # noqa: E402

#: id shapes: a prefix and a number (the fast way), digit strings, and mixed ids (hashed)
SHAPES = {
    "prefix_number": (lambda n: f"doc-{n}", lambda w: f"w{w}"),
    "digits": (lambda n: str(n), lambda w: str(w)),
    "mixed": (lambda n: f"q{n % 7}:p{n}" if n % 3 else f"doc {n:03d}", lambda w: ["gpt-4", "w2", "w10", "Ω"][w % 4]
              + str(w // 4)),
}


def plain_sorted(values) -> list[str]:
    values = sorted(set(values))
    if all(re.fullmatch("[0-9]+", v) for v in values):
        return sorted(values, key=lambda v: (int(v), v))
    return values


def table(shape: str, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    item_id, judge_id = SHAPES[shape]
    numbers = rng.permutation(5000)[:600]
    rows = [(item_id(int(n)), judge_id(int(w)), int(rng.integers(0, 3))) for n in numbers
            for w in rng.choice(40, 5, replace=False)]
    return pd.DataFrame(rows, columns=["item", "judge", "label"])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_codes_match_pandas_and_a_plain_sort(tmp_path, shape):
    frame = table(shape)
    path = tmp_path / "labels.tsv"
    frame.sample(frac=1.0, random_state=3).to_csv(path, sep="\t", index=False)
    parsed = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    data = read_crowd_labels(path)
    assert list(data.items) == plain_sorted(parsed["item"]) and list(data.judges) == plain_sorted(parsed["judge"])
    assert [str(v) for v in data.items[data.item]] == parsed["item"].tolist()
    assert [str(v) for v in data.judges[data.judge]] == parsed["judge"].tolist()
    assert data.label.tolist() == parsed["label"].astype(int).tolist()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_sorted_and_shuffled_rows_give_the_same_bytes(tmp_path, shape):
    frame = table(shape, seed=1)
    outputs = []
    for name, rows in (("sorted", frame.sort_values(["item", "judge"])), ("shuffled", frame.sample(frac=1.0,
                                                                                                  random_state=7))):
        path = tmp_path / f"{name}.tsv"
        rows.to_csv(path, sep="\t", index=False)
        truth = tmp_path / f"{name}_truth.tsv"
        rows.drop_duplicates("item")[["item", "label"]].rename(columns={"label": "truth"}).to_csv(truth, sep="\t",
                                                                                                  index=False)
        data = read_crowd_labels(path)
        assert len(read_truth(truth, labels=data)) == frame["item"].nunique()
        out = tmp_path / f"{name}_out.tsv"
        write_table(labels_table(DawidSkene().fit(data)), out)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("sort", [False, True])
def test_memory_per_label_on_a_million_shuffled_text_ids(tmp_path, sort):
    """A million labels with text ids in random order: 12 bytes a label held, under 32 at the peak of the read
    (numpy's allocations, traced) and Arrow's parse buffers given back; read in file order or sorted."""
    labels, truth = tmp_path / "labels.tsv", tmp_path / "truth.tsv"
    write_text_labels(labels, truth, 1_000_000)
    n = 1_000_000
    before = pa.total_allocated_bytes()
    tracemalloc.start()
    try:
        data = read_crowd_labels(labels, sort=sort)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data.n_labels == n and data.n_items == 100_000 and data.n_judges == 10_000
    assert held / n < 13 and peak / n < 32
    assert pa.total_allocated_bytes() - before < 16 * 2**20


@pytest.mark.parametrize("duplicates", ["keep", "first", "last"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_sorted_read_is_the_fit_order(tmp_path, shape, duplicates):
    """``sort=True`` gives the labels in the order a fit sorts them (canonical_order), with the same ids and
    classes, whether or not pairs repeat; with ``duplicates="error"`` a repeat is the same error either way."""
    from manyjudges.core.coded_labels import _is_canonical, canonical_order
    from manyjudges.io.engine.errors import DataError

    frame = table(shape, seed=2).sample(frac=1.0, random_state=4)
    repeats = frame.sample(40, random_state=5).assign(label=lambda f: (f["label"] + 1) % 3)
    for name, rows in (("unique", frame), ("repeats", pd.concat([frame, repeats]).sample(frac=1.0, random_state=6))):
        path = tmp_path / f"{name}.tsv"
        rows.to_csv(path, sep="\t", index=False)
        expected = canonical_order(read_crowd_labels(path, duplicates=duplicates))
        got = read_crowd_labels(path, duplicates=duplicates, sort=True)
        assert _is_canonical(got)
        for part in ("item", "judge", "label"):
            assert np.array_equal(getattr(got, part), getattr(expected, part)) and getattr(got, part).dtype == np.int32
        assert list(got.items) == list(expected.items) and list(got.judges) == list(expected.judges)
        assert list(got.classes) == list(expected.classes)
        if name == "repeats":
            with pytest.raises(DataError) as unsorted:
                read_crowd_labels(path)
            with pytest.raises(DataError) as by_sort:
                read_crowd_labels(path, sort=True)
            assert str(unsorted.value) == str(by_sort.value)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_files_read_batch_by_batch_give_the_same_codes(tmp_path, monkeypatch, shape):
    """A file read batch by batch (as files past STREAM_BYTES are), its ids coded as they come, gives the
    codes, truth and errors of the whole-file read; ids of another shape in a later batch fall back to it."""
    from manyjudges.io.engine import columnar
    from manyjudges.io.engine.errors import DataError

    frame = table(shape, seed=4).sample(frac=1.0, random_state=5)
    path, truth = tmp_path / "labels.tsv", tmp_path / "truth.tsv"
    frame.to_csv(path, sep="\t", index=False)
    frame.drop_duplicates("item")[["item", "label"]].rename(columns={"label": "truth"}).to_csv(truth, sep="\t",
                                                                                              index=False)
    late = tmp_path / "late.tsv"  # a later batch holds an id of another shape
    pd.concat([frame, pd.DataFrame({"item": ["other-id x"], "judge": [frame["judge"].iloc[0]], "label": [1]})]
              ).to_csv(late, sep="\t", index=False)
    bad = tmp_path / "bad.tsv"  # a row with a field too many, far down the file
    bad.write_text(path.read_text() + "doc-1\tw1\t1\textra\n")
    whole = [read_crowd_labels(p, sort=True) for p in (path, late)]
    whole_truth = read_truth(truth, labels=whole[0])
    with pytest.raises(DataError) as whole_error:
        read_crowd_labels(bad)
    monkeypatch.setattr(columnar, "STREAM_BYTES", 0)
    monkeypatch.setattr(columnar, "BLOCK_BYTES", 4096)  # many batches
    streamed, stream = [], columnar._read_batches
    monkeypatch.setattr(columnar, "_read_batches", lambda *a, **k: streamed.append(stream(*a, **k)) or streamed[-1])
    for expected, p in zip(whole, (path, late)):
        got = read_crowd_labels(p, sort=True)
        for part in ("item", "judge", "label"):
            assert np.array_equal(getattr(got, part), getattr(expected, part))
        assert list(got.items) == list(expected.items) and list(got.judges) == list(expected.judges)
    # the ids of one prefix and a number were coded batch by batch; the file with another shape fell back
    assert (streamed[0] is not None) == (shape != "mixed") and streamed[1] is None
    assert read_truth(truth, labels=whole[0]).equals(whole_truth)
    with pytest.raises(DataError) as streamed_error:
        read_crowd_labels(bad)
    assert str(streamed_error.value) == str(whole_error.value)
