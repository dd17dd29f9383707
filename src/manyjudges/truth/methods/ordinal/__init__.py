"""Ordinal Dawid-Skene: Dawid-Skene EM with each judge's confusion an ordered-probit row family.

- :mod:`~manyjudges.truth.methods.ordinal.estimator`:
  :class:`~manyjudges.truth.methods.ordinal.estimator.OrdinalDawidSkene`, the model and its objective;
- :mod:`~manyjudges.truth.methods.ordinal.em`: its EM on a flat state;
- :mod:`~manyjudges.truth.methods.ordinal.probit`: the ordered-probit confusion and its two Newton steps.
"""
