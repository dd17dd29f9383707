import numpy as np
import pytest

from manyjudges.core.correlation import kendall_tau_matrix
from manyjudges.core.random_streams import rng_for
from manyjudges.orderings.experiment import panels_from_table
from manyjudges.orderings.simulate import mallows_orders, simulate_ordering_panel


def test_mallows_extremes():
    rng = rng_for(0, "m")
    ref = np.array([3, 1, 0, 2])
    assert np.all(mallows_orders(rng, ref, 1e-9, 20) == ref)
    orders = mallows_orders(rng, np.arange(3), 1.0, 6000)  # phi = 1: uniform
    _, counts = np.unique(orders, axis=0, return_counts=True)
    assert len(counts) == 6 and counts.min() > 850


def test_simulated_panel_shape_and_calibration():
    items = [6, 7, 8, 8, 9, 9, 10, 10, 10, 11]
    table = simulate_ordering_panel(5, items, 10, 0.45)
    assert list(table.columns) == ["set_id", "judge", "item", "rank"]
    panels = panels_from_table(table)
    assert [p.shape for p in panels.values()] == [(10, k) for k in items]
    taus = []
    for p in panels.values():
        t = kendall_tau_matrix(p)
        taus.append((t.sum() - np.trace(t)) / (len(p) * (len(p) - 1)))
    assert np.mean(taus) == pytest.approx(0.45, abs=0.07)
    assert table.equals(simulate_ordering_panel(5, items, 10, 0.45))  # seeded


def test_bad_simulation_parameters():
    with pytest.raises(ValueError, match="at least 2 items"):
        simulate_ordering_panel(1, [1, 5], 3, 0.4)
    with pytest.raises(ValueError, match="target mean tau"):
        simulate_ordering_panel(1, [4], 3, 1.5)
