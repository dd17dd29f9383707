"""Crowd data: source dispatch, writing and loading topics, ratings to preferences."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.crowd.data import load_crowd_dataset, parse_crowd_source, write_crowd_dataset
from manyjudges.crowd.judgments import ratings_to_preferences
from manyjudges.io.tables.truth import read_truth


def test_ratings_to_preferences_matches_a_loop():
    rng = np.random.default_rng(3)
    judge = rng.integers(0, 6, 60)
    item = rng.integers(0, 15, 60)
    keep = ~pd.DataFrame({"w": judge, "i": item}).duplicated().to_numpy()
    judge, item = judge[keep], item[keep]
    grade = rng.integers(0, 3, len(judge))
    got = set(zip(*(a.tolist() for a in ratings_to_preferences(judge, item, grade))))
    expected = set()
    for w in np.unique(judge):
        rated = sorted((i, g) for ww, i, g in zip(judge, item, grade) if ww == w)
        for a in range(len(rated)):
            for b in range(a + 1, len(rated)):
                expected.add((w, rated[a][0], rated[b][0], int(np.sign(rated[a][1] - rated[b][1]))))
    assert got == expected


def test_trec_ratings_round_trip_to_topics(tmp_path):
    raw = tmp_path / "trec-rf10-data.txt"
    raw.write_text("topicID\tworkerID\tdocID\tgold\tlabel\n"
                   "20\tw1\td1\t2\t2\n20\tw1\td2\t0\t0\n20\tw2\td1\t2\t1\n20\tw2\td3\t-1\t1\n30\tw1\td9\t1\t1\n")
    judgments, truth = parse_crowd_source("trec_rf10", {raw.name: raw})
    write_crowd_dataset(judgments, truth, tmp_path / "out")
    data = load_crowd_dataset(tmp_path / "out")
    assert list(data.topics) == ["20", "30"]
    t20 = data.topics["20"]
    assert t20.items.tolist() == ["d1", "d2", "d3"] and t20.has_ratings
    assert sorted(zip(t20.judge.tolist(), t20.left.tolist(), t20.right.tolist(), t20.outcome.tolist())) == [
        (0, 0, 1, 1), (1, 0, 2, 0)]
    assert data.truth == {"20": {"d1": 2, "d2": 0}, "30": {"d9": 1}}


def test_unknown_source_and_missing_file():
    with pytest.raises(ValueError, match="unknown crowd source"):
        parse_crowd_source("nope", {})
    with pytest.raises(ValueError, match="needs the file 'MTurk.qrel'"):
        parse_crowd_source("mirex2005", {"judgments.csv": "x"})


def test_repeated_rating_is_an_error():
    from manyjudges.crowd.judgments import topics_from_ratings

    table = pd.DataFrame({"topic": ["t", "t"], "judge": ["w", "w"], "item": ["a", "a"], "grade": [1, 2]})
    with pytest.raises(ValueError, match="more than once"):
        topics_from_ratings(table)


def test_a_rating_item_is_split_at_its_first_colon_and_its_topic_must_have_truth(tmp_path):
    from manyjudges.io.engine.errors import DataError

    truth = tmp_path / "truth.tsv"
    truth.write_text("topic\titem\tgrade\nq1\thttp://0-101.net\t1\nq1\tb\t0\n")
    spec = {"n_classes": 2, "truth": str(truth)}

    def ratings(*items):
        path = tmp_path / "ratings.tsv"
        path.write_text("item\tjudge\tlabel\n" + "".join(f"{item}\tw{n}\t1\n" for n, item in enumerate(items)))
        return dict(spec, path=str(path)), path

    ok, _ = ratings("q1:http://0-101.net", "q1:b")  # a doc id may hold ':'
    graded, _ = parse_crowd_source("ratings_table", {}, ok)
    write_crowd_dataset(graded, read_truth(truth), tmp_path / "out")
    assert load_crowd_dataset(tmp_path / "out").topics["q1"].items.tolist() == ["b", "http://0-101.net"]

    no_topic, path = ratings("q1:b", "http://0-101.net")  # the topic left out: 'http' is no truth topic
    with pytest.raises(DataError) as err:
        parse_crowd_source("ratings_table", {}, no_topic)
    assert (err.value.path, err.value.line, err.value.value) == (str(path), 3, "http://0-101.net")
    assert str(err.value) == (f"{path}, line 3: topic 'http' has no truth in truth.tsv; items are '<topic>:<doc>', "
                              "the topic one of the truth table's: 'http://0-101.net'")

    for bad in ("nocolon", ":b", "q1:"):
        no_colon, path = ratings("q1:b", "q1:http://0-101.net", bad)
        with pytest.raises(DataError) as err:
            parse_crowd_source("ratings_table", {}, no_colon)
        assert (err.value.line, err.value.value) == (4, bad)
        assert str(err.value) == f"{path}, line 4: a crowd rating's item must be '<topic>:<doc>': {bad!r}"


def test_a_processed_rating_without_a_truth_topic_names_its_line(tmp_path):
    from manyjudges.io.engine.errors import DataError

    out = tmp_path / "out"
    out.mkdir()
    (out / "truth.tsv").write_text("topic\titem\tgrade\nq1\ta\t1\n")
    (out / "grades.yaml").write_text("n_labels: 2\nlabel_names: ['0', '1']\n")
    (out / "grades.tsv").write_text("item\tjudge\tlabel\nq1:a\tw1\t1\nq2:a\tw1\t0\nq1:a\tw2\t0\n")
    with pytest.raises(DataError) as err:
        load_crowd_dataset(out)
    assert (err.value.path, err.value.line, err.value.value) == (str(out / "grades.tsv"), 3, "q2:a")


def test_the_processed_files_are_declared_once_by_source(tmp_path):
    from manyjudges.crowd.data import PROCESSED_FILES, load_crowd_files, processed_files

    assert processed_files("simulate") == {"truth": "truth.tsv", "preferences": "preferences.tsv",
                                           "judges": "judges.tsv"}
    assert processed_files("trec_rf10") == {"truth": "truth.tsv", "grades": "grades.tsv", "meta": "grades.yaml"}
    assert set(processed_files("mirex2005")) == {"truth", "preferences"}
    with pytest.raises(ValueError, match="unknown crowd source 'csv'"):
        processed_files("csv")
    # what write_crowd_dataset writes is what the roles name, and load_crowd_files reads by role
    truth = pd.DataFrame({"topic": ["q1", "q1"], "item": ["a", "b"], "grade": [1, 0]})
    prefs = pd.DataFrame({"topic": ["q1"], "judge": ["w1"], "left": ["a"], "right": ["b"], "outcome": ["left"]})
    write_crowd_dataset(prefs, truth, tmp_path)
    files = {role: tmp_path / name for role, name in processed_files("mirex2005").items()}
    assert all(path.exists() for path in files.values()) and set(PROCESSED_FILES.values()) >= set(
        processed_files("mirex2005").values())
    data = load_crowd_files({**files, "rankings": tmp_path / "not_read.tsv"})
    assert data.truth == {"q1": {"a": 1, "b": 0}} and list(data.topics) == ["q1"]
