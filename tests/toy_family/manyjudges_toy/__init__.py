"""A toy family: one score per item from several judges' numeric scores (``item, judge, score``).

Its whole declaration is :data:`FAMILY`, named by the entry point ``toy`` of the group
``manyjudges.families`` in this package's metadata (``pyproject.toml``)."""
from pathlib import Path

from manyjudges.core.registry import Builtin, Registry
from manyjudges.families import Family
from manyjudges_toy.methods import ItemMean, ItemMedian

__all__ = ["FAMILY", "check_config", "registry"]

HERE = Path(__file__).resolve().parent

#: the toy family's methods, by the names the config and the command use
registry = Registry("toy", {
    "mean": Builtin(ItemMean, "each item's mean score, the top and bottom `trim` share of its scores left out"),
    "median": Builtin(ItemMedian, "each item's median score"),
}, required=("fit_predict",))

def check_config(config: dict) -> None:
    """Before any job: a toy section with datasets must configure a method (else nothing would run)."""
    toy = config.get("toy") or {}
    if toy.get("datasets") and not toy.get("methods"):
        raise ValueError(f"config: toy.datasets {sorted(toy['datasets'])} are configured but toy.methods is empty")


#: the family, declared once: the command, the pipeline and the report read everything from here
FAMILY = Family(
    name="toy",
    package="manyjudges_toy",
    summary="one score per item from several judges' numeric scores",
    commands="manyjudges_toy.commands:add_commands",
    rules=HERE / "toy.smk",
    schema=HERE / "toy.schema.yaml",
    config_check="manyjudges_toy:check_config",
)
