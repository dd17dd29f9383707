"""Crowd data: source dispatch, writing and loading topics, ratings to preferences."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.crowd.data import load_crowd_dataset, parse_crowd_source, write_crowd_dataset
from manyjudges.crowd.judgments import ratings_to_preferences


def test_ratings_to_preferences_matches_a_loop():
    rng = np.random.default_rng(3)
    worker = rng.integers(0, 6, 60)
    item = rng.integers(0, 15, 60)
    keep = ~pd.DataFrame({"w": worker, "i": item}).duplicated().to_numpy()
    worker, item = worker[keep], item[keep]
    grade = rng.integers(0, 3, len(worker))
    got = set(zip(*(a.tolist() for a in ratings_to_preferences(worker, item, grade))))
    expected = set()
    for w in np.unique(worker):
        rated = sorted((i, g) for ww, i, g in zip(worker, item, grade) if ww == w)
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
    assert sorted(zip(t20.worker.tolist(), t20.left.tolist(), t20.right.tolist(), t20.outcome.tolist())) == [
        (0, 0, 1, 1), (1, 0, 2, 0)]
    assert data.truth == {"20": {"d1": 2, "d2": 0}, "30": {"d9": 1}}


def test_unknown_source_and_missing_file():
    with pytest.raises(ValueError, match="unknown crowd source"):
        parse_crowd_source("nope", {})
    with pytest.raises(ValueError, match="needs the file 'MTurk.qrel'"):
        parse_crowd_source("mirex2005", {"judgments.csv": "x"})


def test_repeated_rating_is_an_error():
    from manyjudges.crowd.judgments import topics_from_ratings

    table = pd.DataFrame({"topic": ["t", "t"], "worker": ["w", "w"], "item": ["a", "a"], "grade": [1, 2]})
    with pytest.raises(ValueError, match="more than once"):
        topics_from_ratings(table)
