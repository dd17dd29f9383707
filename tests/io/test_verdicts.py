"""The canonical verdicts table: its reader and writer, the column habits, the errors (file, line, value),
and the preferences table read as verdicts."""
from __future__ import annotations

import csv
import random
import warnings
from pathlib import Path

import pandas as pd
import pytest
from io_helpers import assert_located, write

from manyjudges.io.engine.columnar import ExtraColumnsWarning
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.verdicts import (
    MISSING,
    VERDICT_COLUMNS,
    WINNERS,
    read_verdicts,
    read_verdicts_or_preferences,
    verdicts_from_preferences,
    write_verdicts,
)

#: rows of a small verdicts table: every winner, a judge seeing one pair in both orders, a repeated verdict
ROWS = [
    ("q1", "alice", "gpt4", "claude", "model_a"),
    ("q1", "alice", "claude", "gpt4", "model_b"),
    ("q1", "bob", "gpt4", "vicuna-13b", "tie"),
    ("q2", "bob", "Alpaca (7B), tuned", "gpt4", "tie (bothbad)"),
    ("q2", "carol", "claude", "vicuna-13b", "model_a"),
    ("q2", "carol", "claude", "vicuna-13b", "model_a"),
]


def write_rows(path: Path, header: list[str], rows: list[tuple[str, ...]]) -> Path:
    """A table written by Python's csv module (comma for .csv, tab otherwise), quoted where needed."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="," if path.suffix == ".csv" else "\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def as_rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    return [tuple(r) for r in frame[VERDICT_COLUMNS].itertuples(index=False)]


@pytest.mark.parametrize("name", ["v.tsv", "v.csv"])
def test_read_in_file_order_tsv_and_csv(tmp_path: Path, name: str) -> None:
    path = write_rows(tmp_path / name, VERDICT_COLUMNS, ROWS)
    frame = read_verdicts(path)
    assert list(frame.columns) == VERDICT_COLUMNS
    assert as_rows(frame) == ROWS
    assert all(isinstance(v, str) for v in frame.to_numpy().ravel())


@pytest.mark.parametrize("name", ["out.tsv", "out.csv"])
def test_round_trip(tmp_path: Path, name: str) -> None:
    first = read_verdicts(write_rows(tmp_path / "in.tsv", VERDICT_COLUMNS, ROWS))
    write_verdicts(first, tmp_path / name)
    again = read_verdicts(tmp_path / name)
    pd.testing.assert_frame_equal(again, first)
    # the written header is the canonical one, whatever the columns' order in the frame
    write_verdicts(first[VERDICT_COLUMNS[::-1]], tmp_path / name)
    with open(tmp_path / name, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle, delimiter="," if name.endswith(".csv") else "\t"))
    assert header == VERDICT_COLUMNS
    pd.testing.assert_frame_equal(read_verdicts(tmp_path / name), first)


def test_write_refuses_bad_tables_and_writes_nothing(tmp_path: Path) -> None:
    frame = pd.DataFrame(ROWS, columns=VERDICT_COLUMNS)
    bad = frame.assign(winner=["model_a", "left", "tie", "tie", "tie", "tie"])
    with pytest.raises(ValueError, match="winner must be one of"):
        write_verdicts(bad, tmp_path / "bad.tsv")
    with pytest.raises(ValueError, match="missing"):
        write_verdicts(frame.drop(columns="judge"), tmp_path / "bad.tsv")
    assert not (tmp_path / "bad.tsv").exists()


def test_row_order_invariance(tmp_path: Path) -> None:
    shuffled = list(ROWS)
    random.Random(7).shuffle(shuffled)
    assert shuffled != ROWS
    a = read_verdicts(write_rows(tmp_path / "a.tsv", VERDICT_COLUMNS, ROWS))
    b = read_verdicts(write_rows(tmp_path / "b.csv", VERDICT_COLUMNS, shuffled))
    assert sorted(as_rows(a)) == sorted(as_rows(b)) == sorted(ROWS)


def test_columns_in_any_order_and_aliases(tmp_path: Path) -> None:
    header = ["winner", "worker", "model_b", "question_id", "model_a"]
    rows = [(w, j, b, p, a) for p, j, a, b, w in ROWS]
    frame = read_verdicts(write_rows(tmp_path / "arena.tsv", header, rows))
    assert as_rows(frame) == ROWS
    header = ["topic", "judge", "model_a", "model_b", "winner"]
    assert as_rows(read_verdicts(write_rows(tmp_path / "topic.csv", header, ROWS))) == ROWS


def test_missing_judge_and_prompt_are_filled(tmp_path: Path) -> None:
    rows = [(a, b, w) for _, _, a, b, w in ROWS]
    frame = read_verdicts(write_rows(tmp_path / "bare.tsv", ["model_a", "model_b", "winner"], rows))
    assert as_rows(frame) == [(MISSING, MISSING, a, b, w) for a, b, w in rows]
    rows = [(j, a, b, w) for _, j, a, b, w in ROWS]
    frame = read_verdicts(write_rows(tmp_path / "judged.tsv", ["judge", "model_a", "model_b", "winner"], rows))
    assert as_rows(frame) == [(MISSING, j, a, b, w) for j, a, b, w in rows]


def test_arena_columns_are_ignored_with_a_warning(tmp_path: Path) -> None:
    header = ["question_id", "model_a", "model_b", "winner", "judge", "turn", "tstamp"]
    rows = [(p, a, b, w, j, "1", "1690000000.5") for p, j, a, b, w in ROWS]
    path = write_rows(tmp_path / "arena.csv", header, rows)
    with pytest.warns(ExtraColumnsWarning, match="'turn', 'tstamp'"):
        frame = read_verdicts(path)
    assert as_rows(frame) == ROWS


def test_winner_values_stay_distinct(tmp_path: Path) -> None:
    frame = read_verdicts(write_rows(tmp_path / "v.tsv", VERDICT_COLUMNS, ROWS))
    assert set(frame["winner"]) == set(WINNERS)
    assert (frame["winner"] == "tie (bothbad)").sum() == 1 and (frame["winner"] == "tie").sum() == 1


HEADER = "prompt\tjudge\tmodel_a\tmodel_b\twinner\n"


@pytest.mark.parametrize(("body", "line", "reason", "value"), [
    ("q1\tj\ta\tb\tmodel_a\nq1\tj\ta\tb\tleft\n", 3, "winner must be model_a, model_b, tie or tie (bothbad)", "left"),
    ("q1\tj\ta\tb\tmodel_a\nq1\tj\ta\tb\tTie\n", 3, "winner must be", "Tie"),
    ("q1\tj\ta\tb\tmodel_a\nq1\tj\tgpt4\tgpt4\ttie\n", 3, "a model against itself", "gpt4"),
    ("q1\tj\ta\tb\tmodel_a\nq1\t\ta\tb\ttie\n", 3, "empty judge", ""),
    ("q1\t  \ta\tb\ttie\n", 2, "empty judge", "  "),
    ("\tj\ta\tb\ttie\n", 2, "empty prompt", ""),
    ("q1\tj\ta\t\ttie\n", 2, "empty model_b", ""),
    ("q1\tj\ta\tb\t\n", 2, "empty winner", ""),
    # the earliest faulty row in file order, whatever the fault
    ("q1\tj\ta\tb\tmodel_a\nq1\tj\ta\ta\tmodel_a\nq1\t\ta\tb\tbad\n", 3, "a model against itself", "a"),
    ("q1\tj\ta\tb\tmodel_a\nq1\t\ta\tb\tmodel_a\nq1\tj\ta\ta\tbad\n", 3, "empty judge", ""),
    # of one row's faults, the empty field first
    ("q1\t\ta\ta\tbad\n", 2, "empty judge", ""),
])
def test_bad_rows_are_located(tmp_path: Path, body: str, line: int, reason: str, value: str) -> None:
    path = write(tmp_path / "bad.tsv", HEADER + body)
    with pytest.raises(DataError, match=reason.replace("(", r"\(").replace(")", r"\)")) as err:
        read_verdicts(path)
    assert_located(err, path, line, value)


def test_bad_csv_row_is_located(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.csv", "model_a,model_b,winner\n\"Alpaca (7B), tuned\",gpt4,model_a\n"
                 "gpt4,gpt4,tie\n")
    with pytest.raises(DataError, match="a model against itself") as err:
        read_verdicts(path)
    assert_located(err, path, 3, "gpt4")


def test_bad_header(tmp_path: Path) -> None:
    path = write(tmp_path / "h.tsv", "prompt\tjudge\tmodel_a\tmodel_b\tverdict\nq\tj\ta\tb\ttie\n")
    with pytest.raises(DataError, match="missing column.*winner") as err:
        read_verdicts(path)
    assert err.value.line == 1
    path = write(tmp_path / "two.tsv", "judge\tworker\tmodel_a\tmodel_b\twinner\nj\tj\ta\tb\ttie\n")
    with pytest.raises(DataError, match="name the same column"):
        read_verdicts(path)
    path = write(tmp_path / "empty.tsv", HEADER)
    with pytest.raises(DataError, match="no data rows"):
        read_verdicts(path)


def test_duplicates(tmp_path: Path) -> None:
    path = write(tmp_path / "d.tsv", HEADER + "q\tj\ta\tb\tmodel_a\nq\tj\tb\ta\ttie\nq\tj\ta\tb\tmodel_b\n")
    assert len(read_verdicts(path)) == 3
    assert read_verdicts(path, duplicates="first")["winner"].tolist() == ["model_a", "tie"]
    assert read_verdicts(path, duplicates="last")["winner"].tolist() == ["tie", "model_b"]
    with pytest.raises(DataError, match="already judged on line 2") as err:
        read_verdicts(path, duplicates="error")
    assert err.value.line == 4
    with pytest.raises(ValueError, match="duplicates must be"):
        read_verdicts(path, duplicates="drop")


# ---------------------------------------------------------------- preferences as verdicts

PREFERENCES = "topic\tjudge\tleft\tright\toutcome\nt1\tw1\ta\tb\tleft\nt1\tw2\tb\ta\tright\nt2\tw1\ta\tc\ttie\n"
#: the same judgments as a verdicts table, written by hand: left -> model_a, right -> model_b
AS_VERDICTS = [("t1", "w1", "a", "b", "model_a"), ("t1", "w2", "b", "a", "model_b"), ("t2", "w1", "a", "c", "tie")]


def test_verdicts_from_preferences(tmp_path: Path) -> None:
    preferences = read_preferences(write(tmp_path / "p.tsv", PREFERENCES))
    assert as_rows(verdicts_from_preferences(preferences)) == AS_VERDICTS
    # the converter keeps rows, not the frame's index; worker is read as judge
    shuffled = preferences.iloc[[2, 0, 1]].rename(columns={"judge": "worker"})
    assert as_rows(verdicts_from_preferences(shuffled)) == [AS_VERDICTS[2], AS_VERDICTS[0], AS_VERDICTS[1]]
    with pytest.raises(ValueError, match="outcome must be"):
        verdicts_from_preferences(preferences.assign(outcome=["left", "x", "tie"]))
    with pytest.raises(ValueError, match="missing"):
        verdicts_from_preferences(preferences.drop(columns="topic"))


def test_read_verdicts_or_preferences(tmp_path: Path) -> None:
    assert as_rows(read_verdicts_or_preferences(write(tmp_path / "p.tsv", PREFERENCES))) == AS_VERDICTS
    path = write_rows(tmp_path / "v.csv", VERDICT_COLUMNS, ROWS)
    pd.testing.assert_frame_equal(read_verdicts_or_preferences(path), read_verdicts(path))
    # a verdicts header with a missing column is read as verdicts, and the error says what is missing
    path = write(tmp_path / "partial.tsv", "judge\tmodel_a\twinner\nj\ta\ttie\n")
    with pytest.raises(DataError, match="missing column.*model_b"):
        read_verdicts_or_preferences(path)
    # a preferences file's errors are the preferences reader's, located
    path = write(tmp_path / "badp.tsv", PREFERENCES + "t2\tw3\ta\tb\twins\n")
    with pytest.raises(DataError, match="outcome must be") as err:
        read_verdicts_or_preferences(path)
    assert_located(err, path, 5, "wins")
    for text in ("item\tjudge\tlabel\ni\tw\t1\n", "left\tright\twinner\na\tb\ttie\n"):
        path = write(tmp_path / "neither.tsv", text)
        with pytest.raises(DataError, match="header must be a verdicts table's") as err:
            read_verdicts_or_preferences(path)
        assert err.value.line == 1


def test_no_warning_for_a_canonical_file(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "v.tsv", VERDICT_COLUMNS, ROWS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_verdicts(path)
