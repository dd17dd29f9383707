"""Coding a labels table: ids, repeated (item, judge) rows, and the row-wise argmax, against pandas / numpy."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth.base import _row_argmax
from manyjudges.truth.methods.majority_vote import _first_seen_order


def _table(seed: int, n: int = 400, string_ids: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    item, judge = rng.integers(0, 60, n), rng.integers(0, 12, n)
    table = pd.DataFrame({"item": item, "judge": judge, "label": rng.integers(0, 3, n)})
    if string_ids:
        table["item"] = [f"doc-{i:03d}" for i in item]
        table["judge"] = [f"w{w}" for w in judge]
    return table


def _decoded(data) -> pd.DataFrame:
    return pd.DataFrame({"item": np.asarray(data.items)[data.item], "judge": np.asarray(data.judges)[data.judge],
                         "label": np.asarray(data.classes)[data.label]})


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("keep", ["first", "last"])
def test_kept_rows_are_pandas_drop_duplicates(seed, keep, string_ids):
    table = _table(seed, string_ids=string_ids)
    data = as_crowd_labels(table, duplicates=keep)
    expected = table.drop_duplicates(["item", "judge"], keep=keep).reset_index(drop=True)
    pd.testing.assert_frame_equal(_decoded(data), expected, check_dtype=False)
    assert list(data.items) == sorted(table["item"].unique())
    assert list(data.judges) == sorted(table["judge"].unique())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_repeat_error_names_the_first_repeated_row(seed):
    table = _table(seed, string_ids=True)
    row = int(np.flatnonzero(table.duplicated(["item", "judge"]).to_numpy())[0])
    first = table.iloc[row]
    with pytest.raises(ValueError, match=rf"row {row + 1} repeats \(item, judge\) = \('{first['item']}', "
                                         rf"'{first['judge']}'\)"):
        as_crowd_labels(table)
    kept = as_crowd_labels(table, duplicates="keep")
    pd.testing.assert_frame_equal(_decoded(kept), table, check_dtype=False)


def test_integer_ids_coded_as_factorize_sorts_them():
    for ids in (np.array([7, 3, 3, 0, 7, 12]), np.array([10**9, 5, 10**9, -2])):  # presence table; hashing
        table = pd.DataFrame({"item": ids, "judge": np.arange(len(ids)), "label": 0})
        data = as_crowd_labels(table)
        codes, uniques = pd.factorize(pd.Series(ids), sort=True)
        np.testing.assert_array_equal(data.item, codes)
        np.testing.assert_array_equal(np.asarray(data.items), uniques)
        assert data.items.name == "item" and data.judges.name == "judge"


@pytest.mark.parametrize("k", [2, 3, 7])
def test_row_argmax_is_numpy_argmax_lowest_on_ties(k):
    scores = np.random.default_rng(k).integers(0, 3, (500, k)).astype(float)  # many exact ties
    np.testing.assert_array_equal(_row_argmax(scores), np.argmax(scores, axis=1))


@pytest.mark.parametrize("k", [3, 40])
def test_first_seen_order_is_pandas_unique(k):
    rng = np.random.default_rng(k)
    label = rng.integers(0, k, 300)
    label[label == 1] = 2  # class 1 unused: it goes last
    data = as_crowd_labels(pd.DataFrame({"item": rng.integers(0, 50, 300), "judge": np.arange(300),
                                         "label": label}))
    seen = pd.unique(data.label)
    expected = np.concatenate([seen, np.setdiff1d(np.arange(data.n_classes), seen)])
    np.testing.assert_array_equal(_first_seen_order(data), expected)


def test_float_labels_are_codes_when_whole_else_an_error_naming_the_row():
    whole = pd.DataFrame({"item": [1, 2, 2], "judge": [3, 3, 4], "label": [0.0, 2.0, 2.0]})
    data = as_crowd_labels(whole)
    assert list(data.classes) == [0, 1, 2] and list(data.label) == [0, 2, 2]
    for bad, shown in ((0.5, "0.5"), (np.inf, "inf")):
        table = whole.assign(label=[0.0, bad, 1.0])
        with pytest.raises(ValueError, match=rf"row 2 has label {shown}; a label is an integer class code"):
            as_crowd_labels(table)


def test_messages_show_plain_values():
    with pytest.raises(ValueError, match=r"\(item, judge\) = \(1, 3\)"):
        as_crowd_labels(pd.DataFrame({"item": [1, 1], "judge": [3, 3], "label": [0, 1]}))


def test_classes_are_read_after_dropping_repeats():
    table = pd.DataFrame({"item": [1, 1, 2], "judge": [1, 1, 1], "label": ["a", "c", "b"]})
    data = as_crowd_labels(table, duplicates="first")
    assert list(data.classes) == ["a", "b"] and list(data.label) == [0, 1]
    assert list(as_crowd_labels(table, duplicates="last").classes) == ["b", "c"]
    ints = table.assign(label=[0, 5, 1])
    assert as_crowd_labels(ints, duplicates="first").n_classes == 2
    with pytest.raises(ValueError, match=r"row 2 has label 'z'"):  # a kept row's bad label: its row in the table
        as_crowd_labels(table.assign(label=["a", "z", "b"]), duplicates="last", classes=["a", "b"])


@pytest.mark.parametrize("column", ["item", "judge", "label"])
def test_missing_values_in_nullable_integer_columns_name_the_row(column):
    table = pd.DataFrame({"item": [1, 2, 3], "judge": [1, 1, 2], "label": [0, 1, 1]})
    table[column] = pd.array([table[column].iloc[0], None, table[column].iloc[2]], dtype="Int64")
    with pytest.raises(ValueError, match=rf"row 2 has no {column}"):
        as_crowd_labels(table)


def test_label_kinds_match_their_class_names():
    one = pd.DataFrame({"item": [1, 2], "judge": [1, 1], "label": ["yes", "yes"]})
    with pytest.raises(ValueError, match="every label is 'yes'; declare the classes"):
        as_crowd_labels(one)
    assert list(as_crowd_labels(one, classes=["no", "yes"]).label) == [1, 1]
    flags = as_crowd_labels(one.assign(label=[True, False]))
    assert list(flags.classes) == ["False", "True"] and list(flags.label) == [1, 0]
    declared = as_crowd_labels(one.assign(label=[0.0, 2.0]), classes=[0, 1, 2])
    assert list(declared.label) == [0, 2]
    with pytest.raises(ValueError, match="row 1 has label 1e"):
        as_crowd_labels(one.assign(label=[1e20, 0.0]))
    unsigned = as_crowd_labels(one.assign(item=np.array([7, 3], dtype=np.uint64), label=[0, 1]))
    assert list(unsigned.items) == [3, 7] and list(unsigned.item) == [1, 0]


def test_row_argmax_of_one_column():
    np.testing.assert_array_equal(_row_argmax(np.ones((4, 1))), np.zeros(4, dtype=np.int64))


def test_id_positions_against_pandas_get_indexer() -> None:
    from manyjudges.core.coded_labels import id_positions

    rng = np.random.default_rng(3)
    ids = pd.Index([f"i{k}" for k in rng.permutation(50)])
    wanted = pd.Series([f"i{k}" for k in rng.integers(0, 70, 200)])
    assert id_positions(ids, wanted).tolist() == ids.get_indexer(wanted).tolist()
    numbers = pd.Index(np.arange(10, 20))
    assert id_positions(numbers, ["12", "19", "20", "x"]).tolist() == [2, 9, -1, -1]  # compared as text
    assert id_positions(["a", 1, "2"], [1, "2", "a"]).tolist() == [1, 2, 0]
