"""read_published: every published pairwise-verdict format behind one name, on tiny hand-written files (MT-Bench,
Arena-Hard-Auto, AlpacaEval, Arena), bad input, directories, the duplicates rules, and the mirror's llmfao, PRD
and PandaLM files as published."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest
from io_helpers import assert_located, write

from manyjudges.io.engine.errors import DataError, DataWarning
from manyjudges.io.sources.arena_hard import _verdicts_from_arena_hard
from manyjudges.io.sources.mt_bench import _verdicts_from_mt_bench
from manyjudges.io.sources.prd import _prd_file_name, verdicts_from_prd
from manyjudges.io.sources.published import FORMATS, convert, read_published
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, read_verdicts


def rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    return [tuple(r) for r in frame[VERDICT_COLUMNS].itertuples(index=False)]


def jsonl(path: Path, *records: object) -> Path:
    return write(path, "".join(json.dumps(r) + "\n" for r in records))


def mt(qid: int, m1: str, m2: str, g1: str, g2: str, turn: int = 1, judge: str = "gpt-4") -> dict:
    return {"question_id": qid, "model_1": m1, "model_2": m2, "g1_winner": g1, "g2_winner": g2,
            "judge": [judge, "pair-v2"], "turn": turn, "g1_judgment": "...", "tstamp": 1.0}


# ---------------------------------------------------------------- mt_bench

def test_mt_bench_two_games_a_line_the_second_swapped(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "gpt-4_pair.jsonl", mt(81, "alpaca-13b", "gpt-3.5", "model_2", "model_2"),
                 mt(81, "alpaca-13b", "gpt-3.5", "model_1", "tie", turn=2),
                 mt(82, "vicuna", "claude", "error", "model_1"))
    with pytest.warns(DataWarning, match=r"left out 1 MT-Bench .*gpt-4_pair.jsonl: 1"):
        got = read_published(path, "mt_bench")
    assert rows(got) == [("81/turn1", "gpt-4", "alpaca-13b", "gpt-3.5", "model_b"),
                         ("81/turn1", "gpt-4", "gpt-3.5", "alpaca-13b", "model_a"),
                         ("81/turn2", "gpt-4", "alpaca-13b", "gpt-3.5", "model_a"),
                         ("81/turn2", "gpt-4", "gpt-3.5", "alpaca-13b", "tie"),
                         ("82/turn1", "gpt-4", "claude", "vicuna", "model_b")]
    with pytest.warns(DataWarning):
        assert rows(_verdicts_from_mt_bench([path])) == rows(got)


def test_mt_bench_without_failures_warns_nothing(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "gpt-4_pair.jsonl", {**mt(5, "a", "b", "tie", "model_1"), "turn": None})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = read_published(path, "mt_bench")
    assert rows(got) == [("5", "gpt-4", "a", "b", "tie"), ("5", "gpt-4", "b", "a", "model_b")]


@pytest.mark.parametrize("text, line, value, reason", [
    ('{"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "tie", "g2_winner": "tie", "judge": ["j", "p"]}\n'
     "not json\n", 2, "not json", "not a JSON object"),
    ('{"question_id": 1, "model_2": "b", "g1_winner": "tie", "g2_winner": "tie", "judge": ["j", "p"]}\n', 1,
     "question_id, model_2, g1_winner, g2_winner, judge", "missing key 'model_1'"),
    ('{"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": 1, "g2_winner": "tie", "judge": ["j", "p"]}\n',
     1, 1, "g1_winner must be a string"),
    ('{"question_id": 1, "model_1": "a", "model_2": "a", "g1_winner": "tie", "g2_winner": "tie", "judge": ["j"]}\n',
     1, "a", "same model"),
])
def test_mt_bench_bad_input(tmp_path: Path, text: str, line: int, value: object, reason: str) -> None:
    path = write(tmp_path / "gpt-4_pair.jsonl", text)
    with pytest.raises(DataError, match=reason) as err:
        read_published(path, "mt_bench")
    assert_located(err, path, line, value)


def test_mt_bench_refuses_single_answer_grading(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "gpt-4_single.jsonl", {"question_id": 81, "model": "alpaca-13b", "judge": ["gpt-4",
                 "single-v1"], "score": 4, "turn": 1})
    with pytest.raises(DataError, match="single-answer grading") as err:
        read_published(path, "mt_bench")
    assert_located(err, path, 1, "alpaca-13b")


# ---------------------------------------------------------------- arena_hard

def ah(qid: str, model: str, s1: str | None, s2: str | None, **extra: object) -> dict:
    return {"question_id": qid, "model": model, "judge": "gpt-4-1106-preview",
            "games": [{"user_prompt": "...", "judgment": "...", "score": s1}, {"score": s2}], **extra}


def test_arena_hard_baseline_first_then_swapped(tmp_path: Path) -> None:
    folder = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)
    jsonl(folder / "llama.jsonl", ah("q1", "llama", "A>>B", "A>B"), ah("q2", "llama", "A=B", None))
    jsonl(folder / "claude.jsonl", ah("q1", "claude", "B>A", "B>>A"), {**ah("q2", "claude", "B<A", "A<<B"),
          "games": [{"score": "B<A"}, None]})
    with pytest.warns(DataWarning, match=r"left out 2 Arena-Hard"):
        got = read_published(folder, "arena_hard")
    judge = "gpt-4-1106-preview"
    assert rows(got) == [("q1", judge, "gpt-4-0314", "claude", "model_b"),  # claude.jsonl sorts first
                         ("q1", judge, "claude", "gpt-4-0314", "model_b"),
                         ("q2", judge, "gpt-4-0314", "claude", "model_a"),
                         ("q1", judge, "gpt-4-0314", "llama", "model_a"),
                         ("q1", judge, "llama", "gpt-4-0314", "model_a"),
                         ("q2", judge, "gpt-4-0314", "llama", "tie")]


def test_arena_hard_baseline_keyword_and_v2_lines(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "m.jsonl", ah("q1", "m", "A>B", "B>A"), {**ah("", "m", "A=B", "A=B", baseline="o3"),
                 "uid": "u9", "question_id": None})
    del_qid = json.loads(path.read_text().splitlines()[1])
    del del_qid["question_id"]
    jsonl(path, ah("q1", "m", "A>B", "B>A"), del_qid)
    got = _verdicts_from_arena_hard([path], baseline="base")
    assert rows(got) == [("q1", "gpt-4-1106-preview", "base", "m", "model_a"),
                         ("q1", "gpt-4-1106-preview", "m", "base", "model_b"),
                         ("u9", "gpt-4-1106-preview", "o3", "m", "tie"),
                         ("u9", "gpt-4-1106-preview", "m", "o3", "tie")]
    assert rows(read_published(path, "arena_hard", baseline="base")) == rows(got)


@pytest.mark.parametrize("record, value, reason", [
    (ah("q1", "m", "A>>>B", "A>B"), "A>>>B", "game 1 score must be one of"),
    ({"question_id": "q1", "model": "m", "games": []}, "question_id, model, games", "missing key 'judge'"),
    (ah("q1", "gpt-4-0314", "A>B", "A>B"), "gpt-4-0314", "the model is the baseline"),
    ({**ah("q1", "m", "A>B", "A>B"), "games": [{"score": "A>B"}]}, "[{'score': 'A>B'}]", "two games"),
])
def test_arena_hard_bad_input(tmp_path: Path, record: dict, value: object, reason: str) -> None:
    path = jsonl(tmp_path / "m.jsonl", ah("q0", "m", "A>B", "A>B"), record)
    with pytest.raises(DataError, match=reason) as err:
        read_published(path, "arena_hard")
    assert_located(err, path, 2, value)


# ---------------------------------------------------------------- alpaca_eval

def ae(instruction: str, preference: object, g1: str = "gpt4_turbo", g2: str = "llama", **extra: object) -> dict:
    return {"instruction": instruction, "output_1": "x", "output_2": "y", "generator_1": g1, "generator_2": g2,
            "annotator": "weighted_alpaca_eval_gpt4_turbo", "preference": preference, **extra}


def test_alpaca_eval_preferences(tmp_path: Path) -> None:
    write(tmp_path / "annotations.json", json.dumps([
        ae("Say hi", 1), ae("Say hi", 2, g1="a", g2="b"), ae("Add", 1.5), ae("Add", 1.25), ae("Add", 1.9),
        ae("Add", None), ae("Sum", 0), ae("Sum", -1), ae("Sum", float("nan")), ae("Sub", 2.0, input="3 - 1"),
        {k: v for k, v in ae("Mul", 1).items() if k != "preference"}]))
    with pytest.warns(DataWarning, match=r"left out 4 AlpacaEval annotations"):
        got = read_published(tmp_path, "alpaca_eval")
    judge = "weighted_alpaca_eval_gpt4_turbo"
    assert rows(got) == [("Say hi", judge, "gpt4_turbo", "llama", "model_a"), ("Say hi", judge, "a", "b", "model_b"),
                         ("Add", judge, "gpt4_turbo", "llama", "tie"), ("Add", judge, "gpt4_turbo", "llama", "model_a"),
                         ("Add", judge, "gpt4_turbo", "llama", "model_b"), ("Sum", judge, "gpt4_turbo", "llama", "tie"),
                         ("Sub\n\n3 - 1", judge, "gpt4_turbo", "llama", "model_b")]
    assert list(got.columns) == [*VERDICT_COLUMNS, "p_b", "length_a", "length_b"]
    assert got["p_b"].tolist() == pytest.approx([0.0, 1.0, 0.5, 0.25, 0.9, 0.5, 1.0])


@pytest.mark.parametrize("record, value, reason", [
    (ae("Add", 3), 3, "record 1: preference must be"),
    (ae("Add", "1"), "1", "record 1: preference must be"),
    ({k: v for k, v in ae("Add", 1).items() if k != "annotator"},
     "instruction, output_1, output_2, generator_1, generator_2, preference", "record 1: missing key 'annotator'"),
    (ae("Add", 1, g1="a", g2="a"), "a", "record 1: generator_1 and generator_2 are the same model"),
])
def test_alpaca_eval_bad_input(tmp_path: Path, record: dict, value: object, reason: str) -> None:
    path = write(tmp_path / "annotations.json", json.dumps([ae("Say hi", 1), record]))
    with pytest.raises(DataError, match=reason) as err:
        read_published(path, "alpaca_eval")
    assert_located(err, path, None, value)


def test_alpaca_eval_not_a_list(tmp_path: Path) -> None:
    path = write(tmp_path / "annotations.json", '{"instruction": "x"}')
    with pytest.raises(DataError, match="must be a JSON list") as err:
        read_published(path, "alpaca_eval")
    assert_located(err, path, None, "dict")
    broken = write(tmp_path / "annotations.json", '[{"instruction": "x"},\n')
    with pytest.raises(DataError, match="not valid JSON"):
        read_published(broken, "alpaca_eval")


# ---------------------------------------------------------------- arena, duplicates, dispatch, convert

TABLE = ("prompt\tjudge\tmodel_a\tmodel_b\twinner\np1\tu1\ta\tb\tmodel_a\np1\tu1\ta\tb\ttie\n"
         "p2\tu1\tb\ta\ttie (bothbad)\n")


def test_arena_table_and_battles(tmp_path: Path) -> None:
    table = write(tmp_path / "battles.tsv", TABLE)
    assert rows(read_published(table, "arena")) == rows(read_verdicts(table))
    battles = write(tmp_path / "battles.json", json.dumps([
        {"model_a": "a", "model_b": "b", "winner": "tie (bothbad)", "judge": "u9", "question_id": "q7", "turn": 1},
        {"model_a": "b", "model_b": "c", "winner": "model_b", "judge": "u9", "question_id": 8}]))
    assert rows(read_published(battles, "arena")) == [("q7", "u9", "a", "b", "tie (bothbad)"), ("8", "u9", "b", "c",
                                                                                                 "model_b")]
    both = read_published(tmp_path, "arena")  # battles.json sorts before battles.tsv
    assert len(both) == 5 and both["prompt"].tolist()[:2] == ["q7", "8"]
    bad = write(tmp_path / "bad.json", json.dumps([{"model_a": "a", "model_b": "b", "winner": "a", "judge": "u",
                                                    "question_id": 1}]))
    with pytest.raises(DataError, match="record 0: winner must be") as err:
        read_published(bad, "arena")
    assert_located(err, bad, None, "a")


def test_duplicates_rules(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "gpt-4_pair.jsonl", mt(1, "a", "b", "model_1", "model_1"), mt(2, "a", "b", "tie", "tie"),
                 mt(1, "a", "b", "model_2", "tie"))
    assert len(read_published(path, "mt_bench")) == 6
    first = read_published(path, "mt_bench", duplicates="first")
    assert rows(first) == [("1/turn1", "gpt-4", "a", "b", "model_a"), ("1/turn1", "gpt-4", "b", "a", "model_b"),
                           ("2/turn1", "gpt-4", "a", "b", "tie"), ("2/turn1", "gpt-4", "b", "a", "tie")]
    last = read_published(path, "mt_bench", duplicates="last")
    assert rows(last) == [("2/turn1", "gpt-4", "a", "b", "tie"), ("2/turn1", "gpt-4", "b", "a", "tie"),
                          ("1/turn1", "gpt-4", "a", "b", "model_b"), ("1/turn1", "gpt-4", "b", "a", "tie")]
    with pytest.raises(DataError, match=r"already judged at .*gpt-4_pair.jsonl, line 1; say what a repeat") as err:
        read_published(path, "mt_bench", duplicates="error")
    assert_located(err, path, 3, "1/turn1\tgpt-4\ta\tb\tmodel_b")


def test_duplicates_across_files_and_in_one_table(tmp_path: Path) -> None:
    one = write(tmp_path / "one.tsv", TABLE)
    with pytest.raises(DataError, match="already judged on line 2") as err:
        read_published(one, "arena", duplicates="error")
    assert err.value.line == 3
    one = write(tmp_path / "one.tsv", "prompt\tjudge\tmodel_a\tmodel_b\twinner\np1\tu1\ta\tb\ttie\n"
                "p2\tu1\tb\ta\ttie\n")
    other = write(tmp_path / "two.tsv", "prompt\tjudge\tmodel_a\tmodel_b\twinner\np2\tu1\tb\ta\tmodel_a\n")
    with pytest.raises(DataError, match=r"data row 1: .*already judged at .*one.tsv, data row 2") as err:
        read_published([one, other], "arena", duplicates="error")
    assert err.value.path == str(other)
    assert rows(read_published([one, other], "arena", duplicates="last")) == [("p1", "u1", "a", "b", "tie"),
                                                                              ("p2", "u1", "b", "a", "model_a")]
    with pytest.raises(ValueError, match="duplicates must be one of"):
        read_published(one, "arena", duplicates="never")


def test_unknown_format_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown verdicts format 'chatbot'; known: " + ", ".join(FORMATS)):
        read_published(tmp_path, "chatbot")
    with pytest.raises(ValueError, match=r"no file that mt_bench reads \(\*_pair.jsonl\)"):
        read_published(tmp_path, "mt_bench")
    with pytest.raises(FileNotFoundError):
        read_published(tmp_path / "nothing.jsonl", "mt_bench")
    with pytest.raises(ValueError, match="needs files"):
        read_published([], "prd")


def test_alpaca_eval_lengths_are_the_outputs_characters(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write(tmp_path / "a" / "annotations.json", json.dumps([ae("Say hi", 1, output_1="hello", output_2="hi there"),
                                                                 ae("Add", 2)]))
    got = read_published(one, "alpaca_eval")
    assert got["length_a"].tolist() == [5.0, 1.0] and got["length_b"].tolist() == [8.0, 1.0]
    # a file without the outputs: no length columns at all, rather than lengths for some rows
    other = write(tmp_path / "b" / "annotations.json", json.dumps([{k: v for k, v in ae("Sub", 1).items()
                                                                    if k != "output_2"}]))
    assert "length_a" not in read_published([one, other], "alpaca_eval").columns


def test_convert_writes_the_canonical_table(tmp_path: Path) -> None:
    path = write(tmp_path / "annotations.json", json.dumps([ae("Say hi", 1.75), ae("Add", 1)]))
    out = tmp_path / "out" / "verdicts.csv"
    got = convert(path, "alpaca_eval", out)
    assert "p_b" in got.columns
    # the soft preference and the outputs' lengths are kept
    assert out.read_text().splitlines()[0] == "prompt,judge,model_a,model_b,winner,p_b,length_a,length_b"
    assert rows(read_verdicts(out)) == rows(got)
    assert read_verdicts(out, extras=True)["p_b"].tolist() == got["p_b"].tolist() == [0.75, 0.0]
    with pytest.raises(DataError):
        convert(write(tmp_path / "bad.json", "[1]"), "alpaca_eval", tmp_path / "never.tsv")
    assert not (tmp_path / "never.tsv").exists()


# ---------------------------------------------------------------- PRD file names

@pytest.mark.parametrize("name, expected", [
    ("answer_gpt4-vs-answer_vicuna-13b-gpt35-reviewer_threeclass.jsonl", ("gpt4", "vicuna-13b", "gpt35")),
    ("answer_vicuna-13b-vs-answer_gpt4-vicuna-13b-reviewer.jsonl", ("vicuna-13b", "gpt4", "vicuna-13b")),
    ("answer-gpt35-vs-answer-gpt4-gpt35-reviewer-threeclass.jsonl", ("gpt35", "gpt4", "gpt35")),
    ("answer_guanaco-13b-vs-answer_vicuna-13b-human-reviewer_threeclass.jsonl", ("guanaco-13b", "vicuna-13b", "human")),
    ("answer_bard-vs-answer_guanaco-7b-human-reviewer_threeclass.jsonl", ("bard", "guanaco-7b", "human")),
])
def test_prd_file_names_as_published(name: str, expected: tuple[str, str, str]) -> None:
    assert _prd_file_name(name) == expected


def test_prd_one_file_and_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ratings-gpt35"
    (folder / "pairwise_no_fix").mkdir(parents=True)
    write(folder / "pairwise_no_fix" / "annotate.py", "print()\n")
    hyphen = jsonl(folder / "answer-gpt35-vs-answer-gpt4-gpt35-reviewer-threeclass.jsonl",
                   {"question_id": 1, "score": 2, "text": "..."})
    jsonl(folder / "answer_gpt35-vs-answer_gpt4-gpt35-reviewer_threeclass.jsonl", {"question_id": 1, "score": 1})
    assert rows(read_published(hyphen, "prd")) == [("1", "gpt35", "gpt35", "gpt4", "model_b")]
    assert len(read_published(folder, "prd")) == 2  # the two files judge one pair: two verdicts, both kept
    with pytest.raises(DataError, match=r"line 1: \(prompt, judge, model_a, model_b\) already judged at .*line 1"):
        read_published(folder, "prd", duplicates="error")


# ---------------------------------------------------------------- the mirror's files as published

def prd_root(mirror: Path) -> Path:
    return next(mirror.glob("bcdnlp/PRD/*/data/vicuna80"))


def test_mirror_llmfao_crowd_file_alone(mirror: Path) -> None:
    root = next(mirror.glob("dustalov/llmfao/*"))
    crowd = read_published(root / "crowd-comparisons.csv", "llmfao")
    assert len(crowd) == 8931 and crowd["judge"].nunique() > 2
    every = read_published(root, "llmfao")
    assert rows(every.iloc[:len(crowd)]) == rows(crowd)
    assert set(every["judge"]) >= {"gpt4", "gpt3"}


def test_mirror_prd_every_ratings_file_is_read(mirror: Path) -> None:
    root = prd_root(mirror)
    files = sorted(p for p in root.glob("ratings-*/**/*") if p.is_file() and p.suffix == ".jsonl")
    assert len(files) == 162
    for path in files:
        assert len(read_published(path, "prd")) > 0, path
    every = read_published(root, "prd")
    assert len(every) == sum(len(verdicts_from_prd([p])) for p in files)
    assert {m for m in every["model_b"] if m.startswith("guanaco")} == {f"guanaco-{n}b" for n in (7, 13, 33, 65)}
    assert set(every["judge"]) - {j for j in every["judge"] if j.startswith("human-")} == {
        "bard", "claude", "gpt35", "gpt4", "vicuna-13b"}


def test_mirror_pandalm(mirror: Path) -> None:
    data = next(mirror.glob("WeOpenML/PandaLM/*/data"))
    humans = read_published(data / "testset-v1.json", "pandalm")
    assert set(humans["judge"]) == {"annotator1", "annotator2", "annotator3"}
    every = read_published(data, "pandalm")
    assert rows(every.iloc[:len(humans)]) == rows(humans)
    assert set(every["judge"]) == {"annotator1", "annotator2", "annotator3", "gpt-3.5-turbo", "pandalm-7b"}
