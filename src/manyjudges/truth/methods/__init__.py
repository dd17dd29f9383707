"""The truth-inference methods, one module per method, each a :class:`~manyjudges.truth.base.TruthEstimator`.

- :mod:`~manyjudges.truth.methods.majority_vote`: majority vote;
- :mod:`~manyjudges.truth.methods.wawa`: Wawa, a majority vote weighted by agreement with it;
- :mod:`~manyjudges.truth.methods.one_coin`: one-coin Dawid-Skene;
- :mod:`~manyjudges.truth.methods.dawid_skene`: Dawid-Skene;
- :mod:`~manyjudges.truth.methods.glad`: GLAD;
- :mod:`~manyjudges.truth.methods.mace`: MACE;
- :mod:`~manyjudges.truth.methods.ebcc`: EBCC (the estimator, the inputs of its runs, its mean-field iterations);
- :mod:`~manyjudges.truth.methods.ordinal`: ordinal Dawid-Skene (the estimator, its EM, its ordered-probit rows);
- :mod:`~manyjudges.truth.methods.supervised`: supervised Dawid-Skene and the best judge, from gold items alone.

``Auto``, which combines them, is in :mod:`manyjudges.truth.auto`; they are found by name in
:mod:`manyjudges.truth.registry`.
"""
