"""Crowd datasets on disk: parse raw sources into canonical tables, load them as topics.

A processed crowd dataset (``data/processed/crowd/<name>/``) holds ``truth.tsv`` and either
``preferences.tsv`` (preference sources) or ``grades.tsv`` + ``grades.yaml`` (rating
sources; the item id is ``<topic>:<doc>``). A simulated crowd also has ``judges.tsv``
(``topic, judge, kind``): the true kind of each judge.

A rating's item ``<topic>:<doc>`` is split at its first ':' (a topic id cannot hold one, a
doc id can: a URL); topic and doc must not be empty, and where there is a truth table the
topic must be one of its topics, so an item whose topic was left out (``http://0-101.net``)
is an error naming the line, never a topic ``http``.
"""
from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.crowd.judgments import TopicJudgments, topics_from_preferences, topics_from_ratings
from manyjudges.io.engine.columnar import TableLayout, read_columns
from manyjudges.io.engine.errors import DataError
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.sources import source_file
from manyjudges.io.sources.mirex2005 import parse_mirex2005
from manyjudges.io.sources.trec_rf10 import parse_trec_rf10
from manyjudges.io.tables.grades import GradedData, read_grades, read_grades_table, write_grades
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.truth import TRUTH_COLUMNS, read_truth

PathLike = str | os.PathLike[str]
PREFERENCE_SOURCES = ("mirex2005", "simulate", "preferences_table")
RATING_SOURCES = ("trec_rf10", "ratings_table")
CROWD_SOURCES = PREFERENCE_SOURCES + RATING_SOURCES
#: the files of a processed crowd dataset, by role (the pipeline's inputs carry these names)
PROCESSED_FILES = {"truth": "truth.tsv", "preferences": "preferences.tsv", "grades": "grades.tsv",
                   "meta": "grades.yaml", "judges": "judges.tsv"}
JUDGE_COLUMNS = ["topic", "judge", "kind"]
JUDGES_LAYOUT = TableLayout("judges table", tuple(JUDGE_COLUMNS))


@dataclass
class CrowdDataset:
    """Topics with their judgments, the truth grades per topic, and (simulated data) judge kinds."""

    topics: dict[str, TopicJudgments]
    truth: dict[str, dict[str, int]]
    judge_kinds: pd.DataFrame | None = None

    def truth_for(self, topic: str) -> dict[str, int]:
        """Return the truth grades {item: grade} of ``topic`` (empty when it has none)."""
        return self.truth.get(topic, {})


def parse_crowd_source(source: str, files: Mapping[str, PathLike], spec: Mapping[str, Any] | None = None
                       ) -> tuple[pd.DataFrame | GradedData, pd.DataFrame]:
    """Raw files (``{file name: path}``) of a configured crowd dataset -> (judgments, truth).

    Judgments are a canonical preferences DataFrame or a GradedData (ratings, item ``topic:doc``).
    """
    spec = dict(spec or {})

    def need(name: str) -> PathLike:
        return source_file(files, name, f"crowd source {source!r}")

    if source == "mirex2005":
        data = parse_mirex2005(need("judgments.csv"), need("MTurk.qrel"), n_grades=int(spec.get("n_grades", 5)))
        assert data.truth is not None  # parse_mirex2005 always gives the qrel's grades
        return data.preferences, data.truth
    if source == "trec_rf10":
        graded = parse_trec_rf10(need("trec-rf10-data.txt"))
        assert graded.truth is not None  # parse_trec_rf10 always gives NIST's labels
        return graded, graded.truth[TRUTH_COLUMNS]
    if source == "preferences_table":
        return read_preferences(spec["path"], duplicates=spec.get("duplicates", "keep")), read_truth(spec["truth"])
    if source == "ratings_table":
        names = spec.get("label_names")
        graded = read_grades_table(spec["path"], int(spec["n_classes"]), names,
                                   duplicates=spec.get("duplicates", "error"), names_in_data=True,
                                   where="n_classes / label_names in the config" if names else None)
        truth = read_truth(spec["truth"])
        _split_items(graded.grades, spec["path"], set(truth["topic"]), Path(spec["truth"]).name)
        return graded, truth
    raise ValueError(f"unknown crowd source {source!r}; known: {', '.join(CROWD_SOURCES)}")


def processed_files(source: str) -> dict[str, str]:
    """Return {role: file name} of a processed crowd dataset of this ``source``.

    The truth, then the preferences (preference sources) or the grades and their metadata (rating sources), and the
    judges' kinds of a simulated set.
    """
    if source not in CROWD_SOURCES:
        raise ValueError(f"unknown crowd source {source!r}; known: {', '.join(CROWD_SOURCES)}")
    roles = ["truth", *(("grades", "meta") if source in RATING_SOURCES else ("preferences",)),
             *(("judges",) if source == "simulate" else ())]
    return {role: PROCESSED_FILES[role] for role in roles}


