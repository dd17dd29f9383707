"""A verdicts file read straight into codes equals the table read as text and then coded, and fails alike."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena.reader import read_arena_verdicts
from manyjudges.arena.verdict_codes import code_verdicts
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.verdicts import WINNERS, read_verdicts

FIELDS = ("models", "prompts", "judges", "model_a", "model_b", "winner", "prompt", "judge", "has_prompt",
          "has_judge")


def verdicts(seed: int, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    models = np.asarray([f"m{k}" for k in range(12)] + ["gpt-4", "Ω-7", "10", "2"], dtype=object)
    a = rng.integers(0, len(models), n)
    b = (a + rng.integers(1, len(models), n)) % len(models)
    return pd.DataFrame({"prompt": [f"q{k}" for k in rng.integers(0, 400, n)],
                         "judge": rng.choice(["w2", "w10", "gpt-4o", "-"], n),
                         "model_a": models[a], "model_b": models[b], "winner": rng.choice(WINNERS, n)})


@pytest.mark.parametrize("bothbad", ["tie", "drop"])
@pytest.mark.parametrize("columns", ["all", "no_judge", "no_prompt", "judge_all_missing", "csv"])
def test_codes_equal_the_text_read_then_coded(tmp_path: Path, columns: str, bothbad: str) -> None:
    frame = verdicts(seed=len(columns))
    if columns == "no_judge":
        frame = frame.drop(columns="judge")
    if columns == "no_prompt":
        frame = frame.drop(columns="prompt")
    if columns == "judge_all_missing":
        frame["judge"] = "-"
    path = tmp_path / ("verdicts.csv" if columns == "csv" else "verdicts.tsv")
    frame.sample(frac=1.0, random_state=2).to_csv(path, sep="," if columns == "csv" else "\t", index=False)
    got, expected = read_arena_verdicts(path, bothbad), code_verdicts(read_verdicts(path), bothbad)
    for name in FIELDS:
        mine, theirs = getattr(got, name), getattr(expected, name)
        if isinstance(theirs, bool):
            assert mine is theirs, name
        else:
            assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name


@pytest.mark.parametrize("row", ["m1\tm1\tmodel_a", "m1\tm2\twon", "m1\t \ttie"])
def test_errors_equal_the_text_readers(tmp_path: Path, row: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text("model_a\tmodel_b\twinner\nm1\tm2\ttie\n" + row + "\n")
    with pytest.raises(DataError) as by_text:
        read_verdicts(path)
    with pytest.raises(DataError) as by_codes:
        read_arena_verdicts(path)
    assert str(by_codes.value) == str(by_text.value) and "line 3" in str(by_codes.value)
