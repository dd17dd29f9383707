"""The arena section's methods by name (the ``method`` of ``arena.methods``).

They are the leaderboard methods of :data:`manyjudges.arena.leaderboard.estimator.LEADERBOARD_METHODS`
(``bradley_terry``, ``davidson``, ``elo``, ``crowd_bt``, or ``package.module:callable``), the same that
``manyjudges arena leaderboard --method`` takes.
"""
from __future__ import annotations

from manyjudges.arena.leaderboard.estimator import LEADERBOARD_METHODS

__all__ = ["ARENA_METHODS"]

ARENA_METHODS = LEADERBOARD_METHODS
