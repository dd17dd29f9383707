"""A graded data set's files, as published or as a user's table, parsed by its config ``source``."""
from __future__ import annotations

import os
from typing import cast

from manyjudges.graded.protocols import panel_problem
from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources import parse_adultcontent3, parse_snow2008, parse_trec_rf10, source_file
from manyjudges.io.tables.grades import GradedData, read_grades_table

__all__ = ["parse_graded_source"]

PathLike = str | os.PathLike[str]


def parse_graded_source(source: str, files: dict[str, PathLike], spec: dict | None = None) -> GradedData:
    """Parse a pinned or user dataset's files (``{file name: path}``) by its config ``source``.

    ``spec`` is the dataset's config entry (``task`` for snow2008; ``n_classes``, ``label_names``
    (labels may be these names or integer codes) and ``duplicates`` (error, first, last) for a
    user ``table``; ``min_labels_per_judge`` and ``outer_folds``). A
    missing file, or a snow2008 ``task`` whose file is not among the dataset's files, is a
    ValueError naming what was expected. A panel too small for cross induction (at least 3
    judges with labels, or the largest ``outer_folds`` group + 2, and one judge with
    ``min_labels_per_judge`` labels: :func:`manyjudges.graded.protocols.panel_problem`) is a
    DataError naming the file, how many judges it has and how many are needed.
    """
    spec = dict(spec or {})

    def need(name: str) -> PathLike:
        return source_file(files, name, f"source {source!r}")

    if source == "table":
        (path,) = files.values()
        names = spec.get("label_names")
        data = read_grades_table(path, spec["n_classes"], names, duplicates=spec.get("duplicates", "error"),
                                 names_in_data=True, where="n_classes / label_names in the config" if names else None)
    elif source == "trec_rf10":
        path = need("trec-rf10-data.txt")
        data = parse_trec_rf10(path)
    elif source == "adultcontent3":
        path = need("labels.txt")
        data = parse_adultcontent3(path, need("categories.txt"))
    elif source == "snow2008":
        task = spec.get("task")
        path = need(f"{task}.standardized.tsv")
        data = parse_snow2008(path, cast(str, task))  # a task among the files: need() raised otherwise
    else:
        raise ValueError(f"unknown graded source {source!r}; known: table, trec_rf10, adultcontent3, snow2008")
    problem = panel_problem(data.grades["judge"].value_counts().to_numpy(), spec.get("min_labels_per_judge", 1),
                            spec.get("outer_folds"))
    if problem:
        raise DataError.at(path, None, problem)
    return data
