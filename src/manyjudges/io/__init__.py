"""Canonical tables: write them atomically, read and validate them.

Three rooms:

- :mod:`manyjudges.io.tables`: one module per canonical table, each a TSV (or a CSV, by the ``.csv``
  extension) with a header (see ``docs/data.md``): ``orderings``
  (:mod:`~manyjudges.io.tables.orderings`), ``rankings`` (:mod:`~manyjudges.io.tables.rankings`),
  ``grades`` with its YAML metadata (:mod:`~manyjudges.io.tables.grades`,
  :mod:`~manyjudges.io.tables.grades_meta`), ``preferences`` (:mod:`~manyjudges.io.tables.preferences`)
  and their ``truth`` (:mod:`~manyjudges.io.tables.truth`), pairwise ``verdicts`` of judges on models'
  answers (:mod:`~manyjudges.io.tables.verdicts`), and the truth-inference ``labels`` and label truth
  tables (:mod:`~manyjudges.io.tables.labels`; its ``read_truth`` is not re-exported here, where
  ``read_truth`` is the crowd family's).
- :mod:`manyjudges.io.engine`: the machinery every table shares: one columnar reader
  (:mod:`~manyjudges.io.engine.columnar`, the same column habits for every table), the shared checks,
  the writer (:mod:`~manyjudges.io.engine.table_text`) and the errors. Bad data raises
  :class:`~manyjudges.io.engine.errors.DataError` naming the file, line and value.
- :mod:`manyjudges.io.sources`: the parsers of the raw published formats.
"""

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.engine.errors import DataError
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.grades import GradedData, read_grades, read_grades_table, write_grades
from manyjudges.io.tables.labels import read_labels, write_labels
from manyjudges.io.tables.orderings import orderings_to_rank_matrices, read_orderings
from manyjudges.io.tables.preferences import read_preferences
from manyjudges.io.tables.rankings import rankings_to_lists, read_rankings
from manyjudges.io.tables.truth import read_truth
from manyjudges.io.tables.verdicts import read_verdicts, read_verdicts_or_preferences, write_verdicts

__all__ = [
    "DataError",
    "GradedData",
    "natural_sort",
    "orderings_to_rank_matrices",
    "rankings_to_lists",
    "read_grades",
    "read_grades_table",
    "read_labels",
    "read_orderings",
    "read_preferences",
    "read_rankings",
    "read_truth",
    "read_verdicts",
    "read_verdicts_or_preferences",
    "write_grades",
    "write_labels",
    "write_table",
    "write_verdicts",
]
