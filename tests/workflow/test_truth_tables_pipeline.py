"""The truth family's own labels table through the pipeline: judge for worker, task for item, any column
order and an extra column (a warning in the job's log) give the same processed tables as the plain file;
a truth row whose item has no labels is a warning (skipped) unless `strict: true`. Only the parse jobs run."""
from __future__ import annotations

import pytest

from .runner import make_workdir, run

pytestmark = pytest.mark.integration

ROWS = [(f"i{i}", f"w{w}", (i + (w == 2)) % 2) for i in range(1, 12) for w in range(3)]


def table(path, header, rows, sep="\t"):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))


def test_own_labels_habits_in_the_pipeline(tmp_path):
    work = tmp_path / "work"
    d = work / "data"
    d.mkdir(parents=True)
    table(d / "labels.tsv", ["item", "judge", "label"], ROWS)
    table(d / "habits.csv", ["label", "judge", "note", "task"], [(lab, w, "x", i) for i, w, lab in ROWS], ",")
    table(d / "truth.tsv", ["item", "truth"], [("i1", 1), ("i2", 0), ("nobody", 1)])
    datasets = {
        "plain": {"source": "labels_table", "path": "data/labels.tsv", "truth": "data/truth.tsv"},
        "habits": {"source": "labels_table", "path": "data/habits.csv", "truth": "data/truth.tsv"},
        "strict": {"source": "labels_table", "path": "data/labels.tsv", "truth": "data/truth.tsv", "strict": True},
    }
    make_workdir(work, {"seed": 1, "truth": {"datasets": datasets, "methods": {"majority_vote": {}}}})
    proc = run(work, "--keep-going", "data/processed/truth/plain/labels.tsv", "data/processed/truth/habits/labels.tsv",
               "data/processed/truth/strict/labels.tsv", check=False)
    assert proc.returncode != 0  # the strict dataset stops
    processed = work / "data" / "processed" / "truth"
    for name in ("labels.tsv", "truth.tsv"):
        assert (processed / "plain" / name).read_text() == (processed / "habits" / name).read_text()
    assert (processed / "plain" / "truth.tsv").read_text() == "item\ttruth\ni1\t1\ni2\t0\n"
    habits_log = (work / "logs/parse/truth_habits.log").read_text()
    assert "ignoring column(s) 'note'" in habits_log and "skipped 1 of 3 truth rows" in habits_log
    strict_log = (work / "logs/parse/truth_strict.log").read_text()
    assert "truth.tsv, line 4" in strict_log and "nobody" in strict_log
    assert not (processed / "strict" / "labels.tsv").exists()
