"""Shared reporting helpers (number formatting, paper values, figures, tables) and the assembly of
results/REPRODUCTION.md from each family's report module (``orderings``, ``consensus``, ``graded``, ``crowd``).

Submodules are not imported here, so a family module can import one helper without pulling in every family.
"""

__all__ = ["figures", "formatting", "paper_values", "reproduction", "tables"]
