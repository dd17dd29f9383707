"""The graded registry (manyjudges.graded.registry): every built-in through the protocol, errors, plugins."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from reference import drop_judge, ref_prior

from manyjudges.graded.base import GradedMethod
from manyjudges.graded.protocols import cross_induction, held_out_judges, loglik_by_judge
from manyjudges.graded.registry import _GRADED_METHODS, make_graded_method

from .helpers import K3, TINY_CROWD, panel_of, triples

# --------------------------------------------------------------------------------------------
# Every registry method through the protocol
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(_GRADED_METHODS))
def test_registry_method_predicts_and_cross_induces(name, crowd_panel):
    """Rows sum to 1 and are > 0; every held-out judge is scored exactly on their own labels."""
    panel = panel_of(TINY_CROWD) if name == "m5" else crowd_panel
    method = make_graded_method(name)
    assert method.name == name
    proba = method.fit(panel).predict_proba()
    assert proba.shape == (panel.n_items, K3)
    np.testing.assert_allclose(proba.sum(1), 1.0, atol=1e-10)
    assert np.all(proba > 0)

    judges = held_out_judges(panel)
    res = cross_induction(method, panel, judges)
    preds = res.predictions
    trip = triples(panel)
    for k in judges.tolist():
        jid = panel.judge_ids[k]
        got = sorted(zip(preds.loc[preds["judge"] == jid, "item"], preds.loc[preds["judge"] == jid, "label"]))
        assert got == sorted((panel.item_ids[d], z) for d, j, z in trip if j == k)
    table = loglik_by_judge(preds).set_index("judge")
    counts = Counter(j for _, j, _ in trip)
    for k in judges.tolist():
        jid = panel.judge_ids[k]
        assert table.loc[jid, "n_items"] == counts[k]
        assert table.loc[jid, "loglik"] == pytest.approx(
            sum(math.log(p) for p in preds.loc[preds["judge"] == jid, "p_true"]), rel=1e-12)
    assert np.all((preds["p_true"] > 0) & (preds["p_true"] <= 1))


# --------------------------------------------------------------------------------------------
# Errors and the plugin interface
# --------------------------------------------------------------------------------------------

def test_unknown_registry_name_lists_builtins():
    with pytest.raises(ValueError) as err:
        make_graded_method("m9")
    for name in _GRADED_METHODS:
        assert name in str(err.value)


def test_plugin_without_predict_is_refused():
    with pytest.raises(ValueError, match="no predict"):
        make_graded_method("my_graded:no_predict")


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:f", "cannot import"),
    ("my_graded:missing", "no attribute"),
    ("m1", None),
])
def test_registry_bad_specs(spec, message):
    if message is None:
        with pytest.raises(ValueError, match="unknown parameter"):
            make_graded_method(spec, {"not_a_parameter": 1})
    else:
        with pytest.raises(ValueError, match=message):
            make_graded_method(spec)


def test_working_plugin(crowd_panel):
    """A user's GradedMethod subclass runs through make_graded_method and cross induction."""
    method = make_graded_method("my_graded:PriorOnly", {"smoothing": 0.5}, name="prior")
    assert isinstance(method, GradedMethod) and method.name == "prior"
    panel = crowd_panel
    trip = triples(panel)
    res = cross_induction(method, panel, held_out_judges(panel))
    table = loglik_by_judge(res.predictions).set_index("judge")
    for k in range(panel.n_judges):
        pi = ref_prior(drop_judge(trip, k), K3)
        expected = sum(math.log(pi[z]) for _, j, z in trip if j == k)
        assert table.loc[panel.judge_ids[k], "loglik"] == pytest.approx(expected, rel=1e-12)
