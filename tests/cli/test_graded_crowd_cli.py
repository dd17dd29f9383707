"""The column habits of `manyjudges graded` and `manyjudges crowd aggregate`: judge/worker, task for
item, any column order, extra columns (a warning), --duplicates and --labels names."""
import io

import numpy as np
import pandas as pd
import pytest

from manyjudges.cli import main

NAMES = ["G", "P", "R", "X"]


def run(capsys, *argv):
    """(exit status, stdout as a DataFrame or text, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    try:
        table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str, "judge": str, "topic": str})
    except pd.errors.EmptyDataError:
        table = out
    return status, table, err


def grades_rows(seed=5, n_items=10, n_judges=4, k=4):
    rng = np.random.default_rng(seed)
    rows = []
    for i, t in enumerate(rng.integers(0, k, n_items)):
        for j in range(n_judges):
            rows.append((f"d{i}", f"j{j}", int(t if rng.random() < 0.7 else rng.integers(0, k))))
    return rows


def table(path, header, rows, sep="\t"):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def grades(tmp_path):
    return table(tmp_path / "grades.tsv", ["item", "judge", "label"], grades_rows())


@pytest.mark.parametrize("verb", ["evaluate", "predict"])
def test_graded_habits_give_the_same_table(capsys, tmp_path, grades, verb):
    status, expected, _ = run(capsys, "graded", verb, grades, "--method", "m1")
    assert status == 0
    rows = grades_rows()
    variants = {
        "worker.tsv": (["item", "worker", "label"], rows),
        "task.tsv": (["task", "judge", "label"], rows),
        "order.csv": (["label", "worker", "task"], [(lab, j, i) for i, j, lab in rows]),
        "names.tsv": (["judge", "item", "label"], [(j, i, NAMES[lab]) for i, j, lab in reversed(rows)]),
    }
    for name, (header, body) in variants.items():
        path = table(tmp_path / name, header, body, "," if name.endswith(".csv") else "\t")
        extra = ["--labels", ",".join(NAMES)] if name == "names.tsv" else []
        status, got, err = run(capsys, "graded", verb, path, "--method", "m1", *extra)
        assert status == 0, err
        if name == "names.tsv" and verb == "predict":  # the columns are the names
            assert got.columns.tolist() == ["item", *NAMES]
            got.columns = expected.columns
        pd.testing.assert_frame_equal(got, expected)
    path = table(tmp_path / "extra.tsv", ["note", "item", "judge", "label"], [("n", *r) for r in rows])
    status, got, err = run(capsys, "graded", verb, path, "--method", "m1")
    assert status == 0 and "manyjudges: warning:" in err and "'note'" in err
    pd.testing.assert_frame_equal(got, expected)


def test_graded_duplicates(capsys, tmp_path, grades):
    rows = grades_rows()
    _, expected, _ = run(capsys, "graded", "predict", grades, "--method", "m1")
    again = [(rows[0][0], rows[0][1], (rows[0][2] + 1) % 4)]
    first = table(tmp_path / "first.tsv", ["item", "judge", "label"], rows + again)
    status, _, err = run(capsys, "graded", "predict", first, "--method", "m1")
    assert status == 1 and "first.tsv, line 42" in err and "first on line 2" in err and "--duplicates" in err
    status, got, _ = run(capsys, "graded", "predict", first, "--method", "m1", "--duplicates", "first")
    assert status == 0
    pd.testing.assert_frame_equal(got, expected)
    last = table(tmp_path / "last.tsv", ["item", "judge", "label"], again + rows)
    status, got, _ = run(capsys, "graded", "evaluate", last, "--method", "m1", "--duplicates", "last")
    _, wanted, _ = run(capsys, "graded", "evaluate", grades, "--method", "m1")
    assert status == 0
    pd.testing.assert_frame_equal(got, wanted)
    status, _, err = run(capsys, "graded", "evaluate", last, "--method", "m1", "--duplicates", "keep")
    assert status == 2 and "one label per item and judge" in err


def test_graded_label_name_not_in_the_list(capsys, tmp_path):
    rows = [(i, j, NAMES[lab]) for i, j, lab in grades_rows()]
    rows[7] = (rows[7][0], rows[7][1], "Q")
    path = table(tmp_path / "named.tsv", ["item", "judge", "label"], rows)
    status, _, err = run(capsys, "graded", "predict", path, "--method", "m1", "--labels", "G,P,R,X")
    assert status == 1 and "named.tsv, line 9" in err and "'Q'" in err and "G, P, R, X" in err
    status, _, err = run(capsys, "graded", "predict", path, "--method", "m1")  # names without --labels
    assert status == 1 and "named.tsv, line 2" in err and "label must be an integer" in err


PREFS = [(t, w, a, b, "right" if w == "w3" else "left") for t in ("q1", "q2") for w in ("w1", "w2", "w3")
         for a, b in (("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"))]


def test_crowd_preferences_habits(capsys, tmp_path):
    plain = table(tmp_path / "prefs.tsv", ["topic", "judge", "left", "right", "outcome"], PREFS)
    status, expected, _ = run(capsys, "crowd", "aggregate", plain, "--method", "crowdagg_ndcg")
    assert status == 0
    shuffled = table(tmp_path / "shuffled.csv", ["outcome", "worker", "right", "left", "topic", "note"],
                     [(o, w, b, a, t, "x") for t, w, a, b, o in PREFS], ",")
    status, got, err = run(capsys, "crowd", "aggregate", shuffled, "--method", "crowdagg_ndcg")
    assert status == 0 and "manyjudges: warning:" in err and "'note'" in err
    pd.testing.assert_frame_equal(got, expected)


def test_crowd_preferences_duplicates(capsys, tmp_path):
    plain = table(tmp_path / "prefs.tsv", ["topic", "judge", "left", "right", "outcome"], PREFS)
    _, expected, _ = run(capsys, "crowd", "aggregate", plain, "--method", "borda")
    again = table(tmp_path / "again.tsv", ["topic", "judge", "left", "right", "outcome"],
                  PREFS + [("q1", "w1", "a", "b", "right")])
    status, kept, _ = run(capsys, "crowd", "aggregate", again, "--method", "borda")  # default: one more judgment
    assert status == 0 and not kept.equals(expected)
    status, _, err = run(capsys, "crowd", "aggregate", again, "--method", "borda", "--duplicates", "error")
    assert status == 1 and "again.tsv, line 26" in err and "already judged on line 2" in err
    status, got, _ = run(capsys, "crowd", "aggregate", again, "--method", "borda", "--duplicates", "first")
    pd.testing.assert_frame_equal(got, expected)
    status, got, _ = run(capsys, "crowd", "aggregate", again, "--method", "borda", "--duplicates", "keep")
    pd.testing.assert_frame_equal(got, kept)


def test_crowd_ratings_habits(capsys, tmp_path):
    rows = [(f"q1:{d}", w, g) for w in ("u", "v", "w") for d, g in (("a", 2), ("b", 1), ("c", 0), ("d", 1))]
    plain = table(tmp_path / "ratings.tsv", ["item", "judge", "label"], rows)
    status, expected, _ = run(capsys, "crowd", "aggregate", plain, "--method", "borda")
    assert status == 0 and expected["item"].tolist()[0] == "a"
    named = table(tmp_path / "named.tsv", ["label", "worker", "task"], [(["bad", "ok", "good"][g], w, i)
                                                                         for i, w, g in rows])
    status, got, err = run(capsys, "crowd", "aggregate", named, "--method", "borda", "--labels", "bad,ok,good")
    assert status == 0, err
    pd.testing.assert_frame_equal(got, expected)
    again = table(tmp_path / "again.tsv", ["item", "judge", "label"], rows + [("q1:a", "u", 0)])
    status, _, err = run(capsys, "crowd", "aggregate", again, "--method", "borda")
    assert status == 1 and "again.tsv, line 14" in err and "twice" in err
    status, got, _ = run(capsys, "crowd", "aggregate", again, "--method", "borda", "--duplicates", "first")
    pd.testing.assert_frame_equal(got, expected)
    status, _, err = run(capsys, "crowd", "aggregate", again, "--method", "borda", "--duplicates", "keep")
    assert status == 2 and "one label per item and judge" in err


def test_crowd_unknown_header(capsys, tmp_path):
    path = table(tmp_path / "what.tsv", ["topic", "who", "left", "right"], [("q", "w", "a", "b")])
    status, _, err = run(capsys, "crowd", "aggregate", path, "--method", "borda")
    assert status == 1 and "what.tsv, line 1" in err and "in any order" in err
