"""The `manyjudges` command: each subcommand against the library call it wraps, and bad input."""
import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from manyjudges.cli import main
from manyjudges.consensus import consensus_measure
from manyjudges.core.registry import Registry
from manyjudges.crowd.data import CrowdDataset
from manyjudges.crowd.experiment import aggregate_dataset
from manyjudges.crowd.judgments import topics_from_preferences
from manyjudges.graded import M1, GradedPanel, make_graded_method
from manyjudges.graded.experiment import loglik_table, predict_part
from manyjudges.io.tables.orderings import read_orderings
from manyjudges.orderings import FreSPA, evaluation_discriminativeness, make_ordering_scorer
from manyjudges.orderings.experiment import panels_from_table


def run(capsys, *argv):
    """(exit status, stdout as a DataFrame or text, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    try:
        table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"set_id": str, "judge": str, "item": str,
                                                               "topic": str, "list_set": str})
    except pd.errors.EmptyDataError:
        table = out
    return status, table, err


def write(path, text):
    path.write_text(text)
    return path


@pytest.fixture
def orderings(tmp_path):
    rng = np.random.default_rng(3)
    rows = ["set_id\tjudge\titem\trank"]
    for s in ("s1", "s2"):
        base = rng.permutation(6)
        for j in range(5):
            order = base.copy()
            i = rng.integers(5)
            order[i], order[i + 1] = order[i + 1], order[i]
            rows += [f"{s}\tj{j}\tx{item}\t{r + 1}" for r, item in enumerate(order)]
    return write(tmp_path / "orderings.tsv", "\n".join(rows) + "\n")


@pytest.fixture
def preferences(tmp_path):
    rows = ["topic\tjudge\tleft\tright\toutcome"]
    for t in ("q1", "q2"):
        for w, flip in (("w1", False), ("w2", False), ("w3", True)):
            for a, b in (("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("b", "d")):
                rows.append(f"{t}\t{w}\t{a}\t{b}\t{'right' if flip else 'left'}")
    return write(tmp_path / "prefs.tsv", "\n".join(rows) + "\n")


@pytest.fixture
def grades(tmp_path):
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 12)
    rows = ["item\tjudge\tlabel"]
    for i, t in enumerate(truth):
        for j in range(4):
            label = t if rng.random() < 0.7 else rng.integers(0, 3)
            rows.append(f"d{i}\tj{j}\t{label}")
    return write(tmp_path / "grades.tsv", "\n".join(rows) + "\n")


def test_methods_lists_every_builtin_of_every_family(capsys):
    from manyjudges import FAMILIES, family_registry

    status, table, _ = run(capsys, "methods")
    assert status == 0
    for family in FAMILIES:
        registry = family_registry(family)
        assert isinstance(registry, Registry)
        assert set(table.loc[table["family"] == family, "method"]) == set(registry)
    frespa = table[table["method"] == "frespa"].iloc[0]
    assert "min_sup=0.75" in frespa["parameters"] and frespa["summary"]
    status, table, _ = run(capsys, "methods", "crowd")
    assert set(table["family"]) == {"crowd"}
    # the leaderboard's methods (arena leaderboard --method) are the arena section's
    from manyjudges.arena.leaderboard.estimator import LEADERBOARD_METHODS
    status, table, _ = run(capsys, "methods", "arena")
    assert set(table["method"]) == set(LEADERBOARD_METHODS)


@pytest.mark.parametrize("method, params", [("frespa", {"min_sup": 0.6}), ("ac_tau", {}),
                                            ("my_scorers:KendallToFirst", {"offset": 0.1})])
def test_orderings_ed_equals_the_library(capsys, orderings, method, params):
    import json

    args = ["orderings", "ed", orderings, "--method", method] + (["--params", json.dumps(params)] if params else [])
    status, table, _ = run(capsys, *args)
    assert status == 0
    panels = panels_from_table(read_orderings(orderings))
    scorer = make_ordering_scorer(method, params)
    expected = [evaluation_discriminativeness(scorer, panels[s]) for s in ("s1", "s2")]
    assert table["set_id"].tolist() == ["s1", "s2", "mean"]
    np.testing.assert_allclose(table["ed"], expected + [np.mean(expected)], rtol=1e-9)


def test_orderings_score_equals_the_library(capsys, orderings, tmp_path):
    cands = write(tmp_path / "cands.tsv", "set_id\tjudge\titem\trank\n"
                  + "".join(f"s1\tmine\tx{i}\t{i + 1}\n" for i in range(6))
                  + "".join(f"s1\treverse\tx{i}\t{6 - i}\n" for i in range(6)))
    status, table, _ = run(capsys, "orderings", "score", orderings, cands, "--method", "frespa")
    assert status == 0
    gold = read_orderings(orderings)
    gold = gold[gold["set_id"] == "s1"]
    order = sorted(set(gold["item"]), key=lambda x: int(x[1:]))
    ranks = np.array([[r[r["item"] == x]["rank"].iloc[0] for x in order] for _, r in gold.groupby("judge")])
    expected = FreSPA().fit(ranks).score(np.array([np.arange(1, 7), np.arange(6, 0, -1)]))
    assert table["candidate"].tolist() == ["mine", "reverse"]
    np.testing.assert_allclose(table["score"], expected, rtol=1e-9)


def test_consensus_equals_the_library(capsys, tmp_path):
    path = write(tmp_path / "rankings.csv", "list_set,list_id,item,rank\ng,a,x,1\ng,a,y,2\ng,a,z,3\n"
                 "g,b,y,1\ng,b,x,2\ng,b,z,3\nh,a,p,1\nh,a,q,2\nh,b,p,1\n")
    status, table, _ = run(capsys, "consensus", path, "--lambda", 0.9, "--gamma", 0.8)
    assert status == 0
    m = consensus_measure([["x", "y", "z"], ["y", "x", "z"]], 0.9, 0.8)
    row = table[table["list_set"] == "g"].iloc[0]
    assert row["kappa"] == pytest.approx(m.kappa, rel=1e-9)
    assert row["lcs_length"] == m.lcs_length
    assert (row["lambda"], row["gamma"]) == (0.9, 0.8)


def test_graded_evaluate_and_predict_equal_the_library(capsys, grades):
    status, table, _ = run(capsys, "graded", "evaluate", grades, "--method", "m1")
    assert status == 0
    from manyjudges.io.tables.grades import read_grades_table

    data = read_grades_table(grades, 3)
    panel = GradedPanel.from_table(data.grades, 3)
    preds, _ = predict_part(panel, make_graded_method("m1"), "cross_induction", 0, 1)
    expected = loglik_table(preds, 3)
    pd.testing.assert_frame_equal(table.reset_index(drop=True), expected.astype({"judge": str}), check_dtype=False)
    assert set(table["method"]) == {"m1", "uniform"}

    status, table, _ = run(capsys, "graded", "predict", grades, "--method", "m1", "--labels", "bad,fair,good")
    assert status == 0
    assert table.columns.tolist() == ["item", "bad", "fair", "good"]
    np.testing.assert_allclose(table[["bad", "fair", "good"]], M1().fit(panel).predict_proba(), rtol=1e-9)


def test_graded_single_parameter_protocol(capsys, grades):
    status, table, _ = run(capsys, "graded", "evaluate", grades, "--method", "m4", "--protocol", "single_parameter")
    assert status == 0 and set(table["protocol"]) == {"single_parameter"}
    status, _, err = run(capsys, "graded", "evaluate", grades, "--method", "dawid_skene",
                         "--protocol", "single_parameter")
    assert status == 2 and "no single parameter" in err


def test_crowd_aggregate_equals_the_library(capsys, preferences, tmp_path):
    judges = tmp_path / "judges.tsv"
    status, table, _ = run(capsys, "crowd", "aggregate", preferences, "--method", "crowdagg_ndcg", "--judges", judges)
    assert status == 0
    topics = topics_from_preferences(pd.read_csv(preferences, sep="\t", dtype=str))
    rankings, skill, _ = aggregate_dataset(CrowdDataset(topics, {}), "crowdagg_ndcg", {"method": "crowdagg_ndcg"})
    assert table.columns.tolist() == ["topic", "item", "rank", "score"]
    assert table["item"].tolist() == rankings["item"].tolist()
    np.testing.assert_allclose(table["score"], rankings["score"], rtol=1e-9)
    got = pd.read_csv(judges, sep="\t", dtype={"topic": str})
    np.testing.assert_allclose(got["skill"], skill["skill"], rtol=1e-9)
    assert got.loc[got["judge"] == "w3", "skill"].max() < got.loc[got["judge"] == "w1", "skill"].min()


def test_crowd_aggregate_reads_ratings(capsys, tmp_path):
    path = write(tmp_path / "ratings.tsv", "item\tjudge\tlabel\n" + "".join(
        f"q1:{d}\t{w}\t{g}\n" for w in ("u", "v") for d, g in (("a", 2), ("b", 1), ("c", 0))))
    status, table, _ = run(capsys, "crowd", "aggregate", path, "--method", "borda")
    assert status == 0
    assert table["item"].tolist() == ["a", "b", "c"]


def test_csv_and_stdin_read_like_tsv(capsys, orderings, monkeypatch):
    _, tsv, _ = run(capsys, "orderings", "ed", orderings, "--method", "ac_sp")
    csv = orderings.with_suffix(".csv")
    csv.write_text(orderings.read_text().replace("\t", ","))
    _, from_csv, _ = run(capsys, "orderings", "ed", csv, "--method", "ac_sp")
    pd.testing.assert_frame_equal(tsv, from_csv)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(orderings.read_bytes())))
    _, from_stdin, _ = run(capsys, "orderings", "ed", "-", "--method", "ac_sp")
    pd.testing.assert_frame_equal(tsv, from_stdin)


def test_output_file(capsys, orderings, tmp_path):
    out = tmp_path / "ed.tsv"
    status, printed, _ = run(capsys, "orderings", "ed", orderings, "--method", "ac_tau", "-o", out)
    assert status == 0 and printed == ""
    assert pd.read_csv(out, sep="\t")["set_id"].tolist()[-1] == "mean"


# --- bad input: exit status, and the file, line and value in one line --------------------------


def check_error(capsys, argv, status, *fragments):
    got, _, err = run(capsys, *argv)
    assert got == status, err
    assert err.startswith("manyjudges: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert str(fragment) in err, (fragment, err)


def test_malformed_line(capsys, tmp_path):
    path = write(tmp_path / "bad.tsv", "set_id\tjudge\titem\trank\ns\ta\tx\t1\ns\ta\ty\n")
    check_error(capsys, ["orderings", "ed", path, "--method", "ac_tau"], 1, "bad.tsv", "line 3", "expected 4")


def test_unknown_item(capsys, orderings, tmp_path):
    cands = write(tmp_path / "cands.tsv", "set_id\tjudge\titem\trank\n"
                  + "".join(f"s1\tmine\tx{i}\t{i + 1}\n" for i in range(5)) + "s1\tmine\tzz\t6\n")
    check_error(capsys, ["orderings", "score", orderings, cands, "--method", "ac_tau"], 1,
                "cands.tsv", "line 7", "'zz'")
    path = write(tmp_path / "panel.tsv", "set_id\tjudge\titem\trank\ns\ta\tx\t1\ns\ta\ty\t2\ns\tb\tx\t1\ns\tb\tq\t2\n")
    check_error(capsys, ["orderings", "ed", path, "--method", "ac_tau"], 1, "panel.tsv", "line 5", "'q'")


def test_duplicate(capsys, tmp_path):
    path = write(tmp_path / "dup.tsv", "item\tjudge\tlabel\nd1\ta\t1\nd1\tb\t0\nd1\ta\t2\n")
    check_error(capsys, ["graded", "predict", path, "--method", "m1"], 1, "dup.tsv", "line 4", "d1")
    path = write(tmp_path / "dup_orderings.tsv", "set_id\tjudge\titem\trank\ns\ta\tx\t1\ns\ta\tx\t2\n")
    check_error(capsys, ["orderings", "ed", path, "--method", "ac_tau"], 1, "dup_orderings.tsv", "line 3", "'x'")


def test_repeated_preferences_are_judgments_not_duplicates(capsys, tmp_path):
    """A judge may compare the same pair twice (MIREX judges did): both judgments count."""
    path = write(tmp_path / "again.tsv", "topic\tjudge\tleft\tright\toutcome\nq\tw\ta\tb\tleft\n"
                 "q\tw\ta\tb\tright\n")
    status, table, _ = run(capsys, "crowd", "aggregate", path, "--method", "borda")
    assert status == 0
    assert table["score"].tolist() == [0.5, 0.5]  # one win each: the win shares tie


def test_a_panel_of_one_judge(capsys, tmp_path):
    path = write(tmp_path / "one.tsv", "item\tjudge\tlabel\nd1\ta\t1\nd2\ta\t0\n")
    check_error(capsys, ["graded", "evaluate", path, "--method", "m1"], 1, "one.tsv", "at least 3 judges", "has 1")
    check_error(capsys, ["graded", "predict", path, "--method", "m1"], 1, "one.tsv", "at least 2 judges", "has 1")


def test_out_of_range_label(capsys, grades):
    check_error(capsys, ["graded", "evaluate", grades, "--method", "m1", "--n-classes", "2"], 1,
                "grades.tsv", "line", "label must be an integer in 0..1", "'2'")


def test_n_classes_and_its_former_spelling_n_labels(capsys, grades):
    """--n-classes is the number of classes K; --n-labels, its former spelling, still reads (the same error)."""
    for spelling in ("--n-classes", "--n-labels"):
        check_error(capsys, ["graded", "evaluate", grades, "--method", "m1", spelling, "2"], 1,
                    "label must be an integer in 0..1 (--n-classes or the largest label)")
        check_error(capsys, ["graded", "evaluate", grades, "--method", "m1", spelling, "1"], 2,
                    "--n-classes must be at least 2, got 1")


def test_empty_table(capsys, tmp_path):
    path = write(tmp_path / "empty.tsv", "topic\tjudge\tleft\tright\toutcome\n")
    check_error(capsys, ["crowd", "aggregate", path, "--method", "borda"], 1, "empty.tsv", "line 1", "no data rows")
    path = write(tmp_path / "nothing.tsv", "")
    check_error(capsys, ["consensus", path], 1, "nothing.tsv", "line 1")


def test_non_utf8_bytes(capsys, tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes("list_set\tlist_id\titem\trank\ns\ta\tx\t1\ns\ta\tcaf\xe9\t2\n".encode("latin-1"))
    check_error(capsys, ["consensus", path], 1, "latin1.tsv", "line 3", "UTF-8")


def test_unknown_method_and_bad_parameter(capsys, orderings):
    check_error(capsys, ["orderings", "ed", orderings, "--method", "fresba"], 2, "fresba", "did you mean 'frespa'")
    check_error(capsys, ["orderings", "ed", orderings, "--method", "frespa", "--params", '{"min_supp": 0.5}'], 2,
                "min_supp", "did you mean 'min_sup'")
    check_error(capsys, ["orderings", "ed", orderings, "--method", "frespa", "--params", "{min_sup: 1}"], 2, "JSON")
    check_error(capsys, ["crowd", "aggregate", orderings, "--method", "no_such_module_xyz:f"], 2, "cannot import")


def test_bad_parameter_value_is_one_line(capsys, orderings, preferences):
    """Values are checked before the data is read: a command-line mistake (status 2), one line."""
    check_error(capsys, ["orderings", "ed", orderings, "--method", "frespa", "--params", '{"min_sup": 2}'], 2,
                "min_sup must be a number in [0, 1]", "2")
    check_error(capsys, ["orderings", "ed", orderings, "--method", "frespa", "--params", '{"min_sup": "a"}'], 2,
                "frespa", "bad parameter value", "'a'")
    check_error(capsys, ["crowd", "aggregate", preferences, "--method", "bradley_terry", "--params", '{"reg": "x"}'], 2,
                "bradley_terry", "bad parameter value", "'x'")
    check_error(capsys, ["orderings", "ed", orderings, "--method", "ac_tau", "--params", '{"correlation": "pearson"}'],
                2, "correlation must be one of", "pearson")


def test_missing_file(capsys):
    check_error(capsys, ["consensus", "no/such/file.tsv"], 2, "no/such/file.tsv", "no such file")


def test_debug_shows_the_traceback(tmp_path):
    path = write(tmp_path / "empty.tsv", "list_set\tlist_id\titem\trank\n")
    with pytest.raises(ValueError):
        main(["--debug", "consensus", str(path)])


def test_console_script_and_module_run():
    done = subprocess.run([sys.executable, "-m", "manyjudges", "orderings", "ed", "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0
    assert "example" in done.stdout and "manyjudges orderings ed panel.tsv" in done.stdout


def test_progress_bar_only_on_a_terminal():
    from manyjudges.cli.terminal import _Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    shown, hidden = Terminal(), io.StringIO()
    for stream in (shown, hidden):
        progress = _Progress("sets", stream)
        for done in (1, 2):
            progress(done, 2)
    assert "sets [" in shown.getvalue() and "2/2" in shown.getvalue() and shown.getvalue().endswith("\n")
    assert hidden.getvalue() == ""


@pytest.mark.parametrize("key", ["methods", "orderings ed", "orderings score", "consensus measure", "graded evaluate",
                                 "graded predict", "crowd aggregate", "arena convert", "arena judges",
                                 "arena leaderboard", "arena verdicts", "arena winrate", "truth infer"])
def test_every_help_example_runs_as_written(key, tmp_path):
    """The shell lines under 'example' in each --help run in an empty folder and succeed; stderr has at most the
    arena verbs' line saying what they read and auto's weights (truth infer's default method)."""
    from manyjudges.cli.parser import examples

    text = examples()[key]
    lines = text[text.index("example"):].splitlines()[1:]
    commands = [line.strip() for line in lines if line.startswith("          ")]
    assert any(c.startswith("manyjudges ") for c in commands)
    script = f'manyjudges() {{ "{sys.executable}" -m manyjudges "$@"; }}\nset -e\n' + "\n".join(commands) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert all(line.startswith(("manyjudges: read ", "auto: weights ")) for line in done.stderr.splitlines()), \
        done.stderr


def test_one_writer_for_every_subcommand(capsys, tmp_path):
    """write_outputs: the named files first, then -o, then the notes (stderr) and the result line (stdout beside a
    file, stderr beside a table on stdout), then the table on stdout."""
    from manyjudges.cli.terminal import Output, _write_outputs

    output = Output(pd.DataFrame({"a": [1]}), ((str(tmp_path / "side.tsv"), pd.DataFrame({"b": [2]})),),
                    ("a note",), "a result")
    _write_outputs(output, str(tmp_path / "main.tsv"))
    assert capsys.readouterr() == ("a result\n", "a note\n")
    assert (tmp_path / "main.tsv").read_text() == "a\n1\n" and (tmp_path / "side.tsv").read_text() == "b\n2\n"
    _write_outputs(output, None)
    assert capsys.readouterr() == ("a\n1\n", "a note\na result\n")
    _write_outputs(pd.DataFrame({"c": [3]}), "-")
    assert capsys.readouterr() == ("c\n3\n", "")
