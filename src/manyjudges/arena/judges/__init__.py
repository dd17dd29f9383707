"""The judges of a panel, measured from their pairwise verdicts, and a panel's verdicts weighed by them.

- :mod:`~manyjudges.arena.judges.measures`: :func:`~manyjudges.arena.judges.measures.judge_measures` (position
  bias, agreement with a reference and among themselves, shared errors, the effective number of judges), with
  :mod:`~manyjudges.arena.judges.position_bias`, :mod:`~manyjudges.arena.judges.wilson` (its intervals) and
  :mod:`~manyjudges.arena.judges.agreement`;
- :mod:`~manyjudges.arena.judges.clusters`: judges that share their errors, clustered and down-weighted;
- :mod:`~manyjudges.arena.judges.self_preference`: how much a judge that is also a contestant favours its own
  model;
- :mod:`~manyjudges.arena.judges.judge_aware_verdicts`: one verdict per (prompt, model pair) from the panel, each
  judge's skill and position effect fitted.
"""
