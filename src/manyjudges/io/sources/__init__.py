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
  table (:class:`~manyjudges.io.tables.grades.GradedData`).
- :mod:`~manyjudges.io.sources.mirex2005`: MIREX 2005 crowd preferences and
  qrel -> preferences and truth tables.
- :mod:`~manyjudges.io.sources.llmjudge`, :mod:`~manyjudges.io.sources.prd`,
  :mod:`~manyjudges.io.sources.pandalm`: LLM-judge panels with a human truth -> labels
  and truth tables (:class:`~manyjudges.io.sources.panel.PanelData`).
- :mod:`~manyjudges.io.sources.llmfao`, :mod:`~manyjudges.io.sources.prd`,
  :mod:`~manyjudges.io.sources.pandalm`: pairwise verdicts of LLM judges and people -> verdicts
  table (:mod:`manyjudges.io.tables.verdicts`), picked by a data set's ``source`` in
  :mod:`~manyjudges.io.sources.verdict_sources`.
- :mod:`~manyjudges.io.sources.mt_bench`, :mod:`~manyjudges.io.sources.arena_hard`,
  :mod:`~manyjudges.io.sources.alpaca_eval`: LLM judges' pairwise judgments as FastChat, Arena-Hard-Auto and
  AlpacaEval write them -> verdicts table; :func:`~manyjudges.io.sources.published.read_published` reads
  every published verdicts format (these, llmfao, prd, pandalm, Chatbot Arena's) behind one name.
- :mod:`~manyjudges.io.sources.truth_benchmark`: the truth-inference benchmark
  sets' ``label.csv`` and ``truth.csv`` -> labels and label truth tables
  (:mod:`manyjudges.io.tables.labels`); its rule for repeated rows is in that module.

The graded family picks among the graded parsers by a data set's config ``source``
(:func:`manyjudges.graded.data.parse_graded_source`).

Rules shared by the graded parsers (``trec_rf10``, ``adultcontent3``,
``snow2008``), chosen after inspecting the published files:

- Line endings may be LF or CRLF. Blank lines at the end of a file are
  ignored; a blank line followed by more data is a
  :class:`~manyjudges.io.engine.errors.DataError` (none of the published files has
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
:func:`~manyjudges.io.engine.errors._read_utf8` or the canonical readers: bytes that
are not UTF-8 are a DataError naming the file, the line and the bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from manyjudges.io.sources.adultcontent3 import parse_adultcontent3
from manyjudges.io.sources.clef_runs import parse_clef_runs
from manyjudges.io.sources.mirex2005 import parse_mirex2005
from manyjudges.io.sources.preflib import parse_preflib, parse_preflib_files
from manyjudges.io.sources.search_results import parse_search_results
from manyjudges.io.sources.snow2008 import parse_snow2008
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.sources.trec_rf10 import parse_trec_rf10
from manyjudges.io.sources.truth_benchmark import parse_truth_benchmark

__all__ = [
    "source_file",
    "parse_adultcontent3",
    "parse_clef_runs",
    "parse_mirex2005",
    "parse_preflib",
    "parse_preflib_files",
    "parse_search_results",
    "parse_snow2008",
    "parse_trec_rf10",
    "parse_truth_benchmark",
]


def source_file(files: Mapping[str, PathLike], name: str, what: str) -> PathLike:
    """Return ``files[name]``: the file ``name`` (of a data set's ``{file name: path}``) that ``what`` needs.

    ``what`` is e.g. "crowd source 'mirex2005'"; a ValueError naming it and the files there is raised
    otherwise.
    """
    if name not in files:
        raise ValueError(f"{what} needs the file {name!r}; the dataset has {sorted(files)}")
    return files[name]
