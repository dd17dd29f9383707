"""Eq (18) annotator accuracy, the skill-histogram KL divergence and the coefficient of variation."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from manyjudges.crowd.judgments import topics_from_preferences
from manyjudges.crowd.skill import (
    annotator_accuracy,
    coefficient_of_variation,
    skill_histogram_kl,
    truth_vector,
)


def small_topic():
    rows = [
        ("t", "w1", "a", "b", "left"),   # truth a > b: right
        ("t", "w1", "b", "c", "left"),   # truth b > c: right
        ("t", "w1", "c", "a", "left"),   # truth a > c: wrong
        ("t", "w1", "a", "b", "tie"),    # judge tie: excluded
        ("t", "w1", "c", "d", "left"),   # truth tie c = d: excluded
        ("t", "w1", "a", "x", "left"),   # x ungraded: excluded
        ("t", "w2", "a", "b", "right"),  # wrong
        ("t", "w3", "c", "d", "right"),  # only a truth-tied pair: NaN
        ("t", "w4", "a", "c", "tie"),    # only a tie: NaN
    ]
    prefs = pd.DataFrame(rows, columns=["topic", "judge", "left", "right", "outcome"])
    return topics_from_preferences(prefs)["t"], {"a": 3, "b": 2, "c": 1, "d": 1}


def test_annotator_accuracy_counts_only_strict_answers_on_untied_graded_pairs():
    topic, truth = small_topic()
    acc = annotator_accuracy(topic, truth)
    assert list(topic.judges) == ["w1", "w2", "w3", "w4"]
    assert acc[0] == pytest.approx(2 / 3)
    assert acc[1] == 0.0
    assert np.isnan(acc[2]) and np.isnan(acc[3])


def test_annotator_accuracy_accepts_aligned_arrays():
    topic, truth = small_topic()
    arr = truth_vector(topic, truth)
    assert np.isnan(arr[list(topic.items).index("x")])
    np.testing.assert_array_equal(annotator_accuracy(topic, arr), annotator_accuracy(topic, truth))
    with pytest.raises(ValueError, match="shape"):
        annotator_accuracy(topic, arr[:-1])


def test_annotator_accuracy_matches_a_loop_on_random_data():
    rng = np.random.default_rng(5)
    items = [f"i{k}" for k in range(12)]
    truth = {it: int(g) for it, g in zip(items, rng.integers(0, 3, 12))}
    rows = []
    for _ in range(400):
        a, b = rng.choice(12, 2, replace=False)
        rows.append(("t", f"w{rng.integers(0, 7)}", items[a], items[b], rng.choice(["left", "right", "tie"])))
    prefs = pd.DataFrame(rows, columns=["topic", "judge", "left", "right", "outcome"])
    topic = topics_from_preferences(prefs)["t"]
    acc = annotator_accuracy(topic, truth)
    for w, name in enumerate(topic.judges):
        mine = prefs[(prefs.judge == name) & (prefs.outcome != "tie")]
        ok = [(truth[left] > truth[right]) == (o == "left")
              for left, right, o in zip(mine.left, mine.right, mine.outcome)
              if truth[left] != truth[right]]
        assert acc[w] == pytest.approx(np.mean(ok))


def test_kl_is_zero_for_equal_histograms_and_hand_computed_otherwise():
    x = np.array([0.05, 0.15, 0.95, 1.0])
    assert skill_histogram_kl(x, x + 0.01) == pytest.approx(0.0)
    eps, bins = 1e-3, 10
    p = (np.array([1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + eps) / (1 + bins * eps)
    q = (np.array([0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]) + eps) / (1 + bins * eps)
    got = skill_histogram_kl([0.0, 0.02], [0.01, 1.0], bins=bins, eps=eps)
    assert got == pytest.approx(float((p * np.log(p / q)).sum()))
    assert got == pytest.approx(math.log(2), rel=0.05)  # ~log 2 up to smoothing


def test_kl_clips_drops_nan_and_is_finite_on_disjoint_support():
    assert skill_histogram_kl([1.2, np.nan], [1.0]) == pytest.approx(0.0)
    kl = skill_histogram_kl([0.0], [1.0])
    assert np.isfinite(kl) and kl > 5
    assert np.isnan(skill_histogram_kl([], [0.5]))
    assert skill_histogram_kl([0.0], [1.0], bins=1) == pytest.approx(0.0)


def test_coefficient_of_variation():
    v = np.array([1.0, 2.0, 3.0, np.nan])
    assert coefficient_of_variation(v) == pytest.approx(np.std([1, 2, 3]) / 2)
    assert coefficient_of_variation(v, ddof=1) == pytest.approx(1.0 / 2)
    assert coefficient_of_variation([0.4, 0.4]) == 0.0
    assert np.isnan(coefficient_of_variation([]))
    assert np.isnan(coefficient_of_variation([0.0, 0.0]))
