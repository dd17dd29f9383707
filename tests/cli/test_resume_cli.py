"""`manyjudges arena leaderboard --save-state/--resume` (the same table as one pass; a state of another method,
a foreign file and a shared output file refused with nothing written) and `manyjudges arena judges --judge-models`
(self-preference columns)."""
import io

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena.judges.self_preference import self_preference
from tests.arena.test_leaderboard import llmfao_verdicts, simulated_verdicts
from tests.arena.test_self_preference import HAND
from tests.command import run_command


def table_text(out):
    return pd.read_csv(io.StringIO(out), sep="\t", dtype=str, keep_default_na=False).set_index("judge")


def board(path):
    return pd.read_csv(path, sep="\t")


@pytest.mark.parametrize("method", ["bradley_terry", "crowd_bt"])
def test_resume_through_the_command_equals_one_pass(capsys, tmp_path, method):
    verdicts = simulated_verdicts(seed=8, n=300)
    verdicts.iloc[:120].to_csv(tmp_path / "monday.tsv", sep="\t", index=False)
    verdicts.iloc[120:].to_csv(tmp_path / "tuesday.tsv", sep="\t", index=False)
    verdicts.to_csv(tmp_path / "all.tsv", sep="\t", index=False)
    common = ["--method", method, "--bootstrap", "30", "--resample", "prompts", "--quiet"]
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "monday.tsv", *common,
                                 "--save-state", tmp_path / "s.npz", "-o", tmp_path / "monday_board.tsv")
    assert status == 0, err
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "tuesday.tsv", *common,
                                 "--resume", tmp_path / "s.npz", "--save-state", tmp_path / "s.npz",
                                 "-o", tmp_path / "resumed.tsv")
    assert status == 0, err
    one_pass = ["arena", "leaderboard", tmp_path / "all.tsv", *common, "-o", tmp_path / "one.tsv"]
    assert run_command(capsys, *one_pass)[0] == 0
    resumed, one = board(tmp_path / "resumed.tsv"), board(tmp_path / "one.tsv")
    assert list(resumed.columns) == list(one.columns) and list(resumed["model"]) == list(one["model"])
    numbers = one.select_dtypes("number").columns
    np.testing.assert_allclose(resumed[numbers].to_numpy(float), one[numbers].to_numpy(float), atol=1e-6)
    # --baseline names a model of the state's verdicts, checked on them
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "tuesday.tsv", *common, "--baseline",
                                 "m1", "--resume", tmp_path / "s.npz")
    assert status == 0, err


def test_llmfao_halves_through_the_command(capsys, tmp_path, mirror):
    verdicts = llmfao_verdicts(mirror)
    half = len(verdicts) // 2
    verdicts.iloc[:half].to_csv(tmp_path / "a.tsv", sep="\t", index=False)
    verdicts.iloc[half:].to_csv(tmp_path / "b.tsv", sep="\t", index=False)
    verdicts.to_csv(tmp_path / "all.tsv", sep="\t", index=False)
    common = ["--bootstrap", "20", "--quiet"]
    assert run_command(capsys, "arena", "leaderboard", tmp_path / "a.tsv", *common, "--save-state",
                       tmp_path / "s.npz", "-o", tmp_path / "a_board.tsv")[0] == 0
    assert run_command(capsys, "arena", "leaderboard", tmp_path / "b.tsv", *common, "--resume", tmp_path / "s.npz",
                       "-o", tmp_path / "resumed.tsv")[0] == 0
    one_pass = ["arena", "leaderboard", tmp_path / "all.tsv", *common, "-o", tmp_path / "one.tsv"]
    assert run_command(capsys, *one_pass)[0] == 0
    resumed, one = board(tmp_path / "resumed.tsv"), board(tmp_path / "one.tsv")
    assert list(resumed["model"]) == list(one["model"])
    numbers = one.select_dtypes("number").columns
    np.testing.assert_allclose(resumed[numbers].to_numpy(float), one[numbers].to_numpy(float), atol=1e-6)


def test_resume_mistakes_are_named_and_nothing_is_written(capsys, tmp_path):
    simulated_verdicts(n=80).to_csv(tmp_path / "v.tsv", sep="\t", index=False)
    assert run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--bootstrap", "0", "--quiet",
                       "--save-state", tmp_path / "s.npz")[0] == 0
    out = tmp_path / "out.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--method", "davidson",
                                 "--resume", tmp_path / "s.npz", "-o", out)
    assert status == 2 and "was fitted by bradley_terry" in err and "not davidson" in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--resume",
                                 tmp_path / "v.tsv", "-o", out)
    assert status == 2 and "v.tsv: not a leaderboard state" in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--resume",
                                 tmp_path / "none.npz", "-o", out)
    assert status == 2 and "none.npz: no such file" in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--resume", tmp_path / "s.npz",
                                 "-o", out)  # the default --bootstrap 1000, and a state saved with --bootstrap 0
    assert status == 2 and "saved with --bootstrap 0 and keeps no verdicts, which a bootstrap" in err
    assert not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--resume", tmp_path / "s.npz",
                                 "--bootstrap", "0", "--html", tmp_path / "page.html", "-o", out)
    assert status == 2 and "which --html summarises" in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", "--save-state", out, "-o", out)
    assert status == 2 and "--save-state needs a file of its own" in err and not out.exists()


def test_judges_self_preference_columns(capsys, tmp_path):
    HAND.to_csv(tmp_path / "v.tsv", sep="\t", index=False)
    status, out, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--quiet", "--ci", "0.9",
                                   "--judge-models", "j=C")
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), sep="\t").set_index("judge")
    expected = self_preference(HAND, {"j": "C"}, ci=0.9).set_index("judge")
    for column in ("self_preference", "self_low", "self_high"):
        np.testing.assert_allclose(got.loc[expected.index, column], expected[column].astype(float), atol=1e-12)
    assert got.loc["A", "self_units"] == 1
    text = table_text(out)  # integers as integers; j, the contestant C, shares no unit with another judge
    assert text.loc["A", "self_units"] == "1" and text.loc["j", "self_units"] == "0"
    status, out, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--quiet")
    text = table_text(out)  # without --judge-models j is no contestant: empty
    assert status == 0 and text.loc["A", "self_units"] == "2" and text.loc["j", "self_units"] == ""
    assert text.loc["j", "self_preference"] == "" and float(text.loc["A", "self_preference"]) == 0.25
    status, _, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--judge-models", "j:C")
    assert status == 2 and "'j:C' is not JUDGE=MODEL" in err
    status, _, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--judge-models", "k=C")
    assert status == 2 and "no verdict: k" in err


def test_judges_without_contestants_keep_their_table(capsys, tmp_path):
    HAND[HAND["judge"] == "j"].to_csv(tmp_path / "v.tsv", sep="\t", index=False)
    status, out, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--quiet")
    assert status == 0, err
    assert "self_preference" not in out.splitlines()[0]


def test_resume_does_not_take_control_or_human(capsys, tmp_path):
    simulated_verdicts(n=80).assign(length_a=1.0, length_b=2.0).to_csv(tmp_path / "v.tsv", sep="\t", index=False)
    for flags in (["--control", "length"], ["--human", tmp_path / "v.tsv"]):
        status, _, err = run_command(capsys, "arena", "leaderboard", tmp_path / "v.tsv", *flags, "--save-state",
                                     tmp_path / "s.npz")
        assert status == 2 and "do not take --" in err and not (tmp_path / "s.npz").exists()
