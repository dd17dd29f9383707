"""The canonical tables, one module per table: its columns, its reader (read, check, code) and its writer.

:mod:`~manyjudges.io.tables.orderings`, :mod:`~manyjudges.io.tables.rankings`,
:mod:`~manyjudges.io.tables.grades` (with its YAML sidecar, :mod:`~manyjudges.io.tables.grades_meta`),
:mod:`~manyjudges.io.tables.preferences` and the crowd's :mod:`~manyjudges.io.tables.truth`,
:mod:`~manyjudges.io.tables.verdicts`, and :mod:`~manyjudges.io.tables.labels` (with the label truth
table). See ``docs/data.md`` for the formats.
"""
