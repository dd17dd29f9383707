"""`manyjudges arena verdicts`: the library's tables, bad parameters (status 2) and bad data named by file and
line, no output file on an error; `arena leaderboard --method judge_aware`."""
import io

import numpy as np
import pandas as pd

from manyjudges.arena import JudgeAwareVerdicts, Leaderboard
from manyjudges.arena.simulate_judges import SimulatedJudge, simulate_judge_panel
from manyjudges.io.tables.verdicts import write_verdicts
from tests.command import run_command

JUDGES = [SimulatedJudge("a", 0.85, 1.0), SimulatedJudge("b", 0.75, -0.5), SimulatedJudge("c", 0.7)]


def panel(tmp_path):
    verdicts, _ = simulate_judge_panel({"x": 0.5, "y": 0.0, "z": -0.4}, JUDGES, n_prompts=5, seed=0, tie_rate=0.1)
    path = tmp_path / "verdicts.tsv"
    write_verdicts(verdicts, path)
    return verdicts, path


def test_the_command_writes_the_library_tables(capsys, tmp_path):
    verdicts, path = panel(tmp_path)
    judges = tmp_path / "judges.tsv"
    status, out, err = run_command(capsys, "arena", "verdicts", path, "--params", '{"prior": "flat"}',
                                   "--judges", judges)
    assert status == 0, err
    units = pd.read_csv(io.StringIO(out), sep="\t", dtype={"prompt": str})
    expected = JudgeAwareVerdicts(prior="flat").fit(verdicts)
    assert list(units.columns) == ["prompt", "model_1", "model_2", "verdicts", "p_model_1", "winner"]
    np.testing.assert_allclose(units["p_model_1"], expected.units_["p_model_1"], rtol=1e-12)
    assert list(units["winner"]) == list(expected.units_["winner"])
    written = pd.read_csv(judges, sep="\t")
    assert list(written.columns) == ["judge", "skill", "position_bias", "cluster", "weight"]
    np.testing.assert_allclose(written[["skill", "position_bias"]], expected.judges_[["skill", "position_bias"]],
                               rtol=1e-12)


def test_the_leaderboard_writes_the_judges_side_table(capsys, tmp_path):
    verdicts, path = panel(tmp_path)
    judges, board = tmp_path / "judges.tsv", tmp_path / "board.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--method", "judge_aware", "--bootstrap", "3",
                                 "--judges", judges, "-o", board)
    assert status == 0, err
    expected = Leaderboard("judge_aware", n_bootstrap=3).fit(verdicts)
    written = pd.read_csv(judges, sep="\t", dtype={"judge": str, "cluster": str})
    assert list(written.columns) == ["judge", "skill", "position_bias", "cluster", "cluster_size", "rho", "weight"]
    np.testing.assert_allclose(written[["skill", "position_bias", "weight"]],
                               expected.judges_[["skill", "position_bias", "weight"]], rtol=1e-9)
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "0", "--judges",
                                 tmp_path / "none.tsv")
    assert status != 0 and "no judge parameters" in err and not (tmp_path / "none.tsv").exists()


def test_bad_parameters_and_data_are_named_and_write_nothing(capsys, tmp_path):
    _, path = panel(tmp_path)
    out = tmp_path / "units.tsv"
    status, _, err = run_command(capsys, "arena", "verdicts", path, "--params", '{"prior": "uniform"}', "-o", out)
    assert status == 2 and "prior must be one of 'strengths', 'flat', got 'uniform'" in err
    status, _, err = run_command(capsys, "arena", "verdicts", path, "--params", '{"clusters": {"d": "g"}}',
                                 "-o", out)
    assert status == 1 and "verdicts.tsv: clusters: 'd' is not a judge" in err
    bad = tmp_path / "bad.tsv"
    bad.write_text("prompt\tjudge\tmodel_a\tmodel_b\twinner\np\ta\tx\ty\tmodel_a\np\ta\ty\tx\tleft\n")
    status, _, err = run_command(capsys, "arena", "verdicts", bad, "-o", out)
    assert status == 1 and "bad.tsv, line 3: winner must be" in err and "'left'" in err
    assert not out.exists()


def test_leaderboard_command_with_judge_aware(capsys, tmp_path):
    verdicts, path = panel(tmp_path)
    status, out, err = run_command(capsys, "arena", "leaderboard", path, "--method", "judge_aware", "--bootstrap", "0")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t")
    expected = Leaderboard("judge_aware").fit(verdicts).table_
    np.testing.assert_allclose(table["score"], expected["score"], rtol=1e-12)
