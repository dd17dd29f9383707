"""Each model's win rate against a baseline model, from the verdicts where the two met (AlpacaEval's).

- :mod:`~manyjudges.arena.winrate.baseline`: :func:`~manyjudges.arena.winrate.baseline.baseline_win_rates`, from
  ``p_b`` or the winners, with normal or prompt-bootstrap intervals;
- :mod:`~manyjudges.arena.winrate.length_controlled`: AlpacaEval 2.0's length-controlled win rate.

Not the leaderboard's ``win_rate``, read from fitted scores (:mod:`manyjudges.arena.leaderboard.win_rates`).
"""
