"""The families, each declared once by a :class:`Family`.

The built-in ones are in :data:`BUILT_IN`, others (plug-ins) declared by an entry point in the group
``manyjudges.families`` of their own package's metadata:

.. code-block:: toml

    [project.entry-points."manyjudges.families"]
    toy = "manyjudges_toy:FAMILY"

Everything that serves every family reads this one list (:func:`families`): the command (one
subcommand group per family, :attr:`Family.commands`), ``manyjudges methods`` and
:func:`manyjudges.build_method` (:attr:`Family.package`'s ``registry``), the pipeline (its rules file
:attr:`Family.rules`, its config section's schema :attr:`Family.schema`, its outputs and report
functions ``<name>_outputs()`` and ``<name>_report()`` defined there) and the reproduction report (the package's
``report.report_section``). How to add one, step by step: ``docs/adding-a-family.md``.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["BUILT_IN", "ENTRY_POINT_GROUP", "Family", "built_in", "families", "get_family"]

#: the entry-point group a package declares its families in (each entry point names a :class:`Family`)
ENTRY_POINT_GROUP = "manyjudges.families"


@dataclass(frozen=True)
class Family:
    """One family of methods: what the command, the pipeline and the report need to know of it.

    The name is the family's config section, its word on the command line and its results folder
    (``results/<name>/``); it must be a Python identifier (the pipeline calls ``<name>_outputs()``).
    """

    #: config section, command word, results folder
    name: str
    #: the importable package holding ``registry`` (a :class:`manyjudges.core.registry.Registry` of its
    #: methods) and ``report.report_section`` (its part of the reproduction report)
    package: str
    #: one line: what the family does (its subcommands' help)
    summary: str
    #: ``"module:function"``: ``function(subparsers)`` adds the family's subcommands to the command's parser;
    #: None: the family has no subcommands of its own
    commands: str | None = None
    #: its Snakemake rules file (with the functions it calls); None: the pipeline's own files for a built-in
    #: family, ``workflow/rules/<name>_common.smk`` (its config section and input functions, apart from
    #: its rules as ``snakemake --lint`` wants) and ``workflow/rules/<name>.smk``
    rules: Path | None = None
    #: its config section's JSON schema (YAML); None: ``workflow/schemas/<name>.schema.yaml`` of the checkout
    schema: Path | None = None
    #: the ``source`` values of its datasets whose files the shared download rule fetches from pinned URLs
    #: (sha256-checked, or copied from a mirror) into ``data/raw/<dataset>/``
    pinned_sources: tuple[str, ...] = ()
    #: ``"module:function"``: ``function(config)`` raises a ValueError naming the key when the family's section
    #: names what is not configured (a dataset, a method), after the schema check and before any job; None: none
    config_check: str | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"a family's name must be a Python identifier, got {self.name!r}")
        for field_name in ("commands", "config_check"):
            value = getattr(self, field_name)
            if value is not None and ":" not in value:
                raise ValueError(f"family {self.name!r}: {field_name} must be 'module:function', got {value!r}")

    def rules_files(self, workflow_dir: str | Path) -> list[Path]:
        """Return the files the Snakefile includes for it, in order.

        These are :attr:`rules`, or under ``workflow_dir`` ``workflow/rules/<name>_common.smk`` then
        ``workflow/rules/<name>.smk``.
        """
        if self.rules is not None:
            return [Path(self.rules)]
        folder = Path(workflow_dir) / "workflow" / "rules"
        return [folder / f"{self.name}_common.smk", folder / f"{self.name}.smk"]

    def schema_ref(self) -> str:
        """Return the ``$ref`` of its config section.

        It is ``<name>.schema.yaml`` beside the main schema, or the absolute ``file:`` URI of :attr:`schema`.
        """
        return Path(self.schema).resolve().as_uri() if self.schema is not None else f"{self.name}.schema.yaml"

    def module(self, name: str = "") -> Any:
        """Its package, or ``<package>.<name>`` (e.g. ``"report"``), imported."""
        return importlib.import_module(f"{self.package}.{name}" if name else self.package)

    def check_config(self, config: Any) -> None:
        """Run its :attr:`config_check` on the whole config (nothing without one)."""
        if self.config_check is not None:
            module, function = self.config_check.split(":")
            getattr(importlib.import_module(module), function)(config)

    def add_commands(self, subparsers: Any) -> None:
        """Add its subcommands to the command's ``subparsers`` (``argparse``'s ``add_subparsers()``).

        Nothing is added without :attr:`commands`.
        """
        if self.commands is None:
            return
        module, function = self.commands.split(":")
        getattr(importlib.import_module(module), function)(subparsers)


def built_in(name: str, summary: str, pinned_sources: tuple[str, ...] = ()) -> Family:
    """Declare a family of this library, laid out by the house's conventions.

    Its package is ``manyjudges.<name>``, its subcommands ``manyjudges.cli.<name>:add_commands``, its config
    checks ``manyjudges.pipeline.config_checks:check_<name>_config``, its rules and schema in the pipeline's
    own ``workflow/`` (:meth:`Family.rules_files`).
    """
    return Family(name, f"manyjudges.{name}", summary, f"manyjudges.cli.{name}:add_commands",
                  pinned_sources=pinned_sources, config_check=f"manyjudges.pipeline.config_checks:check_{name}_config")


#: the built-in families, in the order of the command's help and of the reproduction report
BUILT_IN = (
    built_in("orderings", "score ordered lists against several gold orderings", ("preflib",)),
    built_in("consensus", "consensus measure of each set of rankings", ("search_results", "clef_runs")),
    built_in("graded", "predict an unseen judge's graded labels", ("trec_rf10", "adultcontent3", "snow2008")),
    built_in("crowd", "one ranking per topic from crowd preferences or ratings (Niu et al.'s rank aggregation)",
             ("mirex2005", "trec_rf10")),
    built_in("truth", "one class per item, and a skill per judge, from many judges' labels",
             ("truth_benchmark", "snow2008", "trec_rf10", "llmjudge", "prd", "pandalm")),
    built_in("arena", "which model is best, from judges' pairwise verdicts (people or LLMs); how good the judges are",
             ("llmfao", "prd", "pandalm")),
)


@cache
def families() -> Mapping[str, Family]:
    """Every family by name: the built-in ones (:data:`BUILT_IN`), then each installed plug-in's.

    Plug-ins are the entry points of the group ``manyjudges.families``, by entry-point name. A plug-in whose
    name is taken, whose entry point does not load, or is not a :class:`Family` of that name, is a ValueError
    naming the entry point.
    """
    from importlib.metadata import entry_points  # here: 25 ms that `import manyjudges` need not pay

    out = {family.name: family for family in BUILT_IN}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        where = f"entry point {point.name} = {point.value!r} (group {ENTRY_POINT_GROUP})"
        if point.name in out:
            raise ValueError(f"{where}: a family named {point.name!r} exists already")
        try:
            family = point.load()
        except Exception as err:  # whatever a plug-in's import raises, reported as its own
            raise ValueError(f"{where}: cannot load it: {type(err).__name__}: {err}") from err
        if not isinstance(family, Family) or family.name != point.name:
            raise ValueError(f"{where}: must name a manyjudges.families.Family called {point.name!r}, "
                             f"got {family!r}")
        out[family.name] = family
    return MappingProxyType(out)  # read-only: the one list, cached


def get_family(name: str) -> Family:
    """Return the family called ``name`` (built-in or plug-in); ValueError naming the families otherwise."""
    known = families()
    if name not in known:
        raise ValueError(f"unknown family {name!r}; families: {', '.join(known)}")
    return known[name]
