"""The LLM-judge panel parsers (llmjudge, prd, pandalm): tiny hand-written files, bad input, and the
mirror's files counted against a direct count over the raw files."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from io_helpers import assert_located, pinned

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.llmjudge import _LLMJUDGE_GOLD, parse_llmjudge
from manyjudges.io.sources.pandalm import parse_pandalm
from manyjudges.io.sources.prd import _prd_file_name, parse_prd


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def table(labels) -> dict[tuple[str, str], int]:
    return {(i, w): int(v) for i, w, v in labels[["item", "judge", "label"]].itertuples(index=False)}


# ---------------------------------------------------------------- llmjudge


def test_llmjudge_tiny(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    gold = write(tmp_path / _LLMJUDGE_GOLD, "q1 0 p1 3\nq1 0 p2 0\nq2 0 p1 1\n")
    run_a = write(tmp_path / "T-a.txt", "q1 0 p1 2\nq1 0 p2 0\nq2 0 p1 5\n")
    run_b = write(tmp_path / "T-b.txt", "q1 0 p1 3\nq2 0 p1 1\nq2 0 p1 2\n")
    data = parse_llmjudge([run_a, gold, run_b])
    assert table(data.labels) == {("q1:p1", "T-a"): 2, ("q1:p1", "T-b"): 3, ("q1:p2", "T-a"): 0,
                                  ("q2:p1", "T-b"): 1}
    assert data.truth.to_dict("list") == {"item": ["q1:p1", "q1:p2", "q2:p1"], "truth": [3, 0, 1]}
    assert data.dropped == {"grade_out_of_range": 1, "duplicate": 0, "duplicate_conflict": 1}
    assert "T-a.txt" in caplog.text and "3: '5'" in caplog.text
    assert data.class_names == ["0", "1", "2", "3"]


@pytest.mark.parametrize(("text", "line", "value"), [
    ("q1 0 p1 2\nq1 0 p2\n", 2, "q1 0 p2"),  # a field missing
    ("q1 0 p1 2\nq1 0 p2 x\n", 2, "x"),  # a grade that is no integer
    ("q1 Q0 p1 2\n", 1, "Q0"),  # the second field
])
def test_llmjudge_bad_run_line(tmp_path: Path, text: str, line: int, value: str) -> None:
    gold = write(tmp_path / _LLMJUDGE_GOLD, "q1 0 p1 3\n")
    run = write(tmp_path / "T-a.txt", text)
    with pytest.raises(DataError) as err:
        parse_llmjudge([run, gold])
    assert_located(err, run, line, value)


def test_llmjudge_bad_gold(tmp_path: Path) -> None:
    run = write(tmp_path / "T-a.txt", "q1 0 p1 2\n")
    gold = write(tmp_path / _LLMJUDGE_GOLD, "q1 0 p1 3\nq1 0 p2 4\n")
    with pytest.raises(DataError) as err:
        parse_llmjudge([run, gold])
    assert_located(err, gold, 2, "4")
    write(gold, "q1 0 p1 3\nq1 0 p1 2\n")
    with pytest.raises(DataError, match="two different gold"):
        parse_llmjudge([run, gold])
    with pytest.raises(ValueError, match="gold"):
        parse_llmjudge([run])


def test_llmjudge_mirror(mirror: Path) -> None:
    files = pinned("llmjudge", mirror)
    data = parse_llmjudge(list(files.values()))
    # direct count: every line of every run, grades 0-3 kept
    kept, outside, items, runs = 0, 0, set(), set()
    for name, path in files.items():
        if name == _LLMJUDGE_GOLD:
            continue
        runs.add(Path(name).stem)
        for line in path.read_text().splitlines():
            q, _, p, g = line.split()
            items.add(f"{q}:{p}")
            kept, outside = (kept + 1, outside) if g in "0123" else (kept, outside + 1)
    gold = [line.split() for line in files[_LLMJUDGE_GOLD].read_text().splitlines()]
    assert (len(runs), kept, outside, len(items)) == (33, 145956, 3, 4423)
    assert len(data.labels) == kept and data.labels["judge"].nunique() == len(runs)
    assert data.labels["item"].nunique() == len(items) and data.dropped["grade_out_of_range"] == outside
    assert len(data.truth) == len(gold) == 4423
    assert dict(zip(data.truth["item"], data.truth["truth"])) == {f"{q}:{p}": int(g) for q, _, p, g in gold}
    assert sorted(data.labels["label"].unique()) == [0, 1, 2, 3]


# ---------------------------------------------------------------- prd


def verdicts(path: Path, rows: list[tuple[int, int]]) -> Path:
    return write(path, "".join(json.dumps({"question_id": q, "text": "t", "score": s}) + "\n" for q, s in rows))


def test_prd_tiny(tmp_path: Path) -> None:
    # gpt4 judges claude (shown first) vs bard, and bard (first) vs claude; humans vote on the pair
    ba = verdicts(tmp_path / "answer_claude-vs-answer_bard-gpt4-reviewer_threeclass.jsonl", [(1, 1), (2, 3)])
    ab = verdicts(tmp_path / "answer_bard-vs-answer_claude-gpt4-reviewer-threeclass.jsonl", [(1, 2), (2, 1)])
    hum = verdicts(tmp_path / "answer_claude-vs-answer_bard-human-reviewer_threeclass.jsonl",
                   [(1, 1), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3)])
    data = parse_prd([ba, ab, hum])
    # class 0 = bard (alphabetically first) wins, 1 = claude wins, 2 = tie
    assert table(data.labels) == {("1:bard:claude", "gpt4:ba"): 1, ("1:bard:claude", "gpt4:ab"): 1,
                                  ("2:bard:claude", "gpt4:ba"): 2, ("2:bard:claude", "gpt4:ab"): 0}
    assert data.truth.to_dict("list") == {"item": ["1:bard:claude"], "truth": [1]}  # two of three say claude
    assert data.dropped["human_tie"] == 1


def test_prd_file_names(tmp_path: Path) -> None:
    assert _prd_file_name("answer_gpt4-vs-answer_vicuna-13b-vicuna-13b-reviewer.jsonl") == ("gpt4", "vicuna-13b",
                                                                                           "vicuna-13b")
    assert _prd_file_name("answer_vicuna-13b-vs-answer_bard-human-reviewer_threeclass.jsonl") == (
        "vicuna-13b", "bard", "human")
    # the published names that once were refused: hyphens after "answer", a model beyond the five (human votes)
    assert _prd_file_name("answer-gpt35-vs-answer-gpt4-gpt35-reviewer-threeclass.jsonl") == ("gpt35", "gpt4", "gpt35")
    assert _prd_file_name("answer_gpt4-vs-answer_guanaco-7b-human-reviewer_threeclass.jsonl") == (
        "gpt4", "guanaco-7b", "human")
    for name in ("answer_gpt4-vs-answer_bard-llama-reviewer_threeclass.jsonl",
                 "answer_gpt4-vs-answer_gpt4-gpt35-reviewer_threeclass.jsonl", "notes.jsonl", "annotate.py"):
        with pytest.raises(DataError, match=name.replace(".", r"\.")):
            _prd_file_name(tmp_path / name)


@pytest.mark.parametrize(("text", "value"), [('{"question_id": 1, "score": 4}', 4),
                                             ('{"question_id": "1", "score": 1}', '{"question_id": "1", "score": 1}'),
                                             ("{not json", "{not json")])
def test_prd_bad_line(tmp_path: Path, text: str, value: object) -> None:
    path = write(tmp_path / "answer_bard-vs-answer_gpt4-gpt4-reviewer_threeclass.jsonl",
                 '{"question_id": 1, "score": 1}\n' + text + "\n")
    with pytest.raises(DataError) as err:
        parse_prd([path])
    assert_located(err, path, 2, value)


def test_prd_mirror(mirror: Path) -> None:
    files = pinned("prd", mirror)
    data = parse_prd(list(files.values()))
    # direct count: judge rows by (question, sorted pair, judge, shown order); human votes by (question, pair)
    judged: dict[tuple, int] = {}
    votes: dict[tuple, list[int]] = defaultdict(list)
    for name, path in files.items():
        x, rest = name.removeprefix("answer_").split("-vs-answer_")
        judge = path.parent.name.removeprefix("ratings-")  # the mirror's folder names the judge
        y = rest[: rest.index(f"-{judge}-reviewer")]
        a, b = sorted((x, y))
        for line in path.read_text().splitlines():
            row = json.loads(line)
            s = row["score"]
            cls = 2 if s == 3 else (0 if (s == 1) == (x == a) else 1)
            if judge == "human":
                votes[(row["question_id"], a, b)].append(cls)
            else:
                judged[(row["question_id"], a, b, judge, x == a)] = cls
    majority = {}
    for key, vs in votes.items():
        top = Counter(vs).most_common()
        if len(top) == 1 or top[0][1] > top[1][1]:
            majority[f"{key[0]}:{key[1]}:{key[2]}"] = top[0][0]
    assert (len(files), len(judged), len({k[:3] for k in judged}), len({k[3:] for k in judged})) == (116, 8000, 800, 10)
    assert len(data.labels) == len(judged) and data.labels["item"].nunique() == 800
    assert data.labels["judge"].nunique() == 10
    assert (len(votes), len(majority), data.dropped["human_tie"]) == (800, 744, 56)
    assert dict(zip(data.truth["item"], data.truth["truth"])) == majority
    assert sorted(data.labels["label"].unique()) == [0, 1, 2]
    direct = {(f"{q}:{a}:{b}", f"{j}:{'ab' if first else 'ba'}"): c for (q, a, b, j, first), c in judged.items()}
    assert table(data.labels) == direct


# ---------------------------------------------------------------- pandalm


def pandalm_files(tmp_path: Path, humans: list[tuple[int, int, int]], gpt: list, panda: list) -> list[Path]:
    test = [{"idx": i, "annotator1": a, "annotator2": b, "annotator3": c} for i, (a, b, c) in enumerate(humans)]
    return [write(tmp_path / "testset-v1.json", json.dumps(test)),
            write(tmp_path / "gpt-3.5-turbo-testset-v1.json",
                  json.dumps([{"idx": i, "gpt_result": v} for i, v in enumerate(gpt)])),
            write(tmp_path / "pandalm-7b-testset-v1.json",
                  json.dumps([{"idx": i, "pandalm_result": v} for i, v in enumerate(panda)]))]


def test_pandalm_tiny(tmp_path: Path) -> None:
    files = pandalm_files(tmp_path, [(1, 1, 2), (0, 1, 2), (2, 2, 0)], ["1", "garbage", "Tie"], [2, 1, 0])
    data = parse_pandalm(files)
    assert table(data.labels) == {("0", "gpt-3.5-turbo"): 1, ("0", "pandalm-7b"): 2, ("1", "pandalm-7b"): 1,
                                  ("2", "gpt-3.5-turbo"): 0, ("2", "pandalm-7b"): 0}
    assert data.truth.to_dict("list") == {"item": ["0", "2"], "truth": [1, 2]}
    assert data.dropped == {"unreadable_verdict": 1, "no_human_majority": 1}
    # annotator 1 in the panel: the truth from annotators 2 and 3 when they agree
    data = parse_pandalm(files, humans=[1])
    assert table(data.labels)[("1", "annotator1")] == 0 and data.labels["judge"].nunique() == 3
    assert data.truth.to_dict("list") == {"item": [], "truth": []}
    data = parse_pandalm(files, humans=[3])
    assert data.truth.to_dict("list") == {"item": ["0", "2"], "truth": [1, 2]}
    with pytest.raises(ValueError, match="leaving one"):
        parse_pandalm(files, humans=[1, 2, 3])


def test_pandalm_bad_input(tmp_path: Path) -> None:
    files = pandalm_files(tmp_path, [(1, 1, 2)], ["3"], [2])
    with pytest.raises(DataError) as err:
        parse_pandalm(files)
    assert_located(err, files[1], None, "3")
    files = pandalm_files(tmp_path, [(1, 5, 2)], ["1"], [2])
    with pytest.raises(DataError) as err:
        parse_pandalm(files)
    assert_located(err, files[0], None, 5)
    files = pandalm_files(tmp_path, [(1, 1, 2)], ["1"], [2])
    write(files[2], json.dumps([{"idx": 7, "pandalm_result": 1}]))
    with pytest.raises(DataError, match="idx of the human file"):
        parse_pandalm(files)


@pytest.mark.parametrize("humans", [[], [1], [2], [3]])
def test_pandalm_mirror(mirror: Path, humans: list[int]) -> None:
    files = pinned("pandalm", mirror)
    data = parse_pandalm(list(files.values()), humans)
    test = json.loads(files["testset-v1.json"].read_text())
    gpt = json.loads(files["gpt-3.5-turbo-testset-v1.json"].read_text())
    panda = json.loads(files["pandalm-7b-testset-v1.json"].read_text())
    code = {"1": 1, "2": 2, "Tie": 0, 0: 0, 1: 1, 2: 2}
    direct = {(str(r["idx"]), "gpt-3.5-turbo"): code[r["gpt_result"]] for r in gpt if r["gpt_result"] != "garbage"}
    direct |= {(str(r["idx"]), "pandalm-7b"): code[r["pandalm_result"]] for r in panda}
    direct |= {(str(r["idx"]), f"annotator{k}"): r[f"annotator{k}"] for r in test for k in humans}
    truth = {}
    for r in test:
        rest = [r[f"annotator{k}"] for k in (1, 2, 3) if k not in humans]
        value, count = Counter(rest).most_common(1)[0]
        if count * 2 > len(rest):
            truth[str(r["idx"])] = value
    assert (len(test), sum(r["gpt_result"] == "garbage" for r in gpt)) == (999, 25)
    assert table(data.labels) == direct and len(data.labels) == 1973 + 999 * len(humans)
    assert data.labels["item"].nunique() == 999 and data.labels["judge"].nunique() == 2 + len(humans)
    assert dict(zip(data.truth["item"], data.truth["truth"])) == truth
    assert len(truth) == {(): 999, (1,): 917, (2,): 928, (3,): 912}[tuple(humans)]
