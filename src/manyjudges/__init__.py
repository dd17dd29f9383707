"""manyjudges: aggregate the judgments of many human judges.

One package per family of methods, each with the same shape (its methods, ``registry``,
``experiment``, ``report``, ``plots``) and one method contract, scikit-learn style:

- :mod:`manyjudges.orderings`: an ordered list judged against several gold orderings
  (AC, WCA, RBA, FreSPA; evaluation discriminativeness), Kim, Zhai, Han (ECIR 2010);
- :mod:`manyjudges.consensus`: the consensus measure of a set of rankings and rank
  aggregators for lists, Lin, Li, Guo (arXiv 1704.08464);
- :mod:`manyjudges.graded`: predicting an unseen judge's graded labels (M1-M5, Dawid-Skene),
  Wilbur and Kim (BMC Bioinformatics 2011);
- :mod:`manyjudges.crowd`: one ranking per topic from crowd ratings or preferences (CrowdAgg
  and seven baselines), Niu et al. (WSDM 2015);
- :mod:`manyjudges.truth`: one class per item and a skill per judge from crowd labels
  (majority vote, Wawa, Dawid-Skene, GLAD, MACE, EBCC, an ordinal model).
- :mod:`manyjudges.arena`: the pipeline's arena section, a leaderboard of models with
  bootstrap intervals and the measures of their judges from pairwise verdicts (the crowd family's
  leaderboard and judge measures, on published or simulated arenas).

Shared pieces: :mod:`manyjudges.core.registry` (method names and ``package.module:callable``),
:mod:`manyjudges.core.counting`, :mod:`manyjudges.core.ranks`, :mod:`manyjudges.core.correlation`,
:mod:`manyjudges.core.ir_metrics`, :mod:`manyjudges.core.random_streams`, :mod:`manyjudges.io`
(canonical tables and raw-format parsers), :mod:`manyjudges.reporting`. The command line is
``manyjudges`` (:mod:`manyjudges.cli`). Every definition: ``docs/methods.md``; every data set:
``docs/data.md``.

Any built-in method of any family, by the names the config and the command use:

>>> from manyjudges import build_method
>>> build_method("truth", "dawid_skene", max_iter=50)
DawidSkene(max_iter=50)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from manyjudges.families import BUILT_IN, get_family

if TYPE_CHECKING:
    from manyjudges.core.registry import Registry

__version__ = "0.1.0"

#: the built-in families' names, each a package ``manyjudges.<family>`` whose ``registry`` holds its methods
#: (declared in :data:`manyjudges.families.BUILT_IN`; :func:`manyjudges.families.families` adds plug-ins)
FAMILIES = tuple(family.name for family in BUILT_IN)

__all__ = ["FAMILIES", "__version__", "build_method", "family_registry"]


def family_registry(family: str) -> Registry:
    """Return the method registry of ``family``: its package's ``registry``.

    The family is built-in or a plug-in (:func:`manyjudges.families.families`).
    """
    return get_family(family).module().registry


def build_method(family: str, name: str, **params: Any) -> Any:
    """Build a method of ``family`` by its built-in name (or ``package.module:callable``) with parameters.

    The name and parameters are checked as a config's are (unknown names and parameters, bad values:
    ValueError).
    """
    return family_registry(family).build(name, params)
