"""The same judgments in any row order give the same numbers: every graded method, both protocols."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.graded import _GRADED_METHODS, GradedPanel, make_graded_method
from manyjudges.graded.experiment import predict_part, protocols_for
from manyjudges.truth.simulate import simulate_labels

K = 3


@pytest.fixture(scope="module")
def grades():
    labels, _, _ = simulate_labels(np.random.default_rng(11), n_items=40, n_judges=8, labels_per_item=4, n_classes=K,
                                   ordinal=True)
    return labels


def orders(table: pd.DataFrame) -> list[pd.DataFrame]:
    """The table as given, reversed, and shuffled."""
    rng = np.random.default_rng(5)
    return [table, table.iloc[::-1], table.iloc[rng.permutation(len(table))]]


def test_a_panel_is_the_same_in_any_row_order(grades):
    panels = [GradedPanel.from_table(t, K) for t in orders(grades)]
    for panel in panels[1:]:
        for name in ("item", "judge", "label"):
            np.testing.assert_array_equal(getattr(panel, name), getattr(panels[0], name))
        assert (panel.item_ids, panel.judge_ids) == (panels[0].item_ids, panels[0].judge_ids)


@pytest.mark.parametrize("method", sorted(_GRADED_METHODS))
def test_every_graded_method_gives_the_same_numbers_in_any_row_order(grades, method):
    # M5's fits are the slow ones: a short lambda search, and cross induction only (its single-parameter
    # protocol runs the same fits)
    params = {"inner_folds": 2, "grid_points": 2, "refine_evaluations": 1} if method == "m5" else {}
    protocols = ["cross_induction"] if method == "m5" else ["cross_induction", "single_parameter"]
    for protocol in protocols_for(make_graded_method(method, params), protocols):
        runs = [predict_part(GradedPanel.from_table(t, K), make_graded_method(method, params), protocol, 0, 1)
                for t in orders(grades)]
        for preds, parameters in runs[1:]:
            pd.testing.assert_frame_equal(preds, runs[0][0], check_exact=False, rtol=0, atol=1e-6)
            pd.testing.assert_frame_equal(parameters, runs[0][1], check_exact=False, rtol=0, atol=1e-6)
