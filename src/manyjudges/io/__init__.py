"""Canonical tables: write them atomically, read and validate them.

Each table is a TSV (or a CSV, by the ``.csv`` extension) with a header (see ``docs/data.md``), read by
one columnar reader (:mod:`~manyjudges.io.columnar`, the same column habits for every table): ``orderings``
(:mod:`~manyjudges.io.orderings`), ``grades`` with its YAML metadata
(:mod:`~manyjudges.io.grades`), ``rankings`` (:mod:`~manyjudges.io.rankings`),
``preferences`` and ``truth`` (:mod:`~manyjudges.io.preferences`), pairwise ``verdicts`` of judges on
models' answers (:mod:`~manyjudges.io.verdicts`), and the truth-inference
``labels`` and label truth tables (:mod:`~manyjudges.io.labels`; its ``read_truth`` is not
re-exported here, where ``read_truth`` is the crowd family's). Bad data
raises :class:`~manyjudges.io.errors.DataError` naming the file, line and
value. The parsers of the raw published formats are in
:mod:`manyjudges.io.sources`.
"""

from manyjudges.core.natural_order import natural_sort
from manyjudges.io.errors import DataError
from manyjudges.io.grades import GradedData, read_grades, read_grades_table, write_grades
from manyjudges.io.labels import read_labels, write_labels
from manyjudges.io.orderings import orderings_to_rank_matrices, read_orderings
from manyjudges.io.preferences import read_preferences, read_truth
from manyjudges.io.rankings import rankings_to_lists, read_rankings
from manyjudges.io.table_text import write_table
from manyjudges.io.verdicts import read_verdicts, read_verdicts_or_preferences, write_verdicts

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
