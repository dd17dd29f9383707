"""Truth inference: one class per item, and a skill per judge, from many judges' labels.

Every method follows the contract of :mod:`manyjudges.truth.base`: ``fit(labels)`` on a long
table ``item, judge, label``, then ``labels_``, ``proba_``, ``skills_`` / ``confusions_``.
Majority vote, Wawa, Dawid-Skene (full and one-coin), GLAD, MACE, EBCC, an ordinal model, two
that learn the judges from gold items alone (supervised Dawid-Skene, the best judge), and ``Auto``,
which stacks them by how well each predicts labels withheld from its fit;
Krippendorff's alpha in :mod:`manyjudges.truth.agreement`. Definitions: ``docs/methods.md``.

The package's rooms: :mod:`manyjudges.truth.methods` (one module per method), :mod:`manyjudges.truth.auto`
(``Auto`` and what only it uses) and :mod:`manyjudges.truth.active` (where the next labels should go, and the
replay of a labelled set by that advice); beside them the contract and the withheld labels every method's
calibration uses (``base``, ``heldout``, ``confidence``), the method names (``registry``) and the pipeline's
modules (``data``, ``simulate``, ``scenarios``, ``experiment``, ``results``, ``calibration``, ``report``,
``plots``).

>>> import pandas as pd
>>> from manyjudges.truth import DawidSkene
>>> labels = pd.DataFrame({"item": ["a", "a", "a", "b", "b", "b"], "judge": ["x", "y", "z"] * 2,
...                        "label": [1, 1, 0, 0, 0, 1]})
>>> DawidSkene().fit(labels).labels_.tolist()
[1, 0]
"""
from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.truth.auto.estimator import Auto
from manyjudges.truth.base import TruthEstimator, TruthFit
from manyjudges.truth.methods.dawid_skene import DawidSkene
from manyjudges.truth.methods.ebcc.estimator import EBCC
from manyjudges.truth.methods.glad import GLAD
from manyjudges.truth.methods.mace import MACE
from manyjudges.truth.methods.majority_vote import MajorityVote
from manyjudges.truth.methods.one_coin import OneCoinDawidSkene
from manyjudges.truth.methods.ordinal.estimator import OrdinalDawidSkene
from manyjudges.truth.methods.supervised import BestJudge, SupervisedDawidSkene
from manyjudges.truth.methods.wawa import Wawa
from manyjudges.truth.registry import TRUTH_METHODS, make_truth_estimator

registry = TRUTH_METHODS

__all__ = ["EBCC", "Auto", "BestJudge", "GLAD", "MACE", "CrowdLabels", "DawidSkene", "MajorityVote",
           "OneCoinDawidSkene", "OrdinalDawidSkene", "SupervisedDawidSkene", "TRUTH_METHODS", "TruthEstimator",
           "TruthFit", "Wawa", "as_crowd_labels", "make_truth_estimator"]
