"""The graded family's pipeline-facing helpers: source dispatch, chunking, lambda search, config checks."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from manyjudges.graded.base import maximise_scalar
from manyjudges.graded.data import parse_graded_source
from manyjudges.graded.experiment import comparison_table, loglik_table, predict_part
from manyjudges.graded.panel import GradedPanel
from manyjudges.graded.protocols import cross_induction
from manyjudges.graded.registry import make_graded_method
from manyjudges.graded.votes import M1
from manyjudges.io.engine.table_text import write_table
from manyjudges.pipeline.config_checks import check_config_references
from manyjudges.reporting.tables import concat_tables

from .helpers import K3


def test_snow_task_must_match_the_dataset_file(tmp_path):
    path = tmp_path / "anger.standardized.tsv"
    path.write_text("!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
                    "1\tw1\t10\t55\t50\n2\tw2\t10\t10\t50\n3\tw3\t10\t99\t50\n")
    data = parse_graded_source("snow2008", {path.name: path}, {"task": "anger"})
    assert data.grades["label"].tolist() == [2, 0, 4]
    with pytest.raises(ValueError, match="fear.standardized.tsv"):
        parse_graded_source("snow2008", {path.name: path}, {"task": "fear"})


def test_a_panel_too_small_for_cross_induction_fails_when_parsed(tmp_path):
    from manyjudges.io.engine.errors import DataError

    def table(name, judges, items=2):
        rows = "".join(f"d{i}\t{j}\t{(i + n) % 2}\n" for n, j in enumerate(judges) for i in range(items))
        path = tmp_path / name
        path.write_text("item\tjudge\tlabel\n" + rows)
        return path

    one = table("one.tsv", ["alice"])
    with pytest.raises(DataError) as err:
        parse_graded_source("table", {one.name: one}, {"n_classes": 2})
    assert err.value.path == str(one) and err.value.line is None
    assert str(err.value) == (
        f"{one}: a graded panel needs at least 3 judges with labels (cross induction holds out 1 at a time and "
        "every method chooses its parameters by predicting each remaining judge from the others, so at least 2 "
        "must remain); this one has 1")
    three = table("three.tsv", ["a", "b", "c"])
    assert parse_graded_source("table", {three.name: three}, {"n_classes": 2}).grades["judge"].nunique() == 3
    with pytest.raises(DataError, match=r"three.tsv: .*needs at least 4 judges .*holds out 2 at a time.*has 3$"):
        parse_graded_source("table", {three.name: three}, {"n_classes": 2, "outer_folds": 2})
    with pytest.raises(DataError, match=r"three.tsv: no judge has at least 20 labels \(min_labels_per_judge\).*"
                                        r"the most any of its 3 judges has is 2$"):
        parse_graded_source("table", {three.name: three}, {"n_classes": 2, "min_labels_per_judge": 20})
    # the library says the same before any method runs (a simulated panel is never parsed)
    with pytest.raises(ValueError, match="needs at least 3 judges .* has 2$"):
        predict_part(GradedPanel.from_matrix(np.array([[0, 1], [1, 1]]), 2), M1(), "cross_induction", 0, 1)


def test_missing_trec_file_is_named(tmp_path):
    with pytest.raises(ValueError, match="trec-rf10-data.txt"):
        parse_graded_source("trec_rf10", {"trec-rf10-readme.txt": tmp_path / "x"})


def test_more_jobs_than_judges_gives_empty_parts_and_the_same_tables():
    rng = np.random.default_rng(0)
    panel = GradedPanel.from_matrix(rng.integers(0, 3, size=(12, 4)), 3)
    m1 = make_graded_method("m1")
    whole, _ = predict_part(panel, m1, "cross_induction", 0, 1)
    parts = [predict_part(panel, m1, "cross_induction", c, 6)[0] for c in range(6)]
    assert sum(len(p) == 0 for p in parts) == 2
    joined = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(loglik_table(joined, 3), loglik_table(whole, 3))


def test_a_job_of_several_methods_gives_each_method_s_own_parts_and_the_gather_restores_the_order():
    from manyjudges.graded.experiment import predict_job, predict_parts
    from manyjudges.reporting.tables import in_method_order

    panel = GradedPanel.from_matrix(np.random.default_rng(3).integers(0, 3, size=(10, 5)), 3)
    dataset = {"min_labels_per_judge": 1, "outer_folds": None}
    specs = {"m4": {"method": "m4", "params": {}}, "m1": {"method": "m1", "params": {}}}
    parts = [("m4", "cross_induction", 0), ("m4", "single_parameter", 0), ("m1", "cross_induction", 0)]
    preds, params = predict_job(panel, specs, parts, {"m4": 1, "m1": 1}, dataset)
    alone = [predict_parts(panel, make_graded_method(m), p, 1) for m, p in
             (("m4", [("cross_induction", 0), ("single_parameter", 0)]), ("m1", [("cross_induction", 0)]))]
    pd.testing.assert_frame_equal(preds, pd.concat([a[0] for a in alone], ignore_index=True), check_exact=True)
    pd.testing.assert_frame_equal(params, pd.concat([a[1] for a in alone], ignore_index=True), check_exact=True)
    # the gather puts the configured order back, each method's rows as they came
    ordered = in_method_order(preds, ["m1", "m4"])
    expected = pd.concat([alone[1][0], alone[0][0]], ignore_index=True)
    pd.testing.assert_frame_equal(ordered, expected, check_exact=True)


def test_ids_survive_the_part_files(tmp_path):
    """Judge and item ids such as '007' and 'w5' are strings end to end, in every part."""
    a = pd.DataFrame({"method": "m1", "protocol": "cross_induction", "judge": ["007", "1"], "item": ["01", "1"],
                      "label": [0, 1], "p_true": [0.5, 0.25]})
    b = a.assign(method="m4", judge=["007", "1"], p_true=[0.4, 0.5])
    write_table(a, tmp_path / "a.tsv")
    write_table(b, tmp_path / "b.tsv")
    both = concat_tables([tmp_path / "a.tsv", tmp_path / "b.tsv"], dtype={"judge": str, "item": str})
    assert set(both["judge"]) == {"007", "1"} and set(both["item"]) == {"01", "1"}
    tests = comparison_table(both, [["m1", "m4"]])
    assert len(tests) == 2 and list(tests["judge"]) == ["1", "007"]
    # the comparisons are read once: a generator gives the same table
    pd.testing.assert_frame_equal(comparison_table(both, (pair for pair in [("m1", "m4")])), tests)


def test_parabolic_refinement_finds_the_vertex_in_log_space():
    calls = []

    def objective(x: float) -> float:
        calls.append(x)
        return -(np.log(x) - np.log(0.022)) ** 2

    x, f = maximise_scalar(objective, np.geomspace(1e-3, 1, 4), "log", 2, "parabola")
    assert x == pytest.approx(0.022, rel=1e-9) and len(calls) == 5  # one step lands on a parabola's vertex


def test_comparisons_must_name_configured_methods():
    config = {"seed": 1, "graded": {"datasets": {}, "methods": {"m1": {}, "m4": {}}, "comparisons": [["m1", "m44"]]}}
    with pytest.raises(ValueError, match="m44"):
        check_config_references(config)


# --------------------------------------------------------------------------------------------
# The experiment's parts and tables
# --------------------------------------------------------------------------------------------

def test_predict_part_chunks_partition_the_judges(crowd_panel):
    """Chunks of the cross induction together equal one run over every judge."""
    from manyjudges.graded.experiment import loglik_table, predict_part

    panel = crowd_panel
    parts = [predict_part(panel, M1(), "cross_induction", c, 2)[0] for c in range(2)]
    judges = [set(p["judge"]) for p in parts]
    assert judges[0].isdisjoint(judges[1]) and judges[0] | judges[1] == set(panel.judge_ids)
    both = pd.concat(parts).sort_values(["judge", "item"]).reset_index(drop=True)
    whole = cross_induction(M1(), panel, np.arange(panel.n_judges)).predictions
    whole = whole.sort_values(["judge", "item"]).reset_index(drop=True)
    np.testing.assert_allclose(both["p_true"], whole["p_true"], rtol=1e-12)
    assert set(both["method"]) == {"m1"} and set(both["protocol"]) == {"cross_induction"}

    table = loglik_table(both, K3)
    uniform = table[table["method"] == "uniform"].set_index("judge")
    counts = Counter(panel.judge_ids[j] for j in panel.judge.tolist())
    for jid, n in counts.items():
        assert uniform.loc[jid, "n_items"] == n
        assert uniform.loc[jid, "loglik"] == pytest.approx(n * math.log(1 / K3))
    with pytest.raises(ValueError, match="n_chunks = 1"):
        predict_part(panel, M1(), "single_parameter", 0, 2)
    with pytest.raises(ValueError, match="unknown protocol"):
        predict_part(panel, M1(), "leave_one_out", 0, 1)


def test_report_caveats_only_under_their_source_and_parameters_at_bound(tmp_path):
    from manyjudges.graded import simulate
    from manyjudges.graded.experiment import parameter_table
    from manyjudges.graded.report import _graded_markdown
    from manyjudges.reporting.paper_values import paper_values

    panel = GradedPanel.from_matrix(np.random.default_rng(1).integers(0, 3, size=(10, 4)), 3)
    preds, params = predict_part(panel, make_graded_method("m1", name="m1"), "cross_induction", 0, 1)
    params = params.assign(at_bound=[True, False, False, False])
    tables = {"loglik": loglik_table(preds, 3), "pairwise": comparison_table(preds, []),
              "parameters": parameter_table(params), "grades": preds[["item", "judge", "label"]]}
    paths = {}
    for name, table in tables.items():
        paths[name] = tmp_path / f"{name}.tsv"
        table.to_csv(paths[name], sep="\t", index=False)
    specs = {"sim": {"source": "simulate"}, "mine": {"source": "table"}}
    report = _graded_markdown({"sim": paths, "mine": paths}, specs, paper_values("wilbur2011"))
    header, sim, mine = report.split("### Dataset ")
    assert "`sim` (**simulated**)" in sim and simulate.REPORT_NOTE in sim
    assert "`mine` (your own data)" in mine
    for text in (header, mine):
        assert simulate.REPORT_NOTE not in text and "MEDLINE" not in text
    assert "(at a bound of its search for 1 of 4 judges)" in mine
