"""Auto: the family's methods combined by how well each predicts labels it did not see.

- :mod:`~manyjudges.truth.auto.estimator`: :class:`~manyjudges.truth.auto.estimator.Auto`, its steps and its
  defaults;
- :mod:`~manyjudges.truth.auto.stacking`: the label path (candidates fitted without each fold, scored on the
  withheld labels, anchored to the majority, stacked, the mixture calibrated);
- :mod:`~manyjudges.truth.auto.gold_choice`: the gold's choice among the answers, and their calibration on it.

The withheld labels and their scores are :mod:`manyjudges.truth.heldout`'s, the temperature and floor
:mod:`manyjudges.truth.confidence`'s: every method's calibration uses them too.
"""
