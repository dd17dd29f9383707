"""Simulated crowds (simulate_crowd) and added spammers (add_spammers)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.core.random_streams import distinct_draws, rng_for
from manyjudges.crowd.judgments import topics_from_preferences
from manyjudges.crowd.simulate import kind_counts, simulate_crowd
from manyjudges.crowd.skill import annotator_accuracy
from manyjudges.crowd.spammers import add_spammers, judgments_per_spammer, n_spammers

MIX = {"good": 0.6, "random": 0.2, "malicious": 0.2}


def simulated(seed: int = 0, **kw):
    options = {"n_topics": 3, "n_items": 20, "n_judges": 10, "pairs_per_judge": 40, "judge_mix": MIX,
               "good_accuracy": 0.8}
    options.update(kw)
    return simulate_crowd(rng_for(seed, "test_crowd"), **options)


def truth_of(truth: pd.DataFrame) -> dict[str, dict[str, int]]:
    return {str(t): dict(zip(g["item"], g["grade"].astype(int))) for t, g in truth.groupby("topic")}


def test_simulate_shapes_columns_and_grades():
    prefs, truth, judges = simulated()
    assert list(prefs.columns) == ["topic", "judge", "left", "right", "outcome"]
    assert list(truth.columns) == ["topic", "item", "grade"]
    assert list(judges.columns) == ["topic", "judge", "kind"]
    assert len(prefs) == 3 * 10 * 40 and len(truth) == 3 * 20 and len(judges) == 3 * 10
    assert set(prefs["outcome"]) == {"left", "right"}
    assert (prefs["left"] != prefs["right"]).all()
    for _, g in truth.groupby("topic"):
        assert sorted(np.bincount(g["grade"])) == [4] * 5  # 20 items in 5 equal quantile groups
    # item ids are not in truth order
    assert any(not g["grade"].is_monotonic_increasing and not g["grade"].is_monotonic_decreasing
               for _, g in truth.groupby("topic"))


def test_simulate_each_judge_labels_distinct_pairs():
    prefs, _, _ = simulated()
    a = np.minimum(prefs["left"], prefs["right"])
    b = np.maximum(prefs["left"], prefs["right"])
    keyed = pd.DataFrame({"w": prefs["judge"], "t": prefs["topic"], "a": a, "b": b})
    assert not keyed.duplicated().any()
    assert (prefs.groupby(["topic", "judge"]).size() == 40).all()


def test_simulate_is_deterministic():
    first, second, other = simulated(1), simulated(1), simulated(2)
    for x, y in zip(first, second):
        pd.testing.assert_frame_equal(x, y)
    assert not first[0].equals(other[0])


def test_kind_counts_exact_by_largest_remainder():
    assert list(kind_counts(MIX, 10)) == [6, 2, 2]
    assert list(kind_counts({"good": 1, "random": 1, "malicious": 1}, 10)) == [4, 3, 3]
    assert list(kind_counts({"good": 1}, 7)) == [7, 0, 0]
    _, _, judges = simulated()
    for _, g in judges.groupby("topic"):
        assert g["kind"].value_counts().to_dict() == {"good": 6, "random": 2, "malicious": 2}
    with pytest.raises(ValueError, match="lazy"):
        kind_counts({"lazy": 1.0}, 3)
    with pytest.raises(ValueError, match="pairs_per_judge"):
        simulated(n_items=5, pairs_per_judge=11)


def test_simulated_judges_eq18_accuracy_matches_their_kind():
    prefs, truth, judges = simulated(3, n_topics=4, n_items=30, n_judges=20, pairs_per_judge=150,
                                      good_accuracy=0.75)
    topics, truths = topics_from_preferences(prefs), truth_of(truth)
    acc = pd.concat([pd.DataFrame({"judge": t.judges, "acc": annotator_accuracy(t, truths[name])})
                     for name, t in topics.items()]).merge(judges, on="judge")
    by_kind = acc.groupby("kind")["acc"].mean()
    assert by_kind["good"] == pytest.approx(0.75, abs=0.03)
    assert by_kind["random"] == pytest.approx(0.5, abs=0.05)
    assert (acc.loc[acc["kind"] == "malicious", "acc"] == 0.0).all()


def test_distinct_draws_batched_and_row_by_row():
    rng = np.random.default_rng(0)
    for n_rows, population in ((5, 30), (3, 2_000_000)):
        draws = distinct_draws(rng, n_rows, population, 7)
        assert draws.shape == (n_rows, 7)
        assert all(len(set(row)) == 7 for row in draws) and draws.max() < population


# --- spammers -----------------------------------------------------------------------------

def crowd_topic(seed: int = 0):
    prefs, truth, _ = simulated(seed, n_topics=1)
    return topics_from_preferences(prefs)["t01"], truth_of(truth)["t01"]


def test_spammer_counts_loads_and_ids():
    topic, truth = crowd_topic()
    assert n_spammers(0.35, 10) == 4 and n_spammers(0.25, 10) == 3 and n_spammers(0.05, 10) == 1
    noisy = add_spammers(topic, truth, "random", 0.35, np.random.default_rng(0))
    assert list(noisy.judges[:10]) == list(topic.judges)
    assert list(noisy.judges[10:]) == [f"spammer_random_{i}" for i in range(1, 5)]
    counts = np.bincount(noisy.judge, minlength=noisy.n_judges)
    assert list(counts[10:]) == [judgments_per_spammer(topic)] * 4 == [40] * 4
    # the original rows are kept, in order
    np.testing.assert_array_equal(noisy.left[: len(topic.left)], topic.left)
    np.testing.assert_array_equal(noisy.outcome[: len(topic.outcome)], topic.outcome)
    # spammers label distinct pairs the crowd judged
    crowd = set(zip(np.minimum(topic.left, topic.right), np.maximum(topic.left, topic.right)))
    extra = noisy.judge >= 10
    pairs = list(zip(noisy.judge[extra], np.minimum(noisy.left, noisy.right)[extra],
                     np.maximum(noisy.left, noisy.right)[extra]))
    assert len(set(pairs)) == len(pairs) and {p[1:] for p in pairs} <= crowd
    again = add_spammers(noisy, truth, "random", 0.2, np.random.default_rng(1))
    assert list(again.judges[-3:]) == ["spammer_random_5", "spammer_random_6", "spammer_random_7"]


def test_malicious_spammers_always_wrong_random_about_half():
    topic, truth = crowd_topic(4)
    noisy = add_spammers(topic, truth, "malicious", 1.0, np.random.default_rng(2))
    acc = annotator_accuracy(noisy, truth)
    assert (acc[topic.n_judges:] == 0.0).all()
    noisy = add_spammers(topic, truth, "random", 1.0, np.random.default_rng(3))
    assert np.nanmean(annotator_accuracy(noisy, truth)[topic.n_judges:]) == pytest.approx(0.5, abs=0.06)


def test_malicious_coin_flips_on_truth_ties_and_with_replacement_when_few_pairs():
    rows = [("t", f"w{w}", "a", "b", "left") for w in range(3)] + [("t", "w0", "b", "c", "right")] * 4
    topic = topics_from_preferences(pd.DataFrame(rows, columns=["topic", "judge", "left", "right", "outcome"]))["t"]
    assert judgments_per_spammer(topic) == 1  # loads 5, 1, 1
    noisy = add_spammers(topic, {"a": 1, "b": 1, "c": 1}, "malicious", 30.0, np.random.default_rng(0))
    new = noisy.outcome[len(topic.outcome):]
    assert len(new) == 90 and set(new.tolist()) == {-1, 1}
    many = topics_from_preferences(pd.DataFrame([("t", "w0", "a", "b", "left")] * 3
                                                + [("t", "w1", "a", "b", "left")] * 3,
                                                columns=["topic", "judge", "left", "right", "outcome"]))["t"]
    noisy = add_spammers(many, {"a": 2, "b": 0}, "malicious", 1.0, np.random.default_rng(0))
    extra = noisy.judge >= 2
    assert extra.sum() == 6  # 2 spammers x 3 judgments of the single judged pair, with replacement
    assert (np.where(noisy.left[extra] == 0, noisy.outcome[extra], -noisy.outcome[extra]) == -1).all()


def test_spammers_ratio_zero_bad_kind_and_determinism():
    topic, truth = crowd_topic()
    assert add_spammers(topic, truth, "malicious", 0.0, np.random.default_rng(0)) is topic
    assert add_spammers(topic, truth, "random", 0.04, np.random.default_rng(0)) is topic  # rounds to 0
    with pytest.raises(ValueError, match="'lazy'"):
        add_spammers(topic, truth, "lazy", 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="ratio"):
        add_spammers(topic, truth, "random", -0.1, np.random.default_rng(0))
    one = add_spammers(topic, truth, "random", 0.5, rng_for(7, "x"))
    two = add_spammers(topic, truth, "random", 0.5, rng_for(7, "x"))
    for field in ("judge", "left", "right", "outcome"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