def write_crowd_dataset(judgments: pd.DataFrame | GradedData, truth: pd.DataFrame, out_dir: PathLike,
                        judges: pd.DataFrame | None = None) -> None:
    """Write a processed crowd dataset (each file atomically)."""
    out = {role: Path(out_dir) / name for role, name in PROCESSED_FILES.items()}
    if isinstance(judgments, GradedData):
        write_grades(judgments, out["grades"], out["meta"])
    else:
        write_table(judgments, out["preferences"])
    write_table(truth[TRUTH_COLUMNS], out["truth"])
    if judges is not None:
        write_table(judges, out["judges"])


def _split_items(grades: pd.DataFrame, path: PathLike, truth_topics: Collection[str] | None = None,
                 truth_name: str = "the truth table") -> tuple[pd.Series, pd.Series]:
    """(topic, doc) of each rating's item ``<topic>:<doc>``, split at the first ':'.

    Both parts must be non-empty and, given ``truth_topics``, the topic one of them; else a
    DataError naming the file, the first such row's line (``grades.attrs["lines"]``) and the item.
    """
    items = grades["item"].astype(str)
    parts = items.str.split(":", n=1, expand=True)
    topic = parts[0]
    doc = parts[1] if parts.shape[1] > 1 else pd.Series(None, index=items.index, dtype=object)
    lines = grades.attrs.get("lines")

    def first(bad: np.ndarray) -> tuple[int | None, str]:
        rows = np.flatnonzero(bad)
        row = rows[np.argmin(np.asarray(lines)[rows])] if lines is not None else rows[0]
        return (int(lines[row]) if lines is not None else None), items.iloc[row]

    malformed = (doc.isna() | (topic == "") | (doc == "")).to_numpy()
    if malformed.any():
        line, item = first(malformed)
        raise DataError.at(path, line, "a crowd rating's item must be '<topic>:<doc>'", item)
    if truth_topics is not None:
        unknown = ~topic.isin(set(truth_topics)).to_numpy()
        if unknown.any():
            line, item = first(unknown)
            raise DataError.at(path, line, f"topic {item.split(':', 1)[0]!r} has no truth in {truth_name}; items are "
                               "'<topic>:<doc>', the topic one of the truth table's", item)
    return topic, doc


def ratings_table(graded: GradedData, path: PathLike = "grades.tsv", truth_topics: Collection[str] | None = None,
                  truth_name: str = "the truth table") -> pd.DataFrame:
    """GradedData with items ``<topic>:<doc>`` -> ratings ``topic, judge, item, grade``.

    The item is split at its first ':'; with ``truth_topics`` its topic must be one of them
    (see the module's rule; errors name ``path`` and the line).
    """
    topic, doc = _split_items(graded.grades, path, truth_topics, truth_name)
    return pd.DataFrame({"topic": topic, "judge": graded.grades["judge"].astype(str), "item": doc,
                         "grade": graded.grades["label"].astype(int)})


def load_crowd_files(files: Mapping[str, PathLike]) -> CrowdDataset:
    """Read a processed crowd dataset from its files by role.

    The roles are those of :func:`processed_files`: ``truth``, and ``preferences`` or ``grades`` and
    ``meta``, and ``judges`` when given; other keys are ignored.
    """
    truth_table = read_truth(files["truth"])
    if "preferences" in files:
        topics = topics_from_preferences(read_preferences(files["preferences"]))
    elif "grades" in files:
        graded = read_grades(files["grades"], files["meta"])
        topics = topics_from_ratings(ratings_table(graded, files["grades"], set(truth_table["topic"]),
                                                   Path(files["truth"]).name))
    else:
        raise ValueError(f"a crowd dataset needs preferences or grades; got the files {sorted(files)}")
    truth = {str(t): dict(zip(rows["item"].astype(str), rows["grade"].astype(int)))
             for t, rows in truth_table.groupby("topic", sort=False)}
    kinds = None
    if "judges" in files:
        table = read_columns(files["judges"], JUDGES_LAYOUT)
        kinds = pd.DataFrame({column: table.strings(column) for column in JUDGE_COLUMNS})
    return CrowdDataset(topics, truth, kinds)


def load_crowd_dataset(directory: PathLike) -> CrowdDataset:
    """Read a processed crowd dataset directory (the files of :data:`PROCESSED_FILES` it holds)."""
    d = Path(directory)
    return load_crowd_files({role: d / name for role, name in PROCESSED_FILES.items() if (d / name).exists()})
