"""Tests for the truth-inference labels and label truth tables and the benchmark parser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from io_helpers import MIRROR, assert_located, needs_mirror, pinned, write

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.io.engine.errors import DataError, DataWarning
from manyjudges.io.sources.truth_benchmark import _TRUTH_BENCHMARK_FOLDERS, parse_truth_benchmark
from manyjudges.io.tables.labels import (
    _LABEL_TRUTH_COLUMNS,
    _LABELS_COLUMNS,
    read_crowd_labels,
    read_labels,
    read_truth,
    write_labels,
    write_truth,
)
from manyjudges.pipeline.download import _pinned_files

GOOD = "item,judge,label\ni1,w1,0\ni1,w2,1\ni2,w1,1\ni2,w3,1\n"


def csv(tmp_path: Path, text: str, name: str = "labels.csv") -> Path:
    return write(tmp_path / name, text)


# --- reading labels --------------------------------------------------------------------------


def test_read_labels_csv_and_tsv(tmp_path: Path) -> None:
    expected = [["i1", "w1", 0], ["i1", "w2", 1], ["i2", "w1", 1], ["i2", "w3", 1]]
    for path in (csv(tmp_path, GOOD), write(tmp_path / "labels.tsv", GOOD.replace(",", "\t"))):
        table = read_labels(path)
        assert list(table.columns) == _LABELS_COLUMNS
        assert table.values.tolist() == expected
        assert table["label"].dtype == np.int64
        assert list(table.attrs["lines"]) == [2, 3, 4, 5]


def test_worker_is_accepted_for_judge(tmp_path: Path) -> None:
    table = read_labels(csv(tmp_path, GOOD.replace("judge", "worker")))
    assert list(table.columns) == _LABELS_COLUMNS
    assert table["judge"].tolist() == ["w1", "w2", "w1", "w3"]


def test_declared_classes_give_class_names(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,G\ni1,w2,X\ni2,w1,P\n")
    table = read_labels(path, classes=["G", "P", "R", "X"])
    assert table["label"].tolist() == ["G", "X", "P"]
    codes = as_crowd_labels(table, classes=["G", "P", "R", "X"])
    assert codes.label.tolist() == [0, 3, 1]
    ints = read_labels(csv(tmp_path, GOOD, "ints.csv"), classes=[0, 1, 2])
    assert ints["label"].dtype == np.int64 and ints["label"].tolist() == [0, 1, 1, 1]


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("item,judge", "item,judge"),  # missing column
        ("item,who,label", "item,who,label"),  # misnamed
        ("item,worker,judge,label", "item,worker,judge,label"),  # two names of one column
    ],
)
def test_bad_header(tmp_path: Path, header: str, value: str) -> None:
    fields = len(header.split(","))
    path = csv(tmp_path, header + "\n" + ",".join(["x"] * fields) + "\n")
    with pytest.raises(DataError) as err:
        read_labels(path)
    assert_located(err, path, 1, value)
    assert "item,judge,label" in str(err.value)


def test_columns_in_any_order_aliases_and_extra_columns(tmp_path: Path) -> None:
    expected = read_labels(csv(tmp_path, GOOD)).values.tolist()
    moved = csv(tmp_path, "label,item,judge\n0,i1,w1\n1,i1,w2\n1,i2,w1\n1,i2,w3\n", "moved.csv")
    assert read_labels(moved).values.tolist() == expected
    crowdkit = csv(tmp_path, "worker,task,label\nw1,i1,0\nw2,i1,1\nw1,i2,1\nw3,i2,1\n", "crowdkit.csv")
    assert read_labels(crowdkit).values.tolist() == expected
    extra = csv(tmp_path, "item,judge,label,time\ni1,w1,0,3\ni1,w2,1,4\ni2,w1,1,5\ni2,w3,1,6\n", "extra.csv")
    with pytest.warns(DataWarning, match="ignoring column\\(s\\) 'time'"):
        assert read_labels(extra).values.tolist() == expected


def test_header_message_names_missing_and_extra(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,lab\ni,w,0\n")
    with pytest.raises(DataError, match="missing column\\(s\\) label; unexpected column\\(s\\) lab"):
        read_labels(path)


def test_empty_table_and_empty_file(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\n")
    with pytest.raises(DataError, match="no data rows") as err:
        read_labels(path)
    assert_located(err, path, 1, "item,judge,label")
    empty = csv(tmp_path, "", "empty.csv")
    with pytest.raises(DataError) as err:
        read_labels(empty)
    assert_located(err, empty, 1, "(empty file)")


@pytest.mark.parametrize("value", ["2.5", "x", "1e3", " 1", "+1"])
def test_non_integer_label(tmp_path: Path, value: str) -> None:
    path = csv(tmp_path, f"item,judge,label\ni1,w1,0\ni1,w2,{value}\n")
    with pytest.raises(DataError, match="integer class code") as err:
        read_labels(path)
    assert_located(err, path, 3, value)


def test_negative_label(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2,1\ni2,w1,-1\n")
    with pytest.raises(DataError, match="0 or more") as err:
        read_labels(path)
    assert_located(err, path, 4, "-1")


def test_huge_label_code(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2,1000\n")
    with pytest.raises(DataError, match="above 999") as err:
        read_labels(path)
    assert_located(err, path, 3, "1000")
    assert read_labels(csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2,0999\n", "z.csv"))["label"].tolist() == [0, 999]


def test_label_outside_classes(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,a\ni1,w2,b\ni2,w1,c\n")
    with pytest.raises(DataError, match="not one of the classes a, b") as err:
        read_labels(path, classes=["a", "b"])
    assert_located(err, path, 4, "c")


def test_bad_classes_argument(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="two classes"):
        read_labels(csv(tmp_path, GOOD), classes=["a"])
    with pytest.raises(ValueError, match="repeat"):
        read_labels(csv(tmp_path, GOOD), classes=[1, "1"])
    with pytest.raises(ValueError, match="duplicates must be"):
        read_labels(csv(tmp_path, GOOD), duplicates="drop")


@pytest.mark.parametrize(
    ("row", "column", "value"),
    [(",w2,1", "item", ""), ("i1, ,1", "judge", " "), ("i1,w2,", "label", "")],
)
def test_empty_fields(tmp_path: Path, row: str, column: str, value: str) -> None:
    path = csv(tmp_path, f"item,judge,label\ni1,w1,0\n{row}\ni2,w1,1\n")
    with pytest.raises(DataError, match=f"empty {column}") as err:
        read_labels(path)
    assert_located(err, path, 3, value)


def test_first_fault_in_file_order_wins(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2,x\n,w3,1\n")
    with pytest.raises(DataError) as err:
        read_labels(path)
    assert err.value.line == 3  # the bad label comes before the empty item of line 4
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\n,w2,1\ni2,w3,x\n", "b.csv")
    with pytest.raises(DataError, match="empty item") as err:
        read_labels(path)
    assert err.value.line == 3


def test_repeated_pair_names_both_lines(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2,1\ni2,w1,1\ni1,w2,0\n")
    with pytest.raises(DataError) as err:
        read_labels(path)
    assert_located(err, path, 5, "i1,w2,0")
    assert "already labelled on line 3" in str(err.value)


def test_duplicate_rules_match_pandas(tmp_path: Path) -> None:
    text = "item,judge,label\ni1,w1,0\ni1,w2,1\ni1,w1,1\ni2,w1,1\ni1,w1,0\ni2,w2,0\n"
    path = csv(tmp_path, text)
    raw = pd.read_csv(path, dtype={"item": str, "judge": str})
    keep = read_labels(path, duplicates="keep")
    assert keep.values.tolist() == raw.values.tolist()
    for rule in ("first", "last"):
        table = read_labels(path, duplicates=rule)
        expected = raw.drop_duplicates(["item", "judge"], keep=rule)
        assert table.values.tolist() == expected.values.tolist()
        assert list(table.attrs["lines"]) == (expected.index + 2).tolist()


def test_fewer_than_two_judges(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni2,w1,1\n")
    with pytest.raises(DataError, match="at least two judges") as err:
        read_labels(path)
    assert_located(err, path, 2, "w1")


def test_wrong_field_count(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\ni1,w1,0\ni1,w2\n")
    with pytest.raises(DataError, match="expected 3") as err:
        read_labels(path)
    assert_located(err, path, 3, "i1,w2")


# --- reading truth ---------------------------------------------------------------------------


def test_read_truth(tmp_path: Path) -> None:
    labels = read_labels(csv(tmp_path, GOOD))
    truth = read_truth(csv(tmp_path, "item,truth\ni2,1\ni1,0\n", "truth.csv"), labels=labels)
    assert list(truth.columns) == _LABEL_TRUTH_COLUMNS
    assert truth.values.tolist() == [["i2", 1], ["i1", 0]]
    assert truth["truth"].dtype == np.int64
    assert list(truth.attrs["lines"]) == [2, 3]
    assert read_truth(csv(tmp_path, "item,truth\nanything,3\n", "free.csv"))["truth"].tolist() == [3]


def test_truth_item_without_labels(tmp_path: Path) -> None:
    labels = read_labels(csv(tmp_path, GOOD))
    path = csv(tmp_path, "item,truth\ni1,0\ni9,1\ni8,0\n", "truth.csv")
    with pytest.raises(DataError, match="no labels") as err:
        read_truth(path, labels=labels, strict=True)
    assert_located(err, path, 3, "i9")
    for given in (labels, as_crowd_labels(labels)):
        with pytest.warns(DataWarning, match="skipped 2 of 3 truth rows .* first on line 3: 'i9'"):
            truth = read_truth(path, labels=given)
        assert truth.values.tolist() == [["i1", 0]]
        assert list(truth.attrs["lines"]) == [2]


def test_truth_outside_classes(tmp_path: Path) -> None:
    labels = read_labels(csv(tmp_path, GOOD))  # classes 0, 1
    path = csv(tmp_path, "item,truth\ni1,0\ni2,2\n", "truth.csv")
    with pytest.raises(DataError, match="not one of the classes 0, 1") as err:
        read_truth(path, labels=labels)
    assert_located(err, path, 3, "2")
    assert read_truth(path, labels=labels, classes=[0, 1, 2])["truth"].tolist() == [0, 2]
    named = csv(tmp_path, "item,truth\ni1,G\ni2,Q\n", "named.csv")
    with pytest.raises(DataError, match="not one of the classes G, P") as err:
        read_truth(named, classes=["G", "P"])
    assert_located(err, named, 3, "Q")


@pytest.mark.parametrize("value", ["x", "0.5", "-1"])
def test_truth_not_a_code(tmp_path: Path, value: str) -> None:
    path = csv(tmp_path, f"item,truth\ni1,{value}\n", "truth.csv")
    with pytest.raises(DataError, match="truth must be") as err:
        read_truth(path)
    assert_located(err, path, 2, value)


def test_truth_repeated_item(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,truth\ni1,0\ni2,1\ni1,0\n", "truth.csv")
    with pytest.raises(DataError, match="already has a truth on line 2") as err:
        read_truth(path)
    assert_located(err, path, 4, "i1")


def test_truth_header_empty_and_fields(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,label\ni1,0\n", "truth.csv")
    with pytest.raises(DataError, match="missing column\\(s\\) truth") as err:
        read_truth(path)
    assert_located(err, path, 1, "item,label")
    path = csv(tmp_path, "item,truth\n", "empty.csv")
    with pytest.raises(DataError, match="no data rows") as err:
        read_truth(path)
    assert_located(err, path, 1, "item,truth")
    path = csv(tmp_path, "item,truth\ni1,0\n,1\n", "blank.csv")
    with pytest.raises(DataError, match="empty item") as err:
        read_truth(path)
    assert_located(err, path, 3, "")


# --- writing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["labels.tsv", "labels.csv"])
def test_round_trip(tmp_path: Path, name: str) -> None:
    labels = pd.DataFrame({"item": ["a,b", "a,b", "c"], "judge": ["w1", "w 2", "w1"], "label": [2, 0, 1]})
    path = tmp_path / "out" / name
    write_labels(labels, path)
    back = read_labels(path)
    assert back.values.tolist() == labels.values.tolist()
    assert path.read_text(encoding="utf-8").splitlines()[0] == delimited(name, _LABELS_COLUMNS)
    truth = pd.DataFrame({"item": ["c", "a,b"], "truth": [1, 2]})
    truth_path = tmp_path / "out" / name.replace("labels", "truth")
    write_truth(truth, truth_path)
    assert read_truth(truth_path, labels=back).values.tolist() == truth.values.tolist()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([path.name, truth_path.name])


def delimited(name: str, columns: list[str]) -> str:
    return ("," if name.endswith(".csv") else "\t").join(columns)


def test_failed_write_keeps_old_file(tmp_path: Path) -> None:
    path = tmp_path / "labels.tsv"
    write(path, "old\n")
    with pytest.raises(ValueError, match="missing"):
        write_labels(pd.DataFrame({"item": ["a"], "label": [0]}), path)
    with pytest.raises(ValueError, match="missing"):
        write_truth(pd.DataFrame({"item": ["a"]}), path)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["labels.tsv"]


# --- the benchmark parser ---------------------------------------------------------------------


def test_benchmark_repeats_follow_the_authors_rule(tmp_path: Path) -> None:
    text = "item,judge,label\n0,0,1\n0,1,0\n0,0,1\n1,0,0\n0,0,0\n1,1,1\n"
    label_path = csv(tmp_path, text, "label.csv")
    truth_path = csv(tmp_path, "item,truth\n0,1\n1,0\n", "truth.csv")
    data = parse_truth_benchmark(label_path, truth_path)
    raw = pd.read_csv(label_path).drop_duplicates(keep="first")  # the notebooks' rule
    assert data.labels.values.tolist() == raw.astype({"item": str, "judge": str}).values.tolist()
    assert data.repeats == {"duplicate": 1, "duplicate_conflict": 1}
    assert list(data.labels.attrs["lines"]) == (raw.index + 2).tolist()
    assert data.truth.values.tolist() == [["0", 1], ["1", 0]]


def test_benchmark_errors_name_the_file(tmp_path: Path) -> None:
    label_path = csv(tmp_path, "item,judge,label\n0,0,1\n0,1,0\n", "label.csv")
    truth_path = csv(tmp_path, "item,truth\n0,1\n1,7\n", "truth.csv")
    with pytest.raises(DataError) as err:
        parse_truth_benchmark(label_path, truth_path)
    assert_located(err, truth_path, 3, "7")


#: (labels, items, judges, classes, items with truth) of each pinned set
BENCHMARK_COUNTS = {
    "truth_product": (24945, 8315, 176, 2, 8315),
    "truth_senti": (20000, 1000, 85, 2, 1000),
    "truth_rte": (8000, 800, 164, 2, 800),
    "truth_dog": (8070, 807, 109, 4, 807),
    "truth_trec": (88385, 19033, 762, 2, 2275),
}


def test_pinned_benchmark_files() -> None:
    for dataset, folder in _TRUTH_BENCHMARK_FOLDERS.items():
        paths = _pinned_files(dataset)["repo_path"].tolist()
        assert [p.rsplit("/", 1)[1] for p in paths] == ["label.csv", "truth.csv"]
        assert all(p.startswith("yuan-li/truth-inference-at-scale/621789b2d57324d3559dc973b2613d2296d73f55/data/"
                                + folder + "/") for p in paths)
    assert set(_TRUTH_BENCHMARK_FOLDERS) == set(BENCHMARK_COUNTS)


@needs_mirror
@pytest.mark.parametrize("dataset", sorted(BENCHMARK_COUNTS))
def test_benchmark_sets_from_mirror(dataset: str) -> None:
    files = pinned(dataset, MIRROR)  # size and sha256 checked
    data = parse_truth_benchmark(files["label.csv"], files["truth.csv"])
    n_labels, n_items, n_judges, n_classes, n_truth = BENCHMARK_COUNTS[dataset]
    codes = as_crowd_labels(data.labels)  # no repeated pair left: the default "error" rule passes
    assert (codes.n_labels, codes.n_items, codes.n_judges, codes.n_classes) == (
        n_labels, n_items, n_judges, n_classes)
    assert len(data.truth) == n_truth
    assert data.repeats == {"duplicate": 0, "duplicate_conflict": 0}
    raw = pd.read_csv(files["label.csv"])
    assert data.labels["label"].tolist() == raw["label"].tolist()


# --- against pandas' own parse, and memory -----------------------------------------------------


@pytest.mark.parametrize("name", ["labels.tsv", "labels.csv"])
def test_reader_matches_pandas_parse(tmp_path: Path, name: str) -> None:
    rng = np.random.default_rng(5)
    items = [f"doc {k}" for k in range(40)] + ["007", "7", "ü-é", "a,b"]
    rows = {(items[rng.integers(len(items))], f"w{rng.integers(12)}") for _ in range(300)}
    frame = pd.DataFrame(sorted(rows), columns=["item", "judge"]).sample(frac=1.0, random_state=1)
    frame["label"] = rng.integers(0, 4, len(frame))
    path = tmp_path / name
    frame.to_csv(path, sep="," if name.endswith(".csv") else "\t", index=False)
    parsed = pd.read_csv(path, sep="," if name.endswith(".csv") else "\t", dtype=str, keep_default_na=False)
    table = read_labels(path)
    assert table["item"].tolist() == parsed["item"].tolist()
    assert table["judge"].tolist() == parsed["judge"].tolist()
    assert table["label"].dtype == np.int64 and table["label"].tolist() == parsed["label"].astype(int).tolist()
    codes = read_crowd_labels(path)
    assert codes.item.dtype == np.int32 and codes.label.dtype == np.int32
    assert [str(i) for i in codes.items[codes.item]] == parsed["item"].tolist()
    assert [str(w) for w in codes.judges[codes.judge]] == parsed["judge"].tolist()
    assert list(codes.items) == sorted(set(parsed["item"]))  # not all digit strings: text order
    truth = pd.DataFrame({"item": list(dict.fromkeys(parsed["item"])), "truth": 1})
    truth_path = tmp_path / ("truth" + path.suffix)
    truth.to_csv(truth_path, sep="," if name.endswith(".csv") else "\t", index=False)
    assert read_truth(truth_path, labels=codes).values.tolist() == truth.values.tolist()


def test_digit_ids_in_natural_order(tmp_path: Path) -> None:
    path = csv(tmp_path, "item,judge,label\n10,2,0\n2,10,1\n007,2,1\n7,10,0\n")
    codes = read_crowd_labels(path)
    assert list(codes.items) == ["2", "007", "7", "10"] and list(codes.judges) == ["2", "10"]


def test_memory_per_label(tmp_path: Path) -> None:
    """The labels held as codes take 12 bytes each; reading peaks under 32 bytes a label and a Dawid-Skene
    fit under 44 more: 32 for the fit, and 12 for the copy of the codes sorted by (item, judge, label) that
    every fit runs on when the rows are not in that order, as here (numpy's allocations, traced; pyarrow's
    parse buffers are not traced and are freed when the read ends)."""
    import tracemalloc

    from manyjudges.truth import DawidSkene
    from manyjudges.truth.simulate import _write_simulated_labels

    n_items, per_item = 20_000, 10
    path = tmp_path / "big.tsv"
    _write_simulated_labels(path, None, n_items=n_items, labels_per_item=per_item, n_judges=100, seed=2)
    n = n_items * per_item
    tracemalloc.start()
    try:
        codes = read_crowd_labels(path)
        held, peak = tracemalloc.get_traced_memory()
        assert codes.n_labels == n
        assert held / n < 13 and peak / n < 32
        tracemalloc.reset_peak()
        DawidSkene().fit(codes)
        fit_peak = tracemalloc.get_traced_memory()[1] - held
        assert fit_peak / n < 44
    finally:
        tracemalloc.stop()
