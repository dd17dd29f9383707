"""`manyjudges arena leaderboard`: the same table as the library, bad input named by file and line, no
output file on an error."""
import io

import numpy as np
import pandas as pd

from manyjudges.arena import bootstrap
from tests.command import run_command

ROWS = [("p1", "x", "y", "model_a"), ("p1", "y", "z", "model_a"), ("p1", "z", "x", "model_b"),
        ("p2", "x", "y", "tie"), ("p2", "y", "z", "model_b"), ("p2", "x", "z", "model_a"),
        ("p3", "y", "x", "model_b"), ("p3", "z", "y", "tie"), ("p3", "x", "z", "model_a"),
        ("p4", "x", "y", "model_b"), ("p4", "y", "z", "model_a"), ("p4", "z", "x", "tie (bothbad)")]


def write(path, rows, header=("prompt", "model_a", "model_b", "winner"), sep="\t"):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(r) + "\n" for r in rows))
    return path


def test_the_command_prints_the_library_table(capsys, tmp_path):
    path = write(tmp_path / "verdicts.csv", ROWS, sep=",")
    status, out, err = run_command(capsys, "arena", "leaderboard", path, "--method", "davidson", "--bootstrap", "40",
                                   "--resample", "prompts", "--ci", "0.9", "--seed", "3")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t")
    verdicts = pd.DataFrame(ROWS, columns=["prompt", "model_a", "model_b", "winner"])
    expected = bootstrap(verdicts, "davidson", n=40, resample="prompts", ci=0.9, seed=3)
    assert list(table.columns) == ["model", "rank", "score", "ci_low", "ci_high", "rank_low", "rank_high", "verdicts",
                                   "win_rate", "win_low", "win_high"]
    assert list(table["model"]) == list(expected["model"])
    np.testing.assert_allclose(table[["score", "ci_low", "ci_high"]], expected[["score", "ci_low", "ci_high"]],
                               rtol=1e-12)
    assert (table["rank_high"].to_numpy() == expected["rank_high"].to_numpy(dtype=float)).all()


def test_bad_verdicts_are_named_and_write_nothing(capsys, tmp_path):
    path = write(tmp_path / "verdicts.tsv", [*ROWS[:4], ("p2", "y", "z", "left"), *ROWS[5:]])
    out = tmp_path / "board.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "0", "-o", out)
    assert status == 1 and "'left'" in err
    assert "verdicts.tsv, line 6: winner must be model_a, model_b, tie or tie (bothbad)" in err
    assert not out.exists()
    no_judge = write(tmp_path / "nojudge.tsv", ROWS)
    status, _, err = run_command(capsys, "arena", "leaderboard", no_judge, "--method", "crowd_bt", "-o", out)
    assert status == 1 and "needs a judge column" in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", no_judge, "--method", "bradley_trery")
    assert status == 2 and "did you mean 'bradley_terry'" in err


def test_the_crowd_spellings_are_the_arena_verbs(capsys, tmp_path):
    """`manyjudges crowd leaderboard|judges|verdicts` still run, give the arena verbs' tables, and say in --help
    that they are former spellings."""
    import contextlib

    import pytest

    from manyjudges.cli.parser import _build_parser

    path = write(tmp_path / "verdicts.tsv", ROWS)
    outputs = []
    for family in ("arena", "crowd"):
        out = tmp_path / f"{family}.tsv"
        status, _, err = run_command(capsys, family, "leaderboard", path, "--bootstrap", "30", "-o", out)
        assert status == 0, err
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    for verb in ("leaderboard", "judges", "verdicts"):
        with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as text:
            _build_parser().parse_args(["crowd", verb, "--help"])
        assert f"former spelling of `manyjudges arena {verb}`" in " ".join(text.getvalue().split())
