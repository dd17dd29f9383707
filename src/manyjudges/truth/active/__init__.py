"""Where the next labels should go, and when to stop buying them (``manyjudges truth next``).

- :mod:`~manyjudges.truth.active.advice`: the policies' scores, the advice and its stop;
- :mod:`~manyjudges.truth.active.replay`: a labelled set replayed as if its labels had been bought by a
  policy, until the advice stops.
"""
