"""The verdicts of the pinned LLM-judge sets (llmfao, prd, pandalm): tiny hand-written files, bad input, and
the mirror's files, every verdict compared with one read by plain ``csv`` / ``json`` loops over the raw files."""
from __future__ import annotations

import csv
import json
import logging
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from io_helpers import assert_located, pinned, write

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.llmfao import verdicts_from_llmfao
from manyjudges.io.sources.pandalm import verdicts_from_pandalm
from manyjudges.io.sources.prd import verdicts_from_prd
from manyjudges.io.sources.verdict_sources import VERDICT_SOURCES, verdicts_of_source
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, WINNERS


def rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    return [tuple(r) for r in frame[VERDICT_COLUMNS].itertuples(index=False)]


def assert_verdicts(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == VERDICT_COLUMNS
    assert all(isinstance(v, str) and v for v in frame.to_numpy().ravel())
    assert set(frame["winner"]) <= set(WINNERS)
    assert not (frame["model_a"] == frame["model_b"]).any()


def counts(frame: pd.DataFrame) -> dict[str, int]:
    return {"verdicts": len(frame), "judges": frame["judge"].nunique(), "ties": int((frame["winner"] == "tie").sum()),
            "models": len(set(frame["model_a"]) | set(frame["model_b"])), "prompts": frame["prompt"].nunique()}


def direct_counts(verdicts: list[tuple[str, ...]]) -> dict[str, int]:
    """The same counts over (prompt, judge, model_a, model_b, winner) tuples, by plain loops."""
    return {"verdicts": len(verdicts), "judges": len({v[1] for v in verdicts}),
            "ties": sum(v[4] == "tie" for v in verdicts), "models": len({m for v in verdicts for m in v[2:4]}),
            "prompts": len({v[0] for v in verdicts})}


# ---------------------------------------------------------------- llmfao

CROWD = "id,prompt,model_x,model_y,judge,winner,left,right\n"
JUDGE = "id,prompt,model_x,model_y,winner,left,right\n"


def test_llmfao_tiny(tmp_path: Path) -> None:
    crowd = write(tmp_path / "crowd-comparisons.csv", CROWD + "0,8,97,98,58,tie,Airoboros L2 70B,Weaver 12k\n"
                  "0,8,97,98,14,right,Airoboros L2 70B,Weaver 12k\n"
                  '1,3,29,5,58,left,"Alpaca (7B), v2",Chronos Hermes (13B)\n')
    gpt4 = write(tmp_path / "gpt4-crowd-comparisons.csv", JUDGE + "0,8,97,98,left,Airoboros L2 70B,Weaver 12k\n")
    gpt3 = write(tmp_path / "gpt3-crowd-comparisons.csv", JUDGE + "0,8,97,98,right,Airoboros L2 70B,Weaver 12k\n")
    expected = [("8", "58", "Airoboros L2 70B", "Weaver 12k", "tie"),
                ("8", "14", "Airoboros L2 70B", "Weaver 12k", "model_b"),
                ("3", "58", "Alpaca (7B), v2", "Chronos Hermes (13B)", "model_a"),
                ("8", "gpt4", "Airoboros L2 70B", "Weaver 12k", "model_a"),
                ("8", "gpt3", "Airoboros L2 70B", "Weaver 12k", "model_b")]
    # the files in any order: read in the fixed order crowd, gpt4, gpt3
    assert rows(verdicts_from_llmfao([gpt3, crowd, gpt4])) == expected
    assert rows(verdicts_from_llmfao([gpt4])) == expected[3:4]
    with pytest.raises(ValueError, match="llmfao reads"):
        verdicts_from_llmfao([crowd, tmp_path / "gpt4-comparisons.csv"])
    with pytest.raises(ValueError, match="llmfao reads"):
        verdicts_from_llmfao([])


@pytest.mark.parametrize(("name", "text", "line", "reason", "value"), [
    ("crowd-comparisons.csv", CROWD + "0,8,97,98,58,tie,a,b\n0,8,97,98,14,draw,a,b\n", 3, "winner must be", "draw"),
    ("crowd-comparisons.csv", CROWD + "0,8,97,98,58,tie,a,b\n0,8,97,98,,tie,a,b\n", 3, "empty judge", ""),
    ("crowd-comparisons.csv", JUDGE + "0,8,97,98,tie,a,b\n", 1, "need a judge column",
     "id,prompt,model_x,model_y,winner,left,right"),
    ("gpt4-crowd-comparisons.csv", JUDGE + "0,8,97,98,tie,a,b\n1,8,97,97,left,a,a\n", 3, "a model against itself", "a"),
    ("gpt3-crowd-comparisons.csv", "id,prompt,model_x,model_y,left,right\n0,8,97,98,a,b\n", 1, "missing column",
     "id,prompt,model_x,model_y,left,right"),
])
def test_llmfao_bad_input(tmp_path: Path, name: str, text: str, line: int, reason: str, value: str) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(DataError, match=reason) as err:
        verdicts_from_llmfao([path])
    assert_located(err, path, line, value)


def llmfao_direct(files: dict[str, Path]) -> dict[str, list[tuple[str, ...]]]:
    """Each file's verdicts by a csv loop: model_x's name is ``left``, shown first."""
    out = {}
    for name, judge in (("crowd-comparisons.csv", None), ("gpt4-crowd-comparisons.csv", "gpt4"),
                        ("gpt3-crowd-comparisons.csv", "gpt3")):
        with open(files[name], encoding="utf-8", newline="") as handle:
            out[name] = [(r["prompt"], judge or r["worker"], r["left"], r["right"],
                          {"left": "model_a", "right": "model_b", "tie": "tie"}[r["winner"]])
                         for r in csv.DictReader(handle)]
    return out


def test_llmfao_mirror(mirror: Path) -> None:
    files = pinned("llmfao", mirror)
    assert sorted(files) == ["crowd-comparisons.csv", "gpt3-crowd-comparisons.csv", "gpt4-crowd-comparisons.csv"]
    frame = verdicts_from_llmfao(list(files.values()))
    assert_verdicts(frame)
    direct = llmfao_direct(files)
    assert rows(frame) == [v for name in direct for v in direct[name]]
    crowd = frame[~frame["judge"].isin(["gpt4", "gpt3"])]
    assert counts(crowd) == direct_counts(direct["crowd-comparisons.csv"])
    # the mirror README's figures: 8,931 crowd verdicts on pairs of 59 models' answers to 13 prompts,
    # by 124 workers, 3,471 ties; the same 2,139 pairs by each LLM judge
    assert counts(crowd) == {"verdicts": 8931, "judges": 124, "ties": 3471, "models": 59, "prompts": 13}
    for judge, name in (("gpt4", "gpt4-crowd-comparisons.csv"), ("gpt3", "gpt3-crowd-comparisons.csv")):
        assert counts(frame[frame["judge"] == judge]) == direct_counts(direct[name])
        assert len(direct[name]) == 2139
        # the crowd's pairs, shown in the same order
        assert set(zip(crowd["prompt"], crowd["model_a"], crowd["model_b"])) == {(v[0], v[2], v[3])
                                                                                  for v in direct[name]}
    assert verdicts_of_source("llmfao", list(files.values())[::-1]).equals(frame)


# ---------------------------------------------------------------- prd

def jsonl(path: Path, scores: list[tuple[int, int]]) -> Path:
    return write(path, "".join(json.dumps({"question_id": q, "score": s}) + "\n" for q, s in scores))


def test_prd_tiny(tmp_path: Path) -> None:
    ab = jsonl(tmp_path / "answer_bard-vs-answer_gpt4-claude-reviewer_threeclass.jsonl", [(1, 1), (2, 3)])
    ba = jsonl(tmp_path / "answer_gpt4-vs-answer_bard-claude-reviewer_threeclass.jsonl", [(1, 2)])
    g = jsonl(tmp_path / "answer_bard-vs-answer_gpt4-gpt4-reviewer-threeclass.jsonl", [(1, 2)])
    h1 = jsonl(tmp_path / "answer_gpt4-vs-answer_bard-human-reviewer_threeclass.jsonl", [(1, 1), (1, 2)])
    h2 = jsonl(tmp_path / "answer_bard-vs-answer_gpt4-human-reviewer_threeclass.jsonl", [(2, 3)])
    expected = [("1", "claude", "bard", "gpt4", "model_a"), ("2", "claude", "bard", "gpt4", "tie"),
                ("1", "claude", "gpt4", "bard", "model_b"), ("1", "gpt4", "bard", "gpt4", "model_b"),
                ("2", "human-1", "bard", "gpt4", "tie"), ("1", "human-2", "gpt4", "bard", "model_a"),
                ("1", "human-3", "gpt4", "bard", "model_b")]
    assert rows(verdicts_from_prd([h1, g, ba, h2, ab])) == expected
    assert rows(verdicts_from_prd([ab, ba, g, h2, h1])) == expected
    with pytest.raises(ValueError, match="prd needs"):
        verdicts_from_prd([])


def test_prd_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path / "answer_bard-vs-answer_gpt4-claude-reviewer_threeclass.jsonl",
                 '{"question_id": 1, "score": 1}\n{"question_id": 2, "score": 4}\n')
    with pytest.raises(DataError, match="score must be 1, 2 or 3") as err:
        verdicts_from_prd([path])
    assert_located(err, path, 2, 4)
    path = jsonl(tmp_path / "answer_bard-vs-answer_bard-claude-reviewer_threeclass.jsonl", [(1, 1)])
    with pytest.raises(DataError, match="two different models") as err:
        verdicts_from_prd([path])
    assert_located(err, path, None, path.name)


