"""The arena verbs' input: published formats behind --from (the library's read_published, the same numbers), several
files or folders as one table, --duplicates on every reader, convert round trips, bad input named with nothing
written; and the mirror's llmfao, PRD and PandaLM through every verb (skipped without the mirror)."""
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import JudgeAwareVerdicts, bootstrap, judge_measures
from manyjudges.io.sources.published import read_published
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, read_verdicts
from tests.command import run_command

HEADER = ("prompt", "judge", "model_a", "model_b", "winner")
ROWS = [("p1", "j1", "x", "y", "model_a"), ("p1", "j2", "y", "x", "model_b"), ("p1", "j1", "y", "z", "tie"),
        ("p2", "j1", "z", "x", "model_b"), ("p2", "j2", "x", "z", "model_a"), ("p2", "j2", "y", "z", "model_a"),
        ("p3", "j1", "x", "y", "tie"), ("p3", "j2", "z", "y", "model_b"), ("p3", "j1", "x", "z", "model_b"),
        ("p1", "j1", "x", "y", "model_b")]  # the last repeats line 2's (prompt, judge, model_a, model_b)


def write(path, rows, header=HEADER):
    path.write_text("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    return path


def table(out):
    return pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False, dtype=str)


def same_board(out, expected):
    got = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(got["model"]) == list(expected["model"])
    np.testing.assert_allclose(got[["score", "ci_low", "ci_high"]], expected[["score", "ci_low", "ci_high"]],
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("rule", ["keep", "first", "last"])
def test_duplicates_rules_on_every_verb(capsys, tmp_path, rule):
    path = write(tmp_path / "v.tsv", ROWS)
    verdicts = read_verdicts(path, rule)
    assert len(verdicts) == (10 if rule == "keep" else 9)
    status, out, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "20", "--duplicates", rule)
    assert status == 0, err
    same_board(out, bootstrap(verdicts, n=20))
    status, out, err = run_command(capsys, "arena", "judges", path, "--duplicates", rule)
    assert status == 0, err
    expected = judge_measures(verdicts).judges
    assert list(table(out)["verdicts"].astype(int)) == list(expected["verdicts"])
    status, out, err = run_command(capsys, "arena", "verdicts", path, "--duplicates", rule)
    assert status == 0, err
    units = JudgeAwareVerdicts().fit(verdicts).units_
    np.testing.assert_allclose(table(out)["p_model_1"].astype(float), units["p_model_1"], rtol=1e-9)
    status, out, err = run_command(capsys, "arena", "convert", path, "--duplicates", rule)
    assert status == 0, err
    pd.testing.assert_frame_equal(table(out), verdicts.astype(str), check_dtype=False)


@pytest.mark.parametrize("verb", ["leaderboard", "judges", "verdicts", "convert"])
def test_duplicates_error_names_both_lines_and_writes_nothing(capsys, tmp_path, verb):
    path = write(tmp_path / "v.tsv", ROWS)
    out = tmp_path / "out.tsv"
    status, _, err = run_command(capsys, "arena", verb, path, "--duplicates", "error", "-o", out)
    assert status == 1 and not out.exists()
    assert f"{path}, line 11: (prompt, judge, model_a, model_b) already judged on line 2" in err
    assert "'p1\\tj1\\tx\\ty\\tmodel_b'" in err


def test_reference_is_read_as_the_verdicts_are(capsys, tmp_path):
    panel = write(tmp_path / "panel.tsv", ROWS[:9])
    reference = write(tmp_path / "human.tsv", [("p1", "h", "x", "y", "model_a"), ("p1", "h", "x", "y", "model_b")])
    status, _, err = run_command(capsys, "arena", "judges", panel, "--reference", reference, "--duplicates", "error")
    assert status == 1 and f"{reference}, line 3" in err
    status, out, err = run_command(capsys, "arena", "judges", panel, "--reference", reference, "--duplicates", "last")
    assert status == 0, err
    expected = judge_measures(read_verdicts(panel), read_verdicts(reference, "last")).judges
    np.testing.assert_allclose(table(out)["accuracy"].astype(float), expected["accuracy"])


