"""Stray classes (core.stray_classes): codes outside the others and rare classes, warned about when the classes are
read from the labels, in both doors (as_crowd_labels, read_crowd_labels); silent with the classes given."""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.core.data_warning import DataWarning
from manyjudges.core.stray_classes import (
    _OUTSIDE_SHARE,
    _RARE_SHARE,
    StrayClassesWarning,
    _outside_codes,
    _rare_classes,
    _stray_class_messages,
)
from manyjudges.io.engine.errors import DataWarning as IoDataWarning
from manyjudges.io.tables.labels import read_crowd_labels
from manyjudges.truth import MajorityVote


def panel(n: int = 10_000, k: int = 4, seed: int = 0) -> pd.DataFrame:
    """n labels 0..k-1, five a item, from 100 judges (no judge twice on an item)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"item": np.arange(n) // 5, "judge": np.arange(n) % 5 + 5 * rng.integers(0, 20, n),
                         "label": rng.integers(0, k, n)})


def with_strays(frame: pd.DataFrame) -> pd.DataFrame:
    """The panel with labels 5, 5 and 10 among its codes 0-3 (rows 10, 50 and 90)."""
    out = frame.copy()
    out.loc[[10, 50], "label"] = 5
    out.loc[90, "label"] = 10
    return out


def stray_warnings(call, *args, **kwargs) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args, **kwargs)
    return [str(w.message) for w in caught if issubclass(w.category, StrayClassesWarning)]


def test_the_warning_is_the_projects_data_warning():
    assert IoDataWarning is DataWarning and issubclass(StrayClassesWarning, DataWarning)


def test_codes_outside_the_others_are_named_with_their_counts():
    frame = with_strays(panel())
    messages = stray_warnings(as_crowd_labels, frame)
    assert messages == ["labels: codes 5 (2 labels) and 10 (1 label) lie outside 0-3, which hold 9,997 of the "
                        "10,000 labels; the classes are 0-10, and the 5 of them that no label uses still get a "
                        "posterior column; give the classes with --labels (or classes=) if these are real, or fix "
                        "those labels"]
    # the fit on the table says so too, and still fits the eleven classes it was given
    messages = stray_warnings(MajorityVote().fit, frame)
    assert len(messages) == 1 and "codes 5 (2 labels) and 10 (1 label)" in messages[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrayClassesWarning)
        assert MajorityVote().fit(frame.astype({"label": float})).proba_.shape[1] == 11


def test_the_classes_given_silence_it():
    frame = with_strays(panel())
    assert stray_warnings(as_crowd_labels, frame, classes=[0, 1, 2, 3, 5, 10]) == []
    assert stray_warnings(MajorityVote().fit, frame, classes=list(range(11))) == []


def test_a_rare_class_from_one_judge_is_named_and_one_several_judges_gave_is_not():
    frame = panel(k=2)
    frame["label"] = frame["label"].map({0: "no", 1: "yes"})
    frame.loc[77, "label"] = "yse"  # a typo: one label of judge frame.judge[77]
    judge = frame.loc[77, "judge"]
    assert stray_warnings(as_crowd_labels, frame) == [
        f"labels: class 'yse' (1 label, all from judge {judge}) holds under 0.1% of the 10,000 labels and no other "
        "judge gave it; give the classes with --labels (or classes=) if it is real, or fix those labels"]
    assert stray_warnings(as_crowd_labels, frame, classes=["no", "yes", "yse"]) == []
    # a real rare grade: the top code of a scale, given by three judges (as on the LLMJudge runs of one team)
    codes = panel(k=3)
    rows = codes.index[codes["item"].isin([7, 9, 11]) & (codes.index % 5 == 0)]
    codes.loc[rows, "label"] = 3
    assert codes.loc[rows, "judge"].nunique() == 3
    assert stray_warnings(as_crowd_labels, codes) == []
    codes.loc[rows, "judge"] = codes.loc[rows[0], "judge"] + 1000  # one judge (new to those items) gave all three
    assert stray_warnings(as_crowd_labels, codes) == [
        f"labels: class 3 (3 labels, all from judge {codes.loc[rows[0], 'judge']}) holds under 0.1% of the 10,000 "
        "labels and no other judge gave it; give the classes with --labels (or classes=) if it is real, or fix those "
        "labels"]


def test_no_warning_on_ordinary_panels():
    from manyjudges.truth.scenarios import simulated_suite

    for name, (labels, *_) in simulated_suite(0).items():
        assert stray_warnings(as_crowd_labels, labels) == [], name
    grades = panel(k=6)  # grades 1-5, the code 0 unused: a gap below the lowest code, not between codes
    grades["label"] = grades["label"].clip(lower=1)
    assert stray_warnings(as_crowd_labels, grades) == []
    skipped = panel(k=2)  # codes 0, 1 and 3, the 3 on 5% of the labels: a code left unused, no stray
    skipped.loc[skipped.index % 20 == 0, "label"] = 3
    assert stray_warnings(as_crowd_labels, skipped) == []


def test_of_a_few_labels_the_one_share_decides():
    """5, 5 and 10 among 200 labels are 1.5% of them, too many to be outside 0-3; the 10 alone, 0.5%, is outside."""
    small = with_strays(panel(n=200))
    messages = stray_warnings(as_crowd_labels, small)
    assert len(messages) == 1 and messages[0].startswith("labels: code 10 (1 label) lies outside 0-5, which hold 199 "
                                                         "of the 200 labels")


def test_the_same_labels_in_any_row_order_give_the_same_warning():
    frame = with_strays(panel())
    frame.loc[3, "label"] = 4  # now 0-5 run on: 10 alone is outside them, and 4 is rare (one label)
    first = stray_warnings(as_crowd_labels, frame)
    assert [m.split(" (")[0] for m in first] == ["labels: code 10", "labels: class 4"]
    shuffled = frame.sample(frac=1.0, random_state=3)
    assert stray_warnings(as_crowd_labels, shuffled) == first


def brute_outside(counts: list[int], share: float) -> list[int]:
    """The outside codes by a direct loop over every gap, lowest first."""
    used = [c for c, n in enumerate(counts) if n > 0]
    total = sum(counts)
    for a, b in zip(used, used[1:]):
        if b - a > 1 and sum(counts[b:]) <= share * total:
            return [c for c in used if c >= b]
    return []


def test_outside_codes_equal_a_direct_loop():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        k = int(rng.integers(2, 9))
        counts = rng.integers(0, 3, k) * rng.integers(0, 400, k) + (rng.random(k) < 0.3)
        assert _outside_codes(counts).tolist() == brute_outside(counts.tolist(), _OUTSIDE_SHARE), counts
    for counts in itertools.product([0, 1, 50, 1000], repeat=4):
        assert _outside_codes(np.array(counts)).tolist() == brute_outside(list(counts), _OUTSIDE_SHARE), counts


def test_rare_classes_equal_pandas():
    rng = np.random.default_rng(2)
    for seed in range(30):
        n = 3000
        label = np.where(rng.random(n) < 0.003, rng.integers(2, 6, n), rng.integers(0, 2, n))
        judge = np.where(label > 1, rng.integers(0, 3, n), rng.integers(0, 50, n))
        counts = np.bincount(label, minlength=6)
        frame = pd.DataFrame({"label": label, "judge": judge})
        per = frame.groupby("label")["judge"].agg(["size", "nunique", "min"])
        expected = per[(per["size"] < _RARE_SHARE * n) & (per["nunique"] == 1)]
        got, their = _rare_classes(counts, label, judge)
        assert got.tolist() == expected.index.tolist(), seed
        assert their.tolist() == expected["min"].tolist(), seed


def test_messages_name_a_few_and_count_the_rest():
    counts = np.array([5000, 5000, 0, 1, 1, 1, 1, 1, 1, 1])
    label = np.repeat(np.arange(10), counts)
    messages = _stray_class_messages(label, np.arange(len(label)) % 7, np.arange(10), np.arange(7), codes=True)
    assert messages[0].startswith("codes 3 (1 label), 4 (1 label), 5 (1 label), 6 (1 label) and 3 more lie outside "
                                  "0-1, which hold 10,000 of the 10,007 labels")


def test_the_file_reader_names_the_file(tmp_path):
    path = tmp_path / "labels.tsv"
    with_strays(panel()).to_csv(path, sep="\t", index=False)
    for sort in (False, True):
        messages = stray_warnings(read_crowd_labels, path, sort=sort)
        assert messages == [f"{path}: codes 5 (2 labels) and 10 (1 label) lie outside 0-3, which hold 9,997 of the "
                            "10,000 labels; the classes are 0-10, and the 5 of them that no label uses still get a "
                            "posterior column; give the classes with --labels (or classes=) if these are real, or fix "
                            "those labels"]
    assert stray_warnings(read_crowd_labels, path, classes=[0, 1, 2, 3, 5, 10]) == []


@pytest.mark.parametrize("codes", [True, False])
def test_one_class_alone_is_no_stray(codes):
    label = np.zeros(5000, dtype=np.int64)
    assert _stray_class_messages(label, np.arange(5000) % 3, np.arange(2), np.arange(3), codes) == []
