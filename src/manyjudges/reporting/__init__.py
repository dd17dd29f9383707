"""The pieces every family builds its report section from.

Number formatting, the papers' values (one data file that cites each number), figures, tables, the
fidelity scoreboard, the readings of ambiguous choices and the section object each family's report
returns (:class:`section.ReportSection`). Below the families: it imports none of them. The assembly of
results/REPRODUCTION.md from the families' sections is :mod:`manyjudges.pipeline.reproduction`.

Submodules are not imported here, so a family module can import one helper without pulling in the others.
"""

__all__ = ["figures", "formatting", "paper_values", "readings", "scoreboard", "section", "tables"]
