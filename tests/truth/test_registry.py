"""The truth registry (manyjudges.truth.registry): built-in names, presets, checks, building by name."""
from __future__ import annotations

import pandas as pd
import pytest

from manyjudges.truth import (
    TRUTH_METHODS,
    DawidSkene,
    MajorityVote,
    OneCoinDawidSkene,
    Wawa,
    make_truth_estimator,
)

TABLE = pd.DataFrame({"item": [1, 1, 2, 2, 3], "judge": ["u", "v", "u", "v", "u"], "label": [0, 1, 1, 1, 0]})


@pytest.mark.parametrize("name,cls", [("majority_vote", MajorityVote), ("majority_vote_random", MajorityVote),
                                      ("wawa", Wawa), ("dawid_skene", DawidSkene),
                                      ("one_coin_dawid_skene", OneCoinDawidSkene)])
def test_builtins_build_and_fit(name, cls):
    assert name in TRUTH_METHODS
    est = make_truth_estimator(name)
    assert type(est) is cls
    est.fit(TABLE)
    assert list(est.labels_.index) == [1, 2, 3] and est.proba_.sum(axis=1).round(12).eq(1).all()


def test_presets_and_overrides():
    assert make_truth_estimator("majority_vote_random").ties == "random"
    assert make_truth_estimator("majority_vote_random", {"random_state": 5}).random_state == 5
    assert make_truth_estimator("dawid_skene", {"smoothing": 0.1}).smoothing == 0.1
    rows = {row["method"]: row for row in TRUTH_METHODS.describe()}
    assert rows["majority_vote_random"]["parameters"] == {"ties": "random", "random_state": 0, "calibrate": None}
    assert rows["dawid_skene"]["parameters"] == {"max_iter": 100, "tol": 1e-5, "smoothing": 0.0, "init": "majority",
                                                 "calibrate": None}


def test_bad_names_and_parameters():
    with pytest.raises(ValueError, match="unknown truth method"):
        make_truth_estimator("majority")
    with pytest.raises(ValueError, match="unknown parameter"):
        make_truth_estimator("dawid_skene", {"n_iter": 10})
    with pytest.raises(ValueError, match="smoothing"):
        TRUTH_METHODS.check("one_coin_dawid_skene", {"smoothing": -1})
    with pytest.raises(ValueError, match="ties"):
        TRUTH_METHODS.check("wawa", {"ties": "random"})
    assert type(make_truth_estimator("manyjudges.truth.methods.wawa:Wawa")) is Wawa