def test_prd_mirror(mirror: Path) -> None:
    files = pinned("prd", mirror)
    frame = verdicts_from_prd(list(files.values()))
    assert_verdicts(frame)
    # direct: the judge, X and Y from the folder and the file name, every line a verdict
    llm, human = [], []
    for name, path in files.items():
        judge = path.parent.name.removeprefix("ratings-")
        x, y = name.removeprefix("answer_").split(f"-{judge}-reviewer")[0].split("-vs-answer_")
        for text in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(text)
            verdict = (str(record["question_id"]), judge, x, y, ("model_a", "model_b", "tie")[record["score"] - 1])
            (human if judge == "human" else llm).append(verdict)
    humans = frame["judge"].str.startswith("human-")
    assert Counter(rows(frame[~humans])) == Counter(llm)
    assert Counter(v[:1] + ("human",) + v[2:] for v in rows(frame[humans])) == Counter(human)
    # one judge per anonymous vote, numbered 1..n
    assert sorted(frame.loc[humans, "judge"]) == sorted(f"human-{n}" for n in range(1, len(human) + 1))
    assert counts(frame[~humans]) == direct_counts(llm)
    assert counts(frame[~humans]) == {"verdicts": 8000, "judges": 5, "ties": direct_counts(llm)["ties"],
                                      "models": 5, "prompts": 80}
    assert frame[~humans].groupby("judge").size().tolist() == [1600] * 5
    assert counts(frame[humans])["verdicts"] == len(human) == counts(frame)["judges"] - 5
    # each judge saw each pair of each question in both orders
    for judge, group in frame[~humans].groupby("judge"):
        shown = Counter(zip(group["prompt"], group["model_a"], group["model_b"]))
        assert set(shown.values()) == {1}
        assert all((p, b, a) in shown for p, a, b in shown), judge
    assert verdicts_of_source("prd", list(files.values())).equals(frame)


