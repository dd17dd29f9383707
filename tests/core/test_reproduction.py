"""REPRODUCTION.md assembled from the families' sections: header, scoreboard of every section's cells, the
readings of every section (each family's note only when it has readings), then the sections in order."""
from __future__ import annotations

import pandas as pd

from manyjudges.consensus.report import report_section as consensus_section
from manyjudges.crowd.report import report_section as crowd_section
from manyjudges.graded.report import report_section as graded_section
from manyjudges.pipeline.reproduction import _HEADER, write_reproduction
from manyjudges.reporting.readings import Reading
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection
from manyjudges.truth.report import report_section as truth_section


def cells(dataset: str) -> pd.DataFrame:
    return pd.DataFrame([("kim2010", "1", dataset, "simulated", m, "r=0.5", v, v + 0.1)
                         for m, v in (("ac", 0.1), ("wca", 0.2), ("rba", 0.3))], columns=CELL_COLUMNS)


def test_sections_in_order_with_the_scoreboard_and_readings_first(tmp_path):
    reading = Reading("a choice", "key", "Table 1", {"x": 0.1, "y": 0.2}, "x", 3, "first")
    sections = [
        ReportSection("first", "## First\n", cells("one"), [reading], "First's note."),
        ReportSection("empty", "", pd.DataFrame(columns=CELL_COLUMNS), [], "Never printed."),
        ReportSection("second", "## Second\n", cells("two"), [], "Second has no readings."),
    ]
    write_reproduction(sections, tmp_path / "R.md")
    text = (tmp_path / "R.md").read_text()
    assert text.startswith("".join(_HEADER[:1]))
    order = [text.index(s) for s in ("## Fidelity scoreboard", "`one`", "`two`", "## Readings", "First's note.",
                                     "| a choice |", "## First", "## Second")]
    assert order == sorted(order)
    assert "Never printed." not in text and "Second has no readings." not in text


def test_no_readings_no_readings_section(tmp_path):
    write_reproduction([ReportSection("first", "## First\n", cells("one"))], tmp_path / "R.md")
    text = (tmp_path / "R.md").read_text()
    assert "## Readings" not in text and text.endswith("## First\n")


def test_a_family_without_results_gives_an_empty_section():
    for section in (consensus_section([], {}), graded_section({}, {}, {}), crowd_section({}, {}, {}),
                    truth_section({}, {}, {})):
        assert section.markdown == "" and section.cells.empty and not section.readings
