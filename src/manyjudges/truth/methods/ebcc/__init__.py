"""EBCC: enhanced Bayesian classifier combination.

- :mod:`~manyjudges.truth.methods.ebcc.estimator`: :class:`~manyjudges.truth.methods.ebcc.estimator.EBCC`, the
  model, its updates and their sources;
- :mod:`~manyjudges.truth.methods.ebcc.layout`: what every random start of one fit shares, and the starts;
- :mod:`~manyjudges.truth.methods.ebcc.mean_field`: one run from one start, its steps, its ELBO and the
  Dirichlet factors of the bound.
"""
