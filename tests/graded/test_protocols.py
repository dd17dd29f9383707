"""The evaluation protocols (manyjudges.graded.protocols: cross induction, single parameter,
held-out judges) and the Wilcoxon comparisons (manyjudges.graded.significance)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import drop_judge, ref_m1_loglik, ref_m1_predict
from scipy.stats import wilcoxon

from manyjudges.graded.protocols import (
    cross_induction,
    held_out_judges,
    loglik_by_judge,
    single_parameter,
)
from manyjudges.graded.significance import compare_predictions, pairwise_tests
from manyjudges.graded.votes import M1

from .helpers import K3, SPARSE, panel_of, triples

# --------------------------------------------------------------------------------------------
# Cross induction, single parameter, held-out judges
# --------------------------------------------------------------------------------------------


def test_m1_single_parameter_maximises_total_over_judges():
    """single_parameter: one tau for all held-out judges, the argmax of sum_k S(k) (loops)."""
    panel = panel_of(SPARSE)
    trip = triples(panel)
    judges = held_out_judges(panel)

    def total(tau):
        out = 0.0
        for k in judges.tolist():
            pred = ref_m1_predict(drop_judge(trip, k), panel.n_items, K3, tau)
            out += sum(math.log(pred[d, z]) for d, j, z in trip if j == k)
        return out

    res = single_parameter(M1(), panel, judges)
    tau = float(res.parameters["value"].iloc[0])
    assert res.parameters["value"].nunique() == 1
    grid = np.linspace(0.01, 0.99, 197)
    assert total(tau) >= max(total(t) for t in grid) - 1e-7
    assert loglik_by_judge(res.predictions)["loglik"].sum() == pytest.approx(total(tau), rel=1e-12)


def test_cross_induction_never_sees_the_test_judge(crowd_panel):
    """M1 S(k): tau fitted and votes counted without k, recomputed with the loop formulas."""
    panel = crowd_panel
    trip = triples(panel)
    res = cross_induction(M1(), panel, held_out_judges(panel))
    table = loglik_by_judge(res.predictions).set_index("judge")
    for k in range(panel.n_judges):
        train = drop_judge(trip, k)
        tau = float(res.parameters.loc[res.parameters["judge"] == panel.judge_ids[k], "value"].iloc[0])
        grid = np.linspace(0.001, 0.999, 499)
        assert ref_m1_loglik(train, K3, tau) >= max(ref_m1_loglik(train, K3, t) for t in grid) - 1e-9
        pred = ref_m1_predict(train, panel.n_items, K3, tau)
        expected = sum(math.log(pred[d, z]) for d, j, z in trip if j == k)
        assert table.loc[panel.judge_ids[k], "loglik"] == pytest.approx(expected, rel=1e-12)


def test_outer_folds_hold_judges_out_together(crowd_panel):
    """With outer_folds=2 the judges of a fold share one fitted parameter (fitted without both)."""
    res = cross_induction(M1(), crowd_panel, np.arange(5), outer_folds=2)
    params = res.parameters.set_index("judge")["value"]
    ids = crowd_panel.judge_ids
    assert params[ids[0]] == params[ids[2]] == params[ids[4]]
    assert params[ids[1]] == params[ids[3]]
    tau = M1().choose_parameters(crowd_panel.without([0, 2, 4]))["tau"]
    assert params[ids[0]] == pytest.approx(tau)


def test_held_out_judges_min_labels():
    panel = panel_of(SPARSE)
    np.testing.assert_array_equal(held_out_judges(panel, 4), [0])
    np.testing.assert_array_equal(held_out_judges(panel), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="at least 10 labels"):
        held_out_judges(panel, 10)


# --------------------------------------------------------------------------------------------
# Significance
# --------------------------------------------------------------------------------------------

def test_compare_predictions_all_better():
    """Ten positive differences: exact Wilcoxon p = 2 / 2^10."""
    p_b = np.linspace(0.1, 0.5, 10)
    p_a = p_b + np.arange(1, 11) * 0.01
    a, b, ties, p = compare_predictions(p_a, p_b)
    assert (a, b, ties) == (10, 0, 0)
    assert p == pytest.approx(2 / 2**10)


def test_compare_predictions_counts_ties_and_matches_scipy():
    d = np.array([0.3, -0.1, 0.0, 0.25, 1e-14, -0.4, 0.05, 0.0, 0.12, -0.02, 0.33, 0.07])
    p_b = np.full(len(d), 0.4)
    p_a = p_b + d
    a, b, ties, p = compare_predictions(p_a, p_b)
    diff = p_a - p_b
    nonzero = [x for x in diff if abs(x) > 1e-12]
    assert ties == 3
    assert a == sum(x > 0 for x in nonzero) == 6
    assert b == sum(x < 0 for x in nonzero) == 3
    assert p == pytest.approx(wilcoxon(nonzero).pvalue, rel=1e-12)


def test_compare_predictions_only_ties_and_empty():
    assert compare_predictions([0.2, 0.5], [0.2, 0.5]) == (0, 0, 2, 1.0)
    with pytest.raises(ValueError, match="no paired"):
        compare_predictions([], [])


def test_pairwise_tests_per_judge_and_missing_method_skipped():
    rng = np.random.default_rng(4)
    rows = []
    for protocol, methods in (("cross_induction", ["A", "B"]), ("single_parameter", ["A"])):
        for method in methods:
            for judge in ("j1", "j2"):
                for item in range(8):
                    rows.append([method, protocol, judge, f"i{item}", 0.0])
    preds = pd.DataFrame(rows, columns=["method", "protocol", "judge", "item", "p_true"])
    preds["p_true"] = rng.uniform(0.05, 0.95, len(preds))
    # a tie on one label of j1
    sel_a = (preds["method"] == "A") & (preds["protocol"] == "cross_induction") & (preds["judge"] == "j1")
    sel_b = (preds["method"] == "B") & (preds["judge"] == "j1")
    preds.loc[sel_b & (preds["item"] == "i3"), "p_true"] = preds.loc[sel_a & (preds["item"] == "i3"), "p_true"].iloc[0]

    out = pairwise_tests(preds, [("A", "B"), ("A", "C"), ("B", "A")])
    assert set(out["protocol"]) == {"cross_induction"}
    assert len(out) == 4  # (A,B) and (B,A) for two judges; C and single_parameter skipped
    def p_of(method, judge):
        g = preds[(preds["method"] == method) & (preds["protocol"] == "cross_induction") & (preds["judge"] == judge)]
        return dict(zip(g["item"], g["p_true"]))

    for _, row in out.iterrows():
        pa, pb = p_of(row["method_a"], row["judge"]), p_of(row["method_b"], row["judge"])
        d = [pa[i] - pb[i] for i in sorted(pa)]
        nonzero = [x for x in d if x != 0]
        assert row["a_better"] == sum(x > 0 for x in d)
        assert row["b_better"] == sum(x < 0 for x in d)
        assert row["ties"] == sum(x == 0 for x in d) == (1 if row["judge"] == "j1" else 0)
        assert row["p_value"] == pytest.approx(wilcoxon(nonzero).pvalue, rel=1e-12)
