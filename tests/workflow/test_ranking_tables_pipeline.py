"""The column habits and the duplicates rule of an orderings `table` dataset, through the pipeline
(only the jobs that validate and copy the tables: quick)."""
from __future__ import annotations

import pandas as pd
import pytest

from .runner import make_workdir, run

pytestmark = pytest.mark.integration

PANEL = [("s1", "a", "x", "1"), ("s1", "a", "y", "2"), ("s1", "b", "x", "2"), ("s1", "b", "y", "1")]
CANONICAL = "set_id\tjudge\titem\trank\n" + "".join("\t".join(r) + "\n" for r in PANEL)
REPEAT = ("s1", "a", "x", "2")  # judge a ranks x again
TABLES = {
    # name: (file text, dataset keys besides source and path)
    "habits": ("rank\ttask\tnote\tjudge\tset_id\n" + "".join(f"{r}\t{i}\tn\t{j}\t{s}\n" for s, j, i, r in PANEL), {}),
    "dup_first": (CANONICAL + "\t".join(REPEAT) + "\n", {"duplicates": "first"}),
    "dup_error": (CANONICAL + "\t".join(REPEAT) + "\n", {}),
}


def config(datasets: dict) -> dict:
    return {"seed": 1, "orderings": {"datasets": datasets, "noise_ratios": [0], "replicates": 1,
                                     "methods": {"ac_tau": {}}}}


def test_orderings_table_habits_and_duplicates(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    datasets = {}
    for name, (text, keys) in TABLES.items():
        (work / f"{name}.tsv").write_text(text)
        datasets[name] = {"source": "table", "path": f"{name}.tsv", **keys}
    make_workdir(work, config(datasets))
    targets = [f"data/processed/{name}/orderings.tsv" for name in TABLES]
    proc = run(work, "--keep-going", *targets, check=False)
    assert proc.returncode != 0
    for name in ("habits", "dup_first"):
        assert (work / f"data/processed/{name}/orderings.tsv").read_text() == CANONICAL, name
    assert "ignoring column(s) 'note'" in (work / "logs/parse/habits.log").read_text()
    log = (work / "logs/parse/dup_error.log").read_text()
    assert "dup_error.tsv, line 6: item appears twice for judge 'a' in set 's1' (first on line 2)" in log
    assert "duplicates" in log
    assert not (work / "data/processed/dup_error/orderings.tsv").exists()
    frame = pd.read_csv(work / "data/processed/habits/orderings.tsv", sep="\t", dtype=str)
    assert list(frame.columns) == ["set_id", "judge", "item", "rank"]


def test_keep_is_not_a_duplicates_rule_for_orderings(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "p.tsv").write_text(CANONICAL)
    make_workdir(work, config({"p": {"source": "table", "path": "p.tsv", "duplicates": "keep"}}))
    proc = run(work, "-n", check=False)
    assert proc.returncode != 0
    assert "duplicates" in proc.stdout + proc.stderr
