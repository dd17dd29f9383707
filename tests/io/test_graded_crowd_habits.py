"""The graded and crowd families' tables (grades, preferences, crowd truth) on the columnar reader:
the column habits, duplicates rules, label names, and the values against pandas' own parse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from io_helpers import assert_located, write

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.engine.columnar import ExtraColumnsWarning
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.grades import read_grades_table
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.truth import read_truth

GRADES = "item\tjudge\tlabel\n10\tb\t1\n2\ta\t0\n2\tb\t2\n10\ta\t0\n"
PREFS = "topic\tjudge\tleft\tright\toutcome\nq1\tw1\ta\tb\tleft\nq1\tw2\tb\tc\ttie\nq2\tw1\tc\ta\tright\n"
TRUTH = "topic\titem\tgrade\nq1\ta\t2\nq1\tb\t0\nq2\tc\t1\n"


def reorder(text: str, order: list[int], sep: str = "\t", rename: dict[str, str] | None = None,
            extra: str | None = None) -> str:
    """The table with its columns in ``order``, header names renamed, and an extra column appended."""
    rows = [line.split(sep) for line in text.splitlines()]
    out = []
    for r, fields in enumerate(rows):
        fields = [fields[i] for i in order]
        if r == 0 and rename:
            fields = [rename.get(f, f) for f in fields]
        if extra is not None:
            fields.append(extra if r == 0 else f"x{r}")
        out.append(sep.join(fields))
    return "\n".join(out) + "\n"


# --- pandas' own parse of the same files: values, dtypes, ids ---------------------------------------


def test_grades_against_pandas(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [(str(i), f"j{j}", int(rng.integers(0, 4))) for i in rng.permutation(30) for j in rng.permutation(5)
            if rng.random() < 0.8]
    for name, sep in (("g.tsv", "\t"), ("g.csv", ",")):
        path = write(tmp_path / name, sep.join(["label", "worker", "task"]) + "\n"
                     + "".join(f"{lab}{sep}{j}{sep}{i}\n" for i, j, lab in rows))
        data = read_grades_table(path, 4)
        ours = data.grades
        theirs = pd.read_csv(path, sep=sep, dtype=str)
        theirs = pd.DataFrame({"item": theirs["task"], "judge": theirs["worker"],
                               "label": theirs["label"].astype(np.int64)})
        items, judges = natural_sort(set(theirs["item"])), natural_sort(set(theirs["judge"]))
        theirs = theirs.assign(i=theirs["item"].map(items.index), j=theirs["judge"].map(judges.index))
        theirs = theirs.sort_values(["i", "j"]).drop(columns=["i", "j"])
        pd.testing.assert_frame_equal(ours, theirs.reset_index(drop=True))
        assert ours["label"].dtype == np.int64 and ours["item"].map(type).eq(str).all()
        assert ours["item"].tolist()[:1] == [items[0]]  # "2" before "10": natural order
        # each row's line: the header is line 1
        lines = np.asarray(data.grades.attrs["lines"])
        original = pd.read_csv(path, sep=sep, dtype=str)
        for k in (0, len(ours) - 1):
            row = original.iloc[lines[k] - 2]
            assert (row["task"], row["worker"], int(row["label"])) == tuple(ours.iloc[k])


def test_preferences_and_truth_against_pandas(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    rows = []
    for t in ("q2", "q10", "q1"):
        for w in ("w1", "w2", "007"):
            for _ in range(6):
                a, b = rng.choice(["a", "b", "c", "d"], 2, replace=False)
                rows.append((t, w, a, b, rng.choice(["left", "right", "tie"])))
    for name, sep in (("p.tsv", "\t"), ("p.csv", ",")):
        path = write(tmp_path / name, sep.join(["outcome", "worker", "topic", "right", "left"]) + "\n"
                     + "".join(sep.join([o, w, t, b, a]) + "\n" for t, w, a, b, o in rows))
        ours = read_preferences(path)
        theirs = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False).rename(columns={"worker": "judge"})
        pd.testing.assert_frame_equal(ours, theirs[["topic", "judge", "left", "right", "outcome"]])
        assert ours["judge"].tolist()[:3] == ["w1"] * 3 and "007" in set(ours["judge"])  # ids verbatim
    for name, sep in (("t.tsv", "\t"), ("t.csv", ",")):
        path = write(tmp_path / name, sep.join(["grade", "task", "topic"]) + "\n"
                     + "".join(f"{g}{sep}{i}{sep}{t}\n"
                               for t, i, g in (("q1", "007", 2), ("q1", "7", 0), ("q2", "a", 1))))
        ours = read_truth(path)
        theirs = pd.read_csv(path, sep=sep, dtype=str).rename(columns={"task": "item"})
        theirs = theirs[["topic", "item", "grade"]].astype({"grade": np.int64})
        pd.testing.assert_frame_equal(ours, theirs)
        assert ours["item"].tolist() == ["007", "7", "a"]


# --- column habits -------------------------------------------------------------------------------


@pytest.mark.parametrize("rename", [{}, {"judge": "worker"}, {"item": "task"}, {"judge": "worker", "item": "task"}])
@pytest.mark.parametrize("order", [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
def test_grades_header_synonyms_and_order(tmp_path: Path, rename: dict, order: list[int]) -> None:
    expected = read_grades_table(write(tmp_path / "plain.tsv", GRADES), 3).grades
    path = write(tmp_path / "g.tsv", reorder(GRADES, order, rename=rename))
    pd.testing.assert_frame_equal(read_grades_table(path, 3).grades, expected)


def test_extra_columns_are_ignored_with_a_warning(tmp_path: Path) -> None:
    cases = [(GRADES, [0, 1, 2], lambda p: read_grades_table(p, 3).grades),
             (PREFS, [0, 1, 2, 3, 4], read_preferences), (TRUTH, [0, 1, 2], read_truth)]
    for k, (text, order, read) in enumerate(cases):
        expected = read(write(tmp_path / f"plain{k}.tsv", text))
        path = write(tmp_path / f"extra{k}.tsv", reorder(text, order[::-1], extra="comment"))
        with pytest.warns(ExtraColumnsWarning, match="comment"):
            got = read(path)
        pd.testing.assert_frame_equal(got, expected)


def test_preferences_worker_for_judge(tmp_path: Path) -> None:
    expected = read_preferences(write(tmp_path / "plain.tsv", PREFS))
    path = write(tmp_path / "p.tsv", reorder(PREFS, [4, 3, 2, 1, 0], rename={"judge": "worker"}))
    pd.testing.assert_frame_equal(read_preferences(path), expected)


def test_a_missing_column_names_what_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path / "p.tsv", "topic\twho\tleft\tright\toutcome\nq\tw\ta\tb\tleft\n")
    with pytest.raises(DataError, match="worker for judge.*missing column\\(s\\) judge") as err:
        read_preferences(path)
    assert err.value.line == 1


# --- duplicates ----------------------------------------------------------------------------------

DUP_GRADES = "item\tjudge\tlabel\nd1\ta\t1\nd1\tb\t0\nd1\ta\t2\nd2\ta\t0\nd2\tb\t1\n"


def test_grades_duplicates(tmp_path: Path) -> None:
    path = write(tmp_path / "g.tsv", DUP_GRADES)
    with pytest.raises(DataError, match="grades item 'd1' twice \\(first on line 2\\).*--duplicates first or last"
                       ) as err:
        read_grades_table(path, 3)
    assert_located(err, path, 4, "d1")
    first = read_grades_table(path, 3, duplicates="first").grades
    last = read_grades_table(path, 3, duplicates="last").grades
    assert first["label"].tolist() == [1, 0, 0, 1] and last["label"].tolist() == [2, 0, 0, 1]
    assert list(first.attrs["lines"]) == [2, 3, 5, 6] and list(last.attrs["lines"]) == [4, 3, 5, 6]
    with pytest.raises(ValueError, match="one label per item and judge"):
        read_grades_table(path, 3, duplicates="keep")
    with pytest.raises(ValueError, match="duplicates must be one of"):
        read_grades_table(path, 3, duplicates="all")


def test_preferences_duplicates(tmp_path: Path) -> None:
    path = write(tmp_path / "p.tsv", PREFS + "q1\tw1\ta\tb\tright\nq1\tw1\tb\ta\tleft\n")
    assert read_preferences(path)["outcome"].tolist() == ["left", "tie", "right", "right", "left"]  # keep
    with pytest.raises(DataError, match="already judged on line 2.*--duplicates") as err:
        read_preferences(path, duplicates="error")
    assert_located(err, path, 5, "q1\tw1\ta\tb\tright")
    assert read_preferences(path, duplicates="first")["outcome"].tolist() == ["left", "tie", "right", "left"]
    assert read_preferences(path, duplicates="last")["outcome"].tolist() == ["tie", "right", "right", "left"]


# --- label names in the data ---------------------------------------------------------------------


def test_label_names_in_the_data(tmp_path: Path) -> None:
    path = write(tmp_path / "g.tsv", "item\tjudge\tlabel\nd1\ta\tR\nd1\tb\tG\nd2\ta\tX\nd2\tb\tP\n")
    data = read_grades_table(path, None, ["G", "P", "R", "X"], names_in_data=True)
    assert data.grades["label"].tolist() == [2, 0, 3, 1] and data.n_classes == 4
    assert data.label_names == ["G", "P", "R", "X"]
    codes = write(tmp_path / "codes.tsv", "item\tjudge\tlabel\nd1\ta\t2\nd1\tb\t0\nd2\ta\t3\nd2\tb\t1\n")
    pd.testing.assert_frame_equal(read_grades_table(codes, None, ["G", "P", "R", "X"], names_in_data=True).grades,
                                  data.grades.assign())  # integer codes read as before
    bad = write(tmp_path / "bad.tsv", "item\tjudge\tlabel\nd1\ta\tR\nd1\tb\tG\nd2\ta\tQ\n")
    with pytest.raises(DataError, match="label is not one of the label names G, P, R, X") as err:
        read_grades_table(bad, None, ["G", "P", "R", "X"], names_in_data=True)
    assert_located(err, bad, 4, "Q")
    with pytest.raises(DataError, match="label must be an integer in 0..3") as err:  # names only when asked
        read_grades_table(path, None, ["G", "P", "R", "X"])
    assert_located(err, path, 2, "R")
