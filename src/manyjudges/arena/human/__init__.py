"""Human-calibrated estimates: many LLM verdicts, a few human ones, by prediction-powered inference (PPI++).

- :mod:`~manyjudges.arena.human.leaderboard`:
  :class:`~manyjudges.arena.human.leaderboard.HumanCalibratedLeaderboard`, the model and its intervals;
- :mod:`~manyjudges.arena.human.units`: the units of a calibration, with the LLM's and the humans' outcomes;
- :mod:`~manyjudges.arena.human.win_rates`: the calibrated win rates against a baseline model.
"""
