"""The leaderboard: one score per model from all verdicts pooled, with bootstrap intervals.

- :mod:`~manyjudges.arena.leaderboard.estimator`: :class:`~manyjudges.arena.leaderboard.estimator.Leaderboard`,
  ``bootstrap`` and the methods by name;
- the ratings fitted to cell counts: :mod:`~manyjudges.arena.leaderboard.ratings` (Bradley-Terry with ties, Elo,
  Crowd-BT), :mod:`~manyjudges.arena.leaderboard.davidson`, :mod:`~manyjudges.arena.leaderboard.judge_aware` and
  :mod:`~manyjudges.arena.leaderboard.style` (Bradley-Terry with the answers' features held fixed);
- :mod:`~manyjudges.arena.leaderboard.cells`: the verdicts summed into cells, and the bootstrap's units;
- :mod:`~manyjudges.arena.leaderboard.replicates` and :mod:`~manyjudges.arena.leaderboard.rank_intervals`: the
  bootstrap's fits, and their ranks and percentile intervals;
- :mod:`~manyjudges.arena.leaderboard.pieces`: what the verdicts cannot tell (pieces of the comparison graph,
  one-sided models, flat intervals);
- :mod:`~manyjudges.arena.leaderboard.win_rates`: the expected win rates read from the scores;
- :mod:`~manyjudges.arena.leaderboard.state`: a fit's state, saved, loaded and resumed with more verdicts.
"""
