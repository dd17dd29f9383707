"""Tests for the snow2008 parser (the graded tasks of Snow et al., EMNLP 2008)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from io_helpers import DATA, assert_grades, assert_located, pinned, rows, write

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.snow2008 import _SNOW2008_TASKS, parse_snow2008

GRADES = DATA / "grades"
SNOW_HEADER = "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"


def test_snow_wordsim_fixture() -> None:
    data = parse_snow2008(GRADES / "tiny_snow_wordsim.tsv", "wordsim")
    assert_grades(data)
    assert data.n_classes == 11
    assert data.label_names == [str(v) for v in range(11)]
    assert rows(data.grades) == [
        ["car auto", "A1", 0],
        ["car auto", "A2", 3],
        ["cat dog", "A1", 10],
        ["cat dog", "A2", 7],
    ]
    assert data.dropped == {"duplicate": 0, "duplicate_conflict": 0}
    assert data.truth is None


def test_snow_affect_bins_fixture() -> None:
    data = parse_snow2008(GRADES / "tiny_snow_anger.tsv", "anger")
    assert data.label_names == ["0-19", "20-39", "40-59", "60-79", "80-100"]
    # orig_ids are digit strings: numeric order 1, 2, 3, 4, 10
    assert rows(data.grades) == [
        ["1", "A1", 2], ["1", "A2", 2],
        ["2", "A1", 1], ["2", "A2", 1],
        ["3", "A1", 3], ["3", "A2", 3],
        ["4", "A1", 4], ["4", "A2", 4],
        ["10", "A1", 0], ["10", "A2", 0],
    ]


def test_snow_valence_bins_fixture() -> None:
    data = parse_snow2008(GRADES / "tiny_snow_valence.tsv", "valence")
    assert data.label_names == ["-100..-61", "-60..-21", "-20..19", "20..59", "60..100"]
    by_item = data.grades.groupby("item")["label"].apply(list).to_dict()
    assert by_item == {"10": [0, 0], "2": [1, 1], "1": [2, 2], "3": [3, 3], "4": [4, 4]}


def test_snow_every_task_bins_its_whole_range(tmp_path: Path) -> None:
    for task in _SNOW2008_TASKS:
        low, high = {"wordsim": (0, 10), "valence": (-100, 100), "temp": (1, 2), "wsd": (1, 3)}.get(task, (0, 100))
        lines = [f"h\tW\t{v}\t{v}\t0\n" for v in range(low, high + 1)]
        data = parse_snow2008(write(tmp_path / f"{task}.tsv", SNOW_HEADER + "".join(lines)), task)
        labels = data.grades.set_index("item")["label"]
        labels = [int(labels[str(v)]) for v in range(low, high + 1)]
        assert labels == sorted(labels) and labels[0] == 0 and labels[-1] == data.n_classes - 1
        counts = np.bincount(labels)
        if task in ("wordsim", "temp", "wsd"):  # one label per response
            assert data.n_classes == high - low + 1 and (counts == 1).all()
            assert data.label_names == [str(v) for v in range(low, high + 1)]
        else:
            # equal width; the last bin also holds the top of the range
            width = (high - low) // 5
            assert data.n_classes == 5 and counts.tolist() == [width] * 4 + [width + 1]


def test_snow_unknown_task_lists_supported() -> None:
    with pytest.raises(ValueError, match="unknown snow2008 task 'rte'") as err:
        parse_snow2008(GRADES / "tiny_snow_anger.tsv", "rte")
    for task in _SNOW2008_TASKS:
        assert task in str(err.value)
    assert not isinstance(err.value, DataError)


def test_snow_duplicates_keep_first(tmp_path: Path) -> None:
    text = SNOW_HEADER + "h\tA1\t5\t30\t0\nh\tA1\t5\t35\t0\nh\tA1\t5\t90\t0\n"
    data = parse_snow2008(write(tmp_path / "anger.tsv", text), "anger")
    assert rows(data.grades) == [["5", "A1", 1]]
    assert data.dropped == {"duplicate": 1, "duplicate_conflict": 1}


# --------------------------------------------------------------------------
# bad raw inputs


@pytest.mark.parametrize(
    ("task", "response", "reason"),
    [
        ("anger", "101", "anger response must be in 0..100"),
        ("anger", "-1", "anger response must be in 0..100"),
        ("valence", "-101", "valence response must be in -100..100"),
        ("wordsim", "11", "wordsim response must be in 0..10"),
        ("joy", "12.5", "joy response must be an integer"),
        ("fear", "high", "fear response must be an integer"),
    ],
)
def test_snow_bad_response(tmp_path: Path, task: str, response: str, reason: str) -> None:
    path = write(tmp_path / f"{task}.tsv", SNOW_HEADER + "h\tA1\t1\t0\t0\n" + f"h\tA2\t1\t{response}\t0\n")
    with pytest.raises(DataError, match=reason) as err:
        parse_snow2008(path, task)
    assert_located(err, path, 3, response)


def test_snow_bad_header_and_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "anger.tsv", "judge\titem\tresponse\nA1\t1\t5\n")
    with pytest.raises(DataError, match="header must be") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 1, "judge\titem\tresponse")

    path = write(tmp_path / "anger.tsv", SNOW_HEADER + "h\tA1\t1\t5\t0\th\n")
    with pytest.raises(DataError, match="expected 5 tab-separated fields, got 6") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 2, "h\tA1\t1\t5\t0\th")

    path = write(tmp_path / "anger.tsv", "")
    with pytest.raises(DataError, match="header must be") as err:
        parse_snow2008(path, "anger")
    assert_located(err, path, 1, "(empty file)")


# --------------------------------------------------------------------------
# the real published files (shared mirror)


@pytest.mark.parametrize("task", _SNOW2008_TASKS)
def test_snow2008_real(mirror: Path, task: str) -> None:
    files = pinned(f"snow2008_{task}", mirror)
    assert list(files) == [f"{task}.standardized.tsv"]
    data = parse_snow2008(files[f"{task}.standardized.tsv"], task)
    assert_grades(data)
    g = data.grades
    assert data.dropped == {"duplicate": 0, "duplicate_conflict": 0}
    assert (g.groupby("item").size() == 10).all()
    if task == "wordsim":
        assert (g["item"].nunique(), g["judge"].nunique(), data.n_classes) == (30, 10, 11)
        assert sorted(g["label"].unique()) == list(range(11))  # every response 0..10 occurs
    elif task in ("temp", "wsd"):
        rows = [line.split("\t") for line in files[f"{task}.standardized.tsv"].read_text().splitlines()[1:]]
        direct = (len({r[2] for r in rows}), len({r[1] for r in rows}), len({r[3] for r in rows}))
        assert (g["item"].nunique(), g["judge"].nunique(), data.n_classes) == direct
        assert direct == {"temp": (462, 76, 2), "wsd": (177, 34, 3)}[task]
        assert len(g) == len(rows)
    else:
        assert (g["item"].nunique(), g["judge"].nunique(), data.n_classes) == (100, 38, 5)
        assert sorted(g["label"].unique()) == list(range(5))


def test_snow_affect_gold_is_binned_like_the_responses(tmp_path: Path) -> None:
    from manyjudges.io.sources.snow2008 import snow2008_gold

    header = "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
    rows = "a1\tw1\t7\t10\t19\na2\tw2\t7\t90\t19\na3\tw1\t8\t50\t100\na4\tw2\t8\t55\t100\na5\tw1\t9\t0\t40\n"
    path = tmp_path / "anger.standardized.tsv"
    path.write_text(header + rows)
    gold = snow2008_gold(path, "anger")
    assert gold.to_dict("list") == {"item": ["7", "8", "9"], "truth": [0, 4, 2]}
    path.write_text(header + rows + "a6\tw2\t9\t3\t60\n")
    with pytest.raises(DataError, match=r"line 7.*two different gold"):
        snow2008_gold(path, "anger")
    with pytest.raises(DataError, match=r"line 2: wordsim gold must be a number in 0\.\.4: '19'"):
        snow2008_gold(path, "wordsim")
    with pytest.raises(ValueError, match="unknown snow2008 task 'rte'"):
        snow2008_gold(path, "rte")


def test_snow_wordsim_gold_maps_0_4_onto_0_10(tmp_path: Path) -> None:
    from manyjudges.io.sources.snow2008 import snow2008_gold

    header = "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
    golds = {"a b": "0.33", "c d": "1.00", "e f": "1.20", "g h": "3.62", "i j": "4.00", "k l": "0"}
    path = write(tmp_path / "wordsim.tsv", header + "".join(f"x\tw\t{i}\t5\t{g}\n" for i, g in golds.items()))
    gold = snow2008_gold(path, "wordsim")
    # 2.5 * gold rounded half up, by hand: 0.825 -> 1, 2.5 -> 3, 3.0 -> 3, 9.05 -> 9, 10, 0
    assert gold.to_dict("list") == {"item": list(golds), "truth": [1, 3, 3, 9, 10, 0]}


@pytest.mark.parametrize(("task", "value"), [("temp", "3"), ("wsd", "0"), ("wsd", "x")])
def test_snow_categorical_gold_out_of_range(tmp_path: Path, task: str, value: str) -> None:
    from manyjudges.io.sources.snow2008 import snow2008_gold

    header = "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
    path = write(tmp_path / f"{task}.tsv", header + "x\tw\ti1\t1\t1\nx\tw\ti2\t1\t" + value + "\n")
    with pytest.raises(DataError) as err:
        snow2008_gold(path, task)
    assert_located(err, path, 3, value)


@pytest.mark.parametrize("task", ["temp", "wsd", "wordsim", "valence"])
def test_snow2008_gold_real(mirror: Path, task: str) -> None:
    from manyjudges.io.sources.snow2008 import snow2008_gold

    path = pinned(f"snow2008_{task}", mirror)[f"{task}.standardized.tsv"]
    gold = snow2008_gold(path, task)
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:]]
    direct: dict[str, float] = {r[2]: float(r[4]) for r in rows}
    assert len(gold) == len(direct) == {"temp": 462, "wsd": 177, "wordsim": 30, "valence": 100}[task]
    expected = {
        "temp": lambda v: int(v) - 1, "wsd": lambda v: int(v) - 1,
        "wordsim": lambda v: int(v * 2.5 + 0.5), "valence": lambda v: min(int((v + 100) // 40), 4),
    }[task]
    assert dict(zip(gold["item"], gold["truth"])) == {i: expected(v) for i, v in direct.items()}