def test_several_files_and_a_folder_are_one_table(capsys, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    first, second = write(folder / "a.tsv", ROWS[:5]), write(folder / "b.tsv", ROWS[5:9])
    expected = bootstrap(read_verdicts(write(tmp_path / "all.tsv", ROWS[:9])), n=20)
    for given in ((first, second), (folder,)):
        status, out, err = run_command(capsys, "arena", "leaderboard", *given, "--bootstrap", "20")
        assert status == 0, err
        same_board(out, expected)
    write(folder / "b.tsv", [*ROWS[5:9], ROWS[0]])  # a repeat across files: both places named
    status, _, err = run_command(capsys, "arena", "leaderboard", folder, "--duplicates", "error")
    assert status == 1 and f"{folder / 'b.tsv'}: data row 5: " in err and f"{first}, data row 1" in err


def test_the_input_mistakes_of_the_command_line(capsys, tmp_path):
    path = write(tmp_path / "v.tsv", ROWS[:9])
    status, _, err = run_command(capsys, "arena", "leaderboard", "-", "--from", "prd")
    assert status == 2 and "standard input" in err
    status, _, err = run_command(capsys, "arena", "leaderboard", path, tmp_path / "nothing.tsv")
    assert status == 2 and "nothing.tsv: no such file or folder" in err
    status, _, err = run_command(capsys, "arena", "verdicts", tmp_path, "--from", "prd")
    assert status == 1 and f"{tmp_path}: no file that prd reads" in err


def test_a_bad_published_line_is_named_through_the_command(capsys, tmp_path):
    crowd = tmp_path / "crowd-comparisons.csv"
    crowd.write_text("id,prompt,model_x,model_y,worker,winner,left,right\n0,8,1,2,58,left,x,y\n"
                     "1,8,2,1,83,maybe,y,x\n")
    for verb in ("leaderboard", "judges", "verdicts", "convert"):
        out = tmp_path / "out.tsv"
        status, _, err = run_command(capsys, "arena", verb, crowd, "--from", "llmfao", "-o", out)
        assert status == 1 and not out.exists()
        assert f"{crowd}, line 3: winner must be left, right or tie: 'maybe'" in err


def test_a_disconnected_graph_through_the_command(capsys, tmp_path):
    path = write(tmp_path / "v.tsv", [("p1", "j", "x", "y", "model_a"), ("p1", "j", "u", "w", "tie"),
                                       ("p2", "j", "y", "x", "tie")])
    out = tmp_path / "board.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "-o", out)
    assert status == 1 and not out.exists()
    assert f"{path}: the comparison graph is in 2 pieces" in err
    assert "piece 1 (2 models): u, w; piece 2 (2 models): x, y" in err and "keep the verdicts of one piece" in err


def test_one_verdict_through_the_command(capsys, tmp_path):
    path = write(tmp_path / "v.tsv", [("p1", "j", "x", "y", "model_a")])
    status, out, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "50")
    assert status == 0, err
    board = table(out)
    assert (board[["ci_low", "ci_high", "rank_low", "rank_high"]] == "").all().all()
    assert "won every verdict they were in: x" in err and "same score in every bootstrap replicate" in err


def test_convert_round_trip_on_arena_battles(capsys, tmp_path):
    battles = tmp_path / "battles.json"
    battles.write_text('[{"question_id": 1, "judge": "h1", "model_a": "x", "model_b": "y", "winner": "model_a"},'
                       ' {"question_id": 1, "judge": "h2", "model_a": "y", "model_b": "z", "winner": "tie"},'
                       ' {"question_id": 2, "judge": "h1", "model_a": "z", "model_b": "x", "winner": "model_a"},'
                       ' {"question_id": 2, "judge": "h2", "model_a": "y", "model_b": "x", "winner": "tie (bothbad)"}]')
    converted = tmp_path / "verdicts.csv"
    status, _, err = run_command(capsys, "arena", "convert", battles, "-o", converted)
    assert status == 0, err
    assert pd.read_csv(converted, dtype=str).equals(read_published(battles, "arena")[VERDICT_COLUMNS])
    boards = []
    for given in (battles, converted):
        status, out, err = run_command(capsys, "arena", "leaderboard", given, "--bootstrap", "30", "--bothbad",
                                       "drop", "--resample", "prompts")
        assert status == 0, err
        boards.append(out)
    assert boards[0] == boards[1]


