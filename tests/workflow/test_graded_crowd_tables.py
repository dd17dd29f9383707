"""The graded and crowd families' own tables through the pipeline: judge/worker, task for item, any
column order, an extra column (a warning in the job's log), `duplicates` and `label_names` give the
same processed tables as the plain files. Only the parse jobs run."""
from __future__ import annotations

import pandas as pd
import pytest

from .runner import make_workdir, run

pytestmark = pytest.mark.integration

NAMES = ["low", "mid", "high"]
GRADES = [(f"d{i}", f"j{j}", (i + j) % 3) for i in range(6) for j in range(4)]
PREFS = [(t, w, a, b, "right" if w == "w3" else "left") for t in ("q1", "q2") for w in ("w1", "w2", "w3")
         for a, b in (("a", "b"), ("b", "c"), ("a", "c"))]
TRUTH = [(t, d, g) for t in ("q1", "q2") for d, g in (("a", 2), ("b", 1), ("c", 0))]
RATINGS = [(f"{t}:{d}", w, (g + (w == "w3")) % 3) for t, d, g in TRUTH for w in ("w1", "w2", "w3")]


def table(path, header, rows, sep="\t"):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return path.name


def test_own_tables_habits_in_the_pipeline(tmp_path):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    d = work / "data"
    table(d / "grades.tsv", ["item", "judge", "label"], GRADES)
    table(d / "grades_habits.csv", ["label", "note", "worker", "task"],
          [(NAMES[1], "x", GRADES[0][1], GRADES[0][0])] + [(NAMES[lab], "x", j, i) for i, j, lab in GRADES], ",")
    table(d / "prefs.tsv", ["topic", "judge", "left", "right", "outcome"], PREFS)
    table(d / "prefs_habits.tsv", ["outcome", "worker", "right", "left", "topic"],
          [(o, w, b, a, t) for t, w, a, b, o in PREFS] + [("tie", "w1", "b", "a", "q1")])
    table(d / "truth.tsv", ["topic", "item", "grade"], TRUTH)
    table(d / "truth_habits.tsv", ["grade", "task", "topic"], [(g, i, t) for t, i, g in TRUTH])
    table(d / "ratings.tsv", ["item", "judge", "label"], RATINGS)
    table(d / "ratings_habits.tsv", ["worker", "label", "task"],
          [(RATINGS[0][1], NAMES[0], RATINGS[0][0])] + [(w, NAMES[g], i) for i, w, g in RATINGS])
    config = {
        "seed": 1,
        "graded": {
            "datasets": {
                "own": {"source": "table", "path": "data/grades.tsv", "n_classes": 3},
                # the habits: n_labels, the former name of n_classes, still reads (here and in ratings_habits)
                "own_habits": {"source": "table", "path": "data/grades_habits.csv", "n_labels": 3,
                               "label_names": NAMES, "duplicates": "last"},
            },
            "methods": {"m1": {}},
        },
        "crowd": {
            "datasets": {
                "prefs": {"source": "preferences_table", "path": "data/prefs.tsv", "truth": "data/truth.tsv"},
                "prefs_habits": {"source": "preferences_table", "path": "data/prefs_habits.tsv",
                                 "truth": "data/truth_habits.tsv", "duplicates": "first"},
                "ratings": {"source": "ratings_table", "path": "data/ratings.tsv", "truth": "data/truth.tsv",
                            "n_classes": 3},
                "ratings_habits": {"source": "ratings_table", "path": "data/ratings_habits.tsv",
                                   "truth": "data/truth_habits.tsv", "n_labels": 3, "label_names": NAMES,
                                   "duplicates": "last"},
            },
            "methods": {"borda": {}},
        },
    }
    make_workdir(work, config)
    processed = work / "data" / "processed"
    targets = ["data/processed/own/grades.tsv", "data/processed/own_habits/grades.tsv",
               "data/processed/crowd/prefs/preferences.tsv", "data/processed/crowd/prefs_habits/preferences.tsv",
               "data/processed/crowd/ratings/grades.tsv", "data/processed/crowd/ratings_habits/grades.tsv"]
    run(work, *targets)

    def same(a, b):
        assert (processed / a).read_text() == (processed / b).read_text(), (a, b)

    same("own/grades.tsv", "own_habits/grades.tsv")
    assert (processed / "own_habits/grades.yaml").read_text().count("- low") == 1
    same("crowd/prefs/preferences.tsv", "crowd/prefs_habits/preferences.tsv")
    same("crowd/prefs/truth.tsv", "crowd/prefs_habits/truth.tsv")
    same("crowd/ratings/grades.tsv", "crowd/ratings_habits/grades.tsv")
    assert "ignoring column(s) 'note'" in (work / "logs/parse/own_habits.log").read_text()
    assert len(pd.read_csv(processed / "crowd/prefs/preferences.tsv", sep="\t")) == len(PREFS)

    # the default: a repeated (item, judge) stops the job naming both lines
    config["graded"]["datasets"]["own_habits"].pop("duplicates")
    (work / "config" / "config.yaml").unlink()
    (work / "config").rmdir()
    make_workdir(work, config)
    proc = run(work, "--forceall", "data/processed/own_habits/grades.tsv", check=False)
    assert proc.returncode != 0
    log = (work / "logs/parse/own_habits.log").read_text()
    assert "grades_habits.csv, line 3" in log and "first on line 2" in log
