"""Inner-fold fits shared between cross-induction folds (manyjudges.graded.subpanel_cache): the
same sub-panel reached from two folds is the same key, a value is handed out once, and the
methods that use it give exactly the predictions they give without it."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.graded.dawid_skene import DawidSkenePredictor
from manyjudges.graded.m4 import M4
from manyjudges.graded.maxent import M5
from manyjudges.graded.protocols import cross_induction
from manyjudges.graded.subpanel_cache import _panel_digest, _SubpanelCache

from .helpers import panel_of, structured_matrix


@pytest.fixture(scope="module")
def panel():
    """12 items x 6 judges, 4 labels an item (some judges share few items)."""
    return panel_of(structured_matrix(12, 6, 3, seed=7, per_item=4))


def test_the_same_sub_panel_from_either_fold_has_one_digest(panel):
    assert _panel_digest(panel.without(1).without(4)) == _panel_digest(panel.without(4).without(1))
    assert _panel_digest(panel.without(1).without(4)) != _panel_digest(panel.without(1).without(3))
    relabelled = panel_of(np.where(panel.to_matrix() == 0, 1, panel.to_matrix()))
    assert _panel_digest(relabelled) != _panel_digest(panel)


def test_a_value_is_handed_out_once(panel):
    cache, calls = _SubpanelCache(), []

    def compute():
        calls.append(1)
        return np.arange(3.0)

    sub = panel.without(0)
    first = cache.get(sub, "x", compute)
    second = cache.get(panel.without(0), "x", compute)   # an equal panel: the stored value
    third = cache.get(sub, "x", compute)                  # taken already: computed again
    assert len(calls) == 2 and second is first and third is not first
    assert (cache.hits, cache.misses) == (1, 2)
    cache.get(sub, "other key", compute)
    assert len(calls) == 3


def test_values_beyond_the_size_limit_are_dropped_oldest_first(panel):
    cache = _SubpanelCache(max_bytes=2 * 80)
    for j in range(3):
        cache.get(panel.without(j), "x", lambda: np.zeros(10))   # 80 bytes each
    calls = []
    cache.get(panel.without(0), "x", lambda: calls.append(1) or np.zeros(10))
    assert calls == [1]                                      # the oldest was dropped
    cache.get(panel.without(2), "x", lambda: calls.append(1) or np.zeros(10))
    assert calls == [1]                                      # the newest was kept
    assert _SubpanelCache(max_bytes=0).get(panel, "x", lambda: 5) == 5


@pytest.mark.parametrize("make", [lambda: M4(), lambda: DawidSkenePredictor(), lambda: M5(grid_points=3)],
                         ids=["m4", "dawid_skene", "m5"])
def test_methods_give_the_same_predictions_with_and_without_sharing(panel, make, monkeypatch):
    shared = make()
    with_sharing = cross_induction(shared, panel)
    assert shared._subpanel_cache().hits > 0
    alone = make()
    monkeypatch.setattr(type(alone), "_subpanel_cache", lambda self: _SubpanelCache(max_bytes=0))
    without = cross_induction(alone, panel)
    pd.testing.assert_frame_equal(with_sharing.predictions, without.predictions, check_exact=True)
    pd.testing.assert_frame_equal(with_sharing.parameters, without.parameters, check_exact=True)
