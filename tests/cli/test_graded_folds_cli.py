"""`manyjudges graded evaluate` / `predict` on panels of many judges: the fold options, the rule
that picks folds by default, and the pipeline's numbers for the same settings."""
import io

import numpy as np
import pandas as pd
import pytest

from manyjudges.cli import main
from manyjudges.graded import GradedPanel
from manyjudges.graded.experiment import loglik_table, method_for, predict_job, predict_part
from manyjudges.graded.folds import DEFAULT_FOLDS, FOLDS_ABOVE_JUDGES
from manyjudges.truth.simulate import simulate_labels

K = 3


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"judge": str, "item": str}) if out else None
    return status, table, err


def panel_file(tmp_path, n_judges, name="grades.tsv"):
    labels, _, _ = simulate_labels(np.random.default_rng(n_judges), n_items=120, n_judges=n_judges,
                                   labels_per_item=4, n_classes=K, ordinal=True)
    path = tmp_path / name
    labels.to_csv(path, sep="\t", index=False)
    return path, GradedPanel.from_table(pd.read_csv(path, sep="\t", dtype=str), K)


def library_table(panel, method, outer, inner):
    m = method_for({"method": method}, method, {"inner_folds": inner})
    return loglik_table(predict_part(panel, m, "cross_induction", 0, 1, 1, outer)[0], K)


def assert_same(table, expected):
    pd.testing.assert_frame_equal(table.reset_index(drop=True), expected.astype({"judge": str}), check_dtype=False,
                                  rtol=1e-12)


def test_a_large_panel_gets_folds_by_default_and_says_so(capsys, tmp_path):
    n = FOLDS_ABOVE_JUDGES + 5
    path, panel = panel_file(tmp_path, n)
    status, table, err = run(capsys, "graded", "evaluate", path, "--method", "m4")
    assert status == 0
    outer, inner = DEFAULT_FOLDS
    assert f"{n} judges, more than {FOLDS_ABOVE_JUDGES}: {outer} outer folds and {inner} inner folds by default" in err
    assert_same(table, library_table(panel, "m4", outer, inner))
    # one judge per fold when asked: other numbers (M4 refits per training judge), and nothing said
    status, each, err = run(capsys, "graded", "evaluate", path, "--method", "m4", "--outer-folds", "each",
                            "--inner-folds", "each")
    assert status == 0 and err == ""
    assert_same(each, library_table(panel, "m4", None, None))
    assert not np.allclose(each["loglik"], table["loglik"])


def test_a_small_panel_is_cross_induced_one_judge_at_a_time(capsys, tmp_path):
    path, panel = panel_file(tmp_path, FOLDS_ABOVE_JUDGES)
    status, table, err = run(capsys, "graded", "evaluate", path, "--method", "m4")
    assert status == 0 and "outer folds" not in err  # a progress line may name folds
    assert_same(table, library_table(panel, "m4", None, None))


@pytest.mark.parametrize("method", ["m4", "dawid_skene"])
def test_the_fold_options_give_the_pipelines_numbers(capsys, tmp_path, method):
    path, panel = panel_file(tmp_path, 12)
    status, table, _ = run(capsys, "graded", "evaluate", path, "--method", method, "--outer-folds", 3,
                           "--inner-folds", 2)
    assert status == 0
    dataset = {"outer_folds": 3, "inner_folds": 2}
    preds, _ = predict_job(panel, {method: {"method": method}}, [(method, "cross_induction", 0)], {method: 1}, dataset)
    assert_same(table, loglik_table(preds, K))


def test_predict_takes_the_inner_folds(capsys, tmp_path):
    path, panel = panel_file(tmp_path, 12)
    status, table, _ = run(capsys, "graded", "predict", path, "--method", "m4", "--inner-folds", 3)
    assert status == 0
    expected = method_for({"method": "m4"}, "m4", {"inner_folds": 3}).fit(panel).predict_proba()
    np.testing.assert_allclose(table[["0", "1", "2"]].to_numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("value", ["1", "0", "two", "-3"])
def test_a_bad_fold_count_is_refused_before_reading(capsys, tmp_path, value):
    status, _, err = run(capsys, "graded", "evaluate", tmp_path / "missing.tsv", "--method", "m1",
                         "--outer-folds", value)
    assert status == 2 and "folds must be an integer >= 2 or 'each'" in err and repr(value) in err


def test_folds_too_large_for_the_panel_are_a_clear_error(capsys, tmp_path):
    path = tmp_path / "three.tsv"
    rows = "".join(f"d{d}\tj{j}\t{(d + j) % K}\n" for d in range(5) for j in range(3))
    path.write_text("item\tjudge\tlabel\n" + rows)
    status, _, err = run(capsys, "graded", "evaluate", path, "--method", "m1", "--outer-folds", 2)
    assert status != 0
    assert "needs at least 4 judges with labels" in err and "this one has 3" in err and "three.tsv" in err
