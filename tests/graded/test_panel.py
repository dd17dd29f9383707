"""GradedPanel and the panel helpers (manyjudges.graded.panel): priors, sub-panels, folds, input checks."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference import drop_judge, ref_prior

from manyjudges.graded.panel import (
    GradedPanel,
    background_prior,
    judge_groups,
    log_uniform,
    prior_without_own,
)
from manyjudges.graded.votes import item_pairs

from .helpers import K3, PANELS, SPARSE, panel_of, triples

# --------------------------------------------------------------------------------------------
# Panel helpers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PANELS)
def test_background_prior_and_prior_without_own(kind):
    """pi with add-1/2 smoothing, and pi^(-i) per entry, equal the loop counts."""
    panel = panel_of(PANELS[kind])
    trip = triples(panel)
    np.testing.assert_allclose(background_prior(panel), ref_prior(trip, K3), rtol=1e-14)
    expected = [ref_prior(drop_judge(trip, j), K3) for _, j, _ in trip]
    np.testing.assert_allclose(prior_without_own(panel), expected, rtol=1e-14)


def test_matrix_roundtrip_and_subpanels():
    """from_matrix / to_matrix round-trip; without/of keep the index spaces."""
    panel = panel_of(SPARSE)
    np.testing.assert_array_equal(panel.to_matrix(), SPARSE)
    assert panel.n_entries == int((SPARSE >= 0).sum())
    rest = panel.without([0, 2])
    assert (rest.n_items, rest.n_judges) == (6, 4)
    assert set(rest.judge.tolist()) == {1, 3}
    assert rest.n_entries + panel.of([0, 2]).n_entries == panel.n_entries
    np.testing.assert_array_equal(panel.labels_per_judge(), (SPARSE >= 0).sum(0))


def test_judge_groups():
    """One fold per judge by default; round-robin folds otherwise; fewer than 2 folds refused."""
    judges = np.array([3, 5, 7, 9, 11])
    assert [g.tolist() for g in judge_groups(judges, None)] == [[3], [5], [7], [9], [11]]
    assert [g.tolist() for g in judge_groups(judges, 2)] == [[3, 7, 11], [5, 9]]
    assert len(judge_groups(judges, 10)) == 5
    with pytest.raises(ValueError, match="n_folds"):
        judge_groups(judges, 1)


def test_item_pairs_are_all_ordered_distinct_pairs_on_an_item():
    panel = panel_of(SPARSE)
    t, s = item_pairs(panel)
    got = sorted(zip(t.tolist(), s.tolist()))
    expected = sorted((a, b) for a in range(panel.n_entries) for b in range(panel.n_entries)
                      if a != b and panel.item[a] == panel.item[b])
    assert got == expected


def test_log_uniform_paper_value():
    """5000 labels, K = 5: 5000 log(1/5) = -8047.19 (the paper's uniform baseline)."""
    matrix = np.tile(np.arange(5), 1000).reshape(5000, 1)
    panel = GradedPanel.from_matrix(matrix, 5)
    assert log_uniform(panel) == pytest.approx(-8047.19, abs=0.01)


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------

def test_label_outside_range_is_refused():
    with pytest.raises(ValueError, match="outside 0..2"):
        panel_of([[0, 3], [1, 2]])
    with pytest.raises(ValueError, match="outside"):
        GradedPanel.from_table(pd.DataFrame({"item": ["a", "b"], "judge": ["x", "x"], "label": [0, -1]}), 3)


@pytest.mark.parametrize("build", ["table", "matrix"])
def test_non_integer_labels_are_refused(build):
    with pytest.raises(ValueError):
        if build == "table":
            GradedPanel.from_table(pd.DataFrame({"item": ["a", "b"], "judge": ["x", "x"], "label": [1.7, 0.0]}), 3)
        else:
            GradedPanel.from_matrix(np.array([[1.7, 0.0], [2.0, 1.0]]), 3)


def test_missing_label_in_table_is_reported_as_missing():
    grades = pd.DataFrame({"item": ["a", "b"], "judge": ["x", "x"], "label": [np.nan, 0.0]})
    with pytest.raises(ValueError, match="(?i)missing|nan|non-finite"):
        GradedPanel.from_table(grades, 3)


def test_judge_labelling_an_item_twice_is_refused():
    grades = pd.DataFrame({"item": ["a", "a", "b"], "judge": ["x", "x", "y"], "label": [0, 1, 1]})
    with pytest.raises(ValueError, match="twice"):
        GradedPanel.from_table(grades, 3)


def test_empty_table_is_refused():
    with pytest.raises(ValueError, match="empty"):
        GradedPanel.from_table(pd.DataFrame({"item": [], "judge": [], "label": []}), 3)


def test_fewer_than_two_labels_is_refused():
    with pytest.raises(ValueError, match="at least 2 classes"):
        GradedPanel.from_matrix(np.zeros((2, 2), dtype=int), 1)
