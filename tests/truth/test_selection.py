"""Leave one group of data sets out, against a hand loop on a small pool."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from benchmarks.harness.selection import choose_safe_best, leave_one_group_out


def small_pool(seed: int = 0) -> pd.DataFrame:
    """Five sets in four groups (s3 and s4 share one), three configurations; c2 is best on average but far
    below the baseline on s1; c1 is safe and second best; c0 is the baseline itself."""
    rng = np.random.default_rng(seed)
    sets = {"s0": "g0", "s1": "g1", "s2": "g2", "s3": "g3", "s4": "g3"}
    rows = []
    for (name, group), config in itertools.product(sets.items(), ["c0", "c1", "c2"]):
        base = 0.7 + 0.02 * int(name[1])
        gain = {"c0": 0.0, "c1": 0.01, "c2": 0.05}[config]
        if config == "c2" and name == "s1":
            gain = -0.10
        rows.append({"dataset": name, "group": group, "config": config, "baseline": base,
                     "accuracy": base + gain + rng.normal(0, 1e-4)})
    return pd.DataFrame(rows)


def hand_choice(rows: pd.DataFrame) -> str:
    best, best_key = None, None
    for config in dict.fromkeys(rows["config"]):
        part = rows[rows["config"] == config]
        key = (-int(((part["accuracy"] - part["baseline"]) < -0.02).sum()), part["accuracy"].mean())
        if best_key is None or key > best_key:
            best, best_key = config, key
    return best


def test_leave_one_group_out_matches_a_hand_loop():
    pool = small_pool()
    got = leave_one_group_out(pool)
    expected = []
    for group in dict.fromkeys(pool["group"]):
        chosen = hand_choice(pool[pool["group"] != group])
        expected.append(pool[(pool["group"] == group) & (pool["config"] == chosen)].assign(chosen=chosen))
    expected = pd.concat(expected).sort_index()
    pd.testing.assert_frame_equal(got, expected)
    # s1 held out: c2 looks safe and best on the rest; elsewhere c2's loss on s1 rules it out, c1 is chosen
    assert got.set_index("dataset")["chosen"].to_dict() == {"s0": "c1", "s1": "c2", "s2": "c1", "s3": "c1",
                                                            "s4": "c1"}


def test_a_group_is_held_out_whole():
    pool = small_pool()
    seen = []
    leave_one_group_out(pool, choose=lambda rows: seen.append(sorted(set(rows["dataset"]))) or "c0")
    assert ["s0", "s1", "s2"] in seen  # g3 (s3 and s4) held out together
    assert all(len(s) in (3, 4) for s in seen) and len(seen) == 4


def test_choose_safe_best_rules():
    pool = small_pool()
    assert choose_safe_best(pool) == "c1"
    assert choose_safe_best(pool, baseline=None) == "c2"
    unsafe = pool[pool["config"] != "c0"].assign(baseline=lambda t: t["accuracy"] + 0.5)  # below everywhere
    assert choose_safe_best(unsafe) == "c2"  # as many sets below for each: the higher mean
    with pytest.raises(ValueError, match="two or more groups"):
        leave_one_group_out(pool.assign(group="one"))
