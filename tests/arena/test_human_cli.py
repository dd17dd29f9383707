"""`manyjudges arena leaderboard --human`: the library's calibrated table and summary, the stderr line, the
errors named by file and line, nothing written on an error."""
import io

import numpy as np
import pandas as pd

from manyjudges.arena.human.leaderboard import HumanCalibratedLeaderboard
from tests.arena.test_human_calibration import COLUMNS, simulated
from tests.command import run_command


def write(path, frame):
    frame.to_csv(path, sep="\t", index=False)
    return path


def test_the_command_writes_the_library_table_and_summary(capsys, tmp_path):
    llm, human = simulated(10, n_prompts=80, n_human=25)
    llm_path, human_path = write(tmp_path / "llm.tsv", llm), write(tmp_path / "human.tsv", human)
    summary = tmp_path / "calibration.tsv"
    status, out, err = run_command(capsys, "arena", "leaderboard", llm_path, "--human", human_path, "--human-summary",
                                   summary, "--bootstrap", "100", "--seed", "2", "--baseline", "m1")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t")
    board = HumanCalibratedLeaderboard(n_bootstrap=100, seed=2, baseline="m1").fit(llm, human)
    assert list(table.columns) == list(board.table_.columns)
    assert list(table["model"]) == list(board.table_["model"])
    np.testing.assert_allclose(table[["score", "ci_low", "ci_high", "win_rate", "win_low"]],
                               board.table_[["score", "ci_low", "ci_high", "win_rate", "win_low"]], rtol=1e-10)
    written = pd.read_csv(summary, sep="\t")
    pd.testing.assert_frame_equal(written, board.summary_, check_dtype=False)
    row = board.summary_.iloc[0]
    assert (f"human calibration: 25 human verdicts on 25 units, 80 LLM units: worth {row['worth']:.0f} "
            f"human-labelled units (lambda {row['lambda']:.2f})") in err


def test_bootstrap_intervals_and_a_fixed_lambda(capsys, tmp_path):
    llm, human = simulated(11, n_prompts=60, n_human=20)
    llm_path, human_path = write(tmp_path / "llm.tsv", llm), write(tmp_path / "human.tsv", human)
    status, out, err = run_command(capsys, "arena", "leaderboard", llm_path, "--human", human_path, "--human-intervals",
                                   "bootstrap", "--human-lambda", "0.5", "--bootstrap", "30", "--quiet")
    assert status == 0, err
    assert "human calibration" not in err
    table = pd.read_csv(io.StringIO(out), sep="\t")
    board = HumanCalibratedLeaderboard("bootstrap", 30, lam=0.5).fit(llm, human)
    np.testing.assert_allclose(table["ci_high"], board.table_["ci_high"], rtol=1e-10)


def test_a_human_unit_without_llm_verdicts_is_named_by_file_and_line(capsys, tmp_path):
    llm, human = simulated(12, n_prompts=40, n_human=10)
    extra = pd.DataFrame([("p77", "h", "m0", "m4", "model_a")], columns=COLUMNS)
    human = pd.concat([human.iloc[:3], extra, human.iloc[3:]])
    llm_path, human_path = write(tmp_path / "llm.tsv", llm), write(tmp_path / "human.tsv", human)
    out, summary = tmp_path / "board.tsv", tmp_path / "summary.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", llm_path, "--human", human_path, "-o", out,
                                 "--human-summary", summary)
    assert status == 1
    assert "human.tsv, line 5: 1 human units (prompt, model pair) have no LLM verdict: prompt p77, m0 vs m4" in err
    assert not out.exists() and not summary.exists()


def test_what_human_cannot_do_is_refused_before_reading(capsys, tmp_path):
    missing = tmp_path / "nothing.tsv"
    for extra, message in ((["--method", "elo"], "bradley_terry leaderboard only, not --method elo"),
                           (["--params", '{"ties": "drop"}'], "only reg in --params"),
                           (["--params", '{"reg": "big"}'], "reg must be a number >= 0, got 'big'"),
                           (["--resample", "prompts"], "--resample is not used with --human"),
                           (["--control", "length"], "--control is not available with --human"),
                           (["--human-lambda", "2"], "--human-lambda must be between 0 and 1")):
        status, _, err = run_command(capsys, "arena", "leaderboard", missing, "--human", missing, *extra)
        assert status != 0 and message in err, err
    status, _, err = run_command(capsys, "arena", "leaderboard", missing, "--human-summary", tmp_path / "s.tsv")
    assert status != 0 and "need --human HUMAN" in err