# ---------------------------------------------------------------- pandalm

def test_pandalm_tiny(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    records = [{"idx": 0, "cmp_key": "bloom-7b_llama-7b", "instruction": "I", "input": "x",
                "annotator1": 2, "annotator2": 2, "annotator3": 0},
               {"idx": 1, "cmp_key": "llama-7b_opt-7b", "instruction": "J", "input": "",
                "annotator1": 1, "annotator2": 0, "annotator3": 1},
               {"idx": 2, "cmp_key": "opt-7b_bloom-7b", "instruction": "I", "input": "x",
                "annotator1": 1, "annotator2": 1, "annotator3": 1}]
    humans = write(tmp_path / "testset-v1.json", json.dumps(records))
    gpt = write(tmp_path / "gpt-3.5-turbo-testset-v1.json", json.dumps(
        [{"idx": 2, "gpt_result": "Tie"}, {"idx": 0, "gpt_result": "garbage"}, {"idx": 1, "gpt_result": "2"}]))
    with caplog.at_level(logging.WARNING):
        frame = verdicts_from_pandalm([gpt, humans])
    assert "1 verdicts 'garbage' dropped (idx 0)" in caplog.text
    assert rows(frame) == [("0", "annotator1", "bloom-7b", "llama-7b", "model_b"),
                           ("0", "annotator2", "bloom-7b", "llama-7b", "model_b"),
                           ("0", "annotator3", "bloom-7b", "llama-7b", "tie"),
                           ("1", "annotator1", "llama-7b", "opt-7b", "model_a"),
                           ("1", "annotator2", "llama-7b", "opt-7b", "tie"),
                           ("1", "annotator3", "llama-7b", "opt-7b", "model_a"),
                           ("0", "annotator1", "opt-7b", "bloom-7b", "model_a"),
                           ("0", "annotator2", "opt-7b", "bloom-7b", "model_a"),
                           ("0", "annotator3", "opt-7b", "bloom-7b", "model_a"),
                           ("0", "gpt-3.5-turbo", "opt-7b", "bloom-7b", "tie"),
                           ("1", "gpt-3.5-turbo", "llama-7b", "opt-7b", "model_b")]
    assert rows(verdicts_from_pandalm([humans])) == rows(frame)[:9]
    with pytest.raises(ValueError, match="pandalm needs"):
        verdicts_from_pandalm([gpt])


@pytest.mark.parametrize("key", ["bloom-7b", "bloom-7b_bloom-7b", "a_b_c", 3])
def test_pandalm_bad_cmp_key(tmp_path: Path, key: object) -> None:
    record = {"idx": 5, "cmp_key": key, "instruction": "I", "input": "", "annotator1": 0, "annotator2": 0,
              "annotator3": 0}
    path = write(tmp_path / "testset-v1.json", json.dumps([record]))
    with pytest.raises(DataError, match="idx 5: cmp_key must be") as err:
        verdicts_from_pandalm([path])
    assert_located(err, path, None, key)


def test_pandalm_mirror(mirror: Path) -> None:
    files = pinned("pandalm", mirror)
    frame = verdicts_from_pandalm(list(files.values()))
    assert_verdicts(frame)
    # direct: a json loop; response 1 is cmp_key's first model; the prompt is the instruction and input
    records = json.loads(files["testset-v1.json"].read_text(encoding="utf-8"))
    first: dict[tuple[str, str], int] = {}
    for r in sorted(records, key=lambda r: r["idx"]):
        first.setdefault((r["instruction"], r["input"]), r["idx"])
    by_idx = {r["idx"]: (str(first[(r["instruction"], r["input"])]), *r["cmp_key"].split("_")) for r in records}
    winner = {0: "tie", 1: "model_a", 2: "model_b", "0": "tie", "1": "model_a", "2": "model_b", "Tie": "tie"}
    direct = []
    for r in records:
        for k in (1, 2, 3):
            prompt, a, b = by_idx[r["idx"]]
            direct.append((prompt, f"annotator{k}", a, b, winner[r[f"annotator{k}"]]))
    garbage = 0
    for name in ("gpt-3.5-turbo-testset-v1.json", "pandalm-7b-testset-v1.json"):
        for r in json.loads(files[name].read_text(encoding="utf-8")):
            (value,) = [v for k, v in r.items() if k.endswith("_result")]
            if value == "garbage":
                garbage += 1
                continue
            prompt, a, b = by_idx[r["idx"]]
            direct.append((prompt, name.removesuffix("-testset-v1.json"), a, b, winner[value]))
    assert rows(frame) == direct
    assert counts(frame) == direct_counts(direct)
    assert garbage == 25
    assert counts(frame)["verdicts"] == 3 * 999 + 999 + 999 - 25
    assert counts(frame)["judges"] == 5 and counts(frame)["models"] == 5 and counts(frame)["prompts"] == 170
    assert verdicts_of_source("pandalm", list(files.values())).equals(frame)


def test_dispatch() -> None:
    assert set(VERDICT_SOURCES) == {"llmfao", "prd", "pandalm"}
    with pytest.raises(ValueError, match="unknown verdicts source 'arena'"):
        verdicts_of_source("arena", [])
