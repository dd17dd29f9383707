"""A toy family: one score per item from several judges' numeric scores (``item, judge, score``).

Its whole declaration is :data:`FAMILY`, named by the entry point ``toy`` of the group
``manyjudges.families`` in this package's metadata (``pyproject.toml``)."""
from pathlib import Path

from manyjudges.families import Family
from manyjudges.registry import Builtin, Registry
from manyjudges_toy.methods import ItemMean, ItemMedian

__all__ = ["FAMILY", "registry"]

HERE = Path(__file__).resolve().parent

#: the toy family's methods, by the names the config and the command use
registry = Registry("toy", {
    "mean": Builtin(ItemMean, "each item's mean score, the top and bottom `trim` share of its scores left out"),
    "median": Builtin(ItemMedian, "each item's median score"),
}, required=("fit_predict",))

#: the family, declared once: the command, the pipeline and the report read everything from here
FAMILY = Family(
    name="toy",
    package="manyjudges_toy",
    summary="one score per item from several judges' numeric scores",
    commands="manyjudges_toy.commands:add_commands",
    rules=HERE / "toy.smk",
    schema=HERE / "toy.schema.yaml",
)
