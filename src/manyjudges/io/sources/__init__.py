"""Parsers of the raw published formats, one module per format.

Each parser turns a data set's files, as published, into a canonical table of
:mod:`manyjudges.io` (see ``docs/data.md``):

- :mod:`~manyjudges.io.sources.preflib`: PrefLib ``.soc`` / ``.toc`` files
  -> orderings table.
- :mod:`~manyjudges.io.sources.search_results`: search-engine result files
  -> rankings table.
- :mod:`~manyjudges.io.sources.clef_runs`: CLEF eHealth 2015 top-20 runs
  -> rankings table.
- :mod:`~manyjudges.io.sources.trec_rf10`,
  :mod:`~manyjudges.io.sources.adultcontent3`,
  :mod:`~manyjudges.io.sources.snow2008`: graded crowd judgments -> grades
  table (:class:`~manyjudges.io.grades.GradedData`).
- :mod:`~manyjudges.io.sources.mirex2005`: MIREX 2005 crowd preferences and
  qrel -> preferences and truth tables.
- :mod:`~manyjudges.io.sources.truth_benchmark`: the truth-inference benchmark
  sets' ``label.csv`` and ``truth.csv`` -> labels and label truth tables
  (:mod:`manyjudges.io.labels`); its rule for repeated rows is in that module.

:func:`parse_graded_source` picks the graded parser by a data set's config
``source``.

Rules shared by the graded parsers (``trec_rf10``, ``adultcontent3``,
``snow2008``), chosen after inspecting the published files:

- Line endings may be LF or CRLF. Blank lines at the end of a file are
  ignored; a blank line followed by more data is a
  :class:`~manyjudges.io.errors.DataError` (none of the published files has
  one, so it would mean a damaged file).
- Fields are taken verbatim (no whitespace stripping); an empty or
  whitespace-only field is an error.
- A judge who labels the same item more than once keeps the label of the
  first row in file order that survives the other drop rules; every later
  row for that (item, judge) is dropped and counted in
  ``dropped["duplicate"]`` if its label equals the kept one, else in
  ``dropped["duplicate_conflict"]``. Keeping the first is simple,
  deterministic and uses only the raw order; the two counts show how much
  of the data a different rule would change.
- Every error names the file, the 1-based line where the fault is on one
  line (the header, where there is one, is line 1) and the offending value.

Every parser reads its files as UTF-8 (MIREX 2005's ``judgments.csv`` is
Latin-1, which any byte decodes) through
:func:`~manyjudges.io.errors.read_utf8` or the canonical readers: bytes that
are not UTF-8 are a DataError naming the file, the line and the bytes.
"""

from __future__ import annotations

from typing import cast

from manyjudges.io.errors import DataError
from manyjudges.io.grades import GradedData, read_grades_table
from manyjudges.io.sources._text import PathLike
from manyjudges.io.sources.adultcontent3 import parse_adultcontent3
from manyjudges.io.sources.clef_runs import parse_clef_runs
from manyjudges.io.sources.mirex2005 import parse_mirex2005
from manyjudges.io.sources.preflib import parse_preflib, parse_preflib_files
from manyjudges.io.sources.search_results import parse_search_results
from manyjudges.io.sources.snow2008 import parse_snow2008
from manyjudges.io.sources.trec_rf10 import parse_trec_rf10
from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark

__all__ = [
    "parse_adultcontent3",
    "parse_clef_runs",
    "parse_graded_source",
    "parse_mirex2005",
    "parse_preflib",
    "parse_preflib_files",
    "parse_search_results",
    "parse_snow2008",
    "parse_trec_rf10",
    "parse_truth_benchmark",
]


def parse_graded_source(source: str, files: dict[str, PathLike], spec: dict | None = None) -> GradedData:
    """Parse a pinned or user dataset's files (``{file name: path}``) by its config ``source``.

    ``spec`` is the dataset's config entry (``task`` for snow2008; ``n_labels``, ``label_names``
    (labels may be these names or integer codes) and ``duplicates`` (error, first, last) for a
    user ``table``; ``min_labels_per_judge`` and ``outer_folds``). A
    missing file, or a snow2008 ``task`` whose file is not among the dataset's files, is a
    ValueError naming what was expected. A panel too small for cross induction (at least 3
    judges with labels, or the largest ``outer_folds`` group + 2, and one judge with
    ``min_labels_per_judge`` labels: :func:`manyjudges.graded.protocols.panel_problem`) is a
    DataError naming the file, how many judges it has and how many are needed.
    """
    from manyjudges.graded.protocols import panel_problem

    spec = dict(spec or {})

    def need(name: str) -> PathLike:
        if name not in files:
            raise ValueError(f"source {source!r} needs the file {name!r}; the dataset has {sorted(files)}")
        return files[name]

    if source == "table":
        (path,) = files.values()
        names = spec.get("label_names")
        data = read_grades_table(path, spec["n_labels"], names, duplicates=spec.get("duplicates", "error"),
                                 names_in_data=True, where="n_labels / label_names in the config" if names else None)
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
