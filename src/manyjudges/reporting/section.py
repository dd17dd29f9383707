"""One family's part of results/REPRODUCTION.md.

Each family's ``report.report_section`` builds it and
:func:`manyjudges.pipeline.reproduction.write_reproduction` assembles them: its markdown section, its
compared cells for the fidelity scoreboard (:mod:`manyjudges.reporting.scoreboard`) and its readings of
the paper's ambiguous choices (:mod:`manyjudges.reporting.readings`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from manyjudges.reporting.readings import Reading

__all__ = ["ReportSection"]


@dataclass(frozen=True, eq=False)  # eq=False: compared by identity (a DataFrame has no truth value)
class ReportSection:
    """One family's part of the report.

    ``family``: the family's name (its readings' :attr:`Reading.family`, the key of ``readings_note``);
    ``markdown``: its section ("" when the run has no results of the family: no section);
    ``cells``: its compared cells (:data:`manyjudges.reporting.scoreboard.CELL_COLUMNS`, empty without results);
    ``readings``: its rows of the "Readings" section; ``readings_note``: how its readings are measured, printed
    above the readings' table when it has rows.
    """

    family: str
    markdown: str
    cells: pd.DataFrame
    readings: list[Reading] = field(default_factory=list)
    readings_note: str | None = None