# ---------------------------------------------------------------- the mirror's published files, through every verb

def mirror_inputs(mirror: Path, fmt: str) -> tuple[list[Path], list[Path]]:
    """(files or folders for the leaderboard and convert, a smaller set for judges and verdicts) of a format."""
    if fmt == "llmfao":
        root = next(mirror.glob("dustalov/llmfao/*"))
        return [root], [root / "gpt4-crowd-comparisons.csv", root / "gpt3-crowd-comparisons.csv"]
    if fmt == "prd":
        root = next(mirror.glob("bcdnlp/PRD/*/data/vicuna80"))
        return [root], [root / "ratings-gpt4", root / "ratings-claude"]  # 7040 human judges: a slow panel
    root = next(mirror.glob("WeOpenML/PandaLM/*/data"))
    return [root], [root]


@pytest.mark.parametrize("fmt", ["llmfao", "prd", "pandalm"])
def test_mirror_every_verb_with_from(capsys, tmp_path, mirror, fmt):
    everything, panel = mirror_inputs(mirror, fmt)
    read = read_published(everything, fmt)
    status, board, err = run_command(capsys, "arena", "leaderboard", *everything, "--from", fmt, "--bootstrap", "10")
    assert status == 0, err
    same_board(board, bootstrap(read[VERDICT_COLUMNS], n=10))
    converted = tmp_path / "verdicts.tsv"
    status, _, err = run_command(capsys, "arena", "convert", *everything, "--from", fmt, "-o", converted)
    assert status == 0, err
    status, again, err = run_command(capsys, "arena", "leaderboard", converted, "--bootstrap", "10")
    assert status == 0, err
    assert again == board  # convert, then the canonical fast reader: the same bytes as --from
    status, out, err = run_command(capsys, "arena", "judges", *panel, "--from", fmt)
    assert status == 0, err
    expected = judge_measures(read_published(panel, fmt)[VERDICT_COLUMNS]).judges
    assert list(table(out)["judge"]) == list(expected["judge"])
    np.testing.assert_allclose(table(out)["first_win_rate"].astype(float), expected["first_win_rate"])
    status, out, err = run_command(capsys, "arena", "verdicts", *panel, "--from", fmt)
    assert status == 0, err
    units = table(out)
    assert len(units) == len(JudgeAwareVerdicts().fit(read_published(panel, fmt)[VERDICT_COLUMNS]).units_)
    assert set(units["winner"]) <= set(read["model_a"]) | set(read["model_b"])


def test_arena_hard_folder_and_its_baseline_flag(capsys, tmp_path):
    import json

    folder = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)

    def game(qid, model, first, second):
        return json.dumps({"question_id": qid, "model": model, "judge": "gpt-4-1106-preview",
                           "games": [{"score": first}, {"score": second}]}) + "\n"

    (folder / "llama.jsonl").write_text(game("q1", "llama", "A>B", "B>A") + game("q2", "llama", "A=B", "B>>A"))
    (folder / "claude.jsonl").write_text(game("q1", "claude", "B>A", "A>B") + game("q2", "claude", "B>>A", "A=B"))
    status, out, err = run_command(capsys, "arena", "convert", folder, "--from", "arena_hard",
                                   "--arena-hard-baseline", "base")
    assert status == 0, err
    expected = read_published(folder, "arena_hard", baseline="base")[VERDICT_COLUMNS]
    pd.testing.assert_frame_equal(table(out), expected.astype(str), check_dtype=False)
    assert "base" in set(table(out)["model_a"]) and "gpt-4-0314" not in set(table(out)["model_a"])
    status, out, err = run_command(capsys, "arena", "leaderboard", folder, "--from", "arena_hard",
                                   "--arena-hard-baseline", "base", "--bootstrap", "0")
    assert status == 0, err
    assert set(table(out)["model"]) == {"base", "claude", "llama"}
    (folder / "llama.jsonl").write_text(game("q1", "llama", "A>B", "B>A") + game("q2", "llama", "A>>>B", "B>A"))
    status, _, err = run_command(capsys, "arena", "leaderboard", folder, "--from", "arena_hard")
    assert status == 1 and str(folder / "llama.jsonl") in err and "line 2" in err and "'A>>>B'" in err
