"""The one pairwise kernel: every model of "i beat j" verdicts, written once, on counted cells or pairs.

- :mod:`~manyjudges.core.pairwise.cells`: verdicts summed by (judge, unordered pair, outcome, order);
- :mod:`~manyjudges.core.pairwise.bradley_terry`: Bradley-Terry (a tie half a win each way, or dropped);
- :mod:`~manyjudges.core.pairwise.davidson`: Davidson's model of ties;
- :mod:`~manyjudges.core.pairwise.crowd_bt`: Crowd-BT;
- :mod:`~manyjudges.core.pairwise.judge_aware`: Crowd-BT with a per-judge position term;
- :mod:`~manyjudges.core.pairwise.elo`: Elo ratings of games replayed in rounds.

The crowd family's estimators (one topic's judgments) and the arena's ratings (a leaderboard's
verdicts) both call these.
"""
