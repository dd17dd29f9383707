"""The argument parser of the command: ``methods``, then each family's subcommands.

Each family's are its :attr:`~manyjudges.families.Family.commands`, with a worked example in each subcommand's
``--help``.
"""
from __future__ import annotations

import argparse
import importlib

import pandas as pd

from manyjudges.cli.grammar import _CommandParser
from manyjudges.cli.options import parser_kwargs

__all__ = ["EXAMPLES", "examples"]

EXAMPLES = {
    "methods": """\
        example:
          manyjudges methods crowd          # the crowd aggregators, their parameters and defaults""",
}


def _cmd_methods(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges methods``: every method of each family (or of ``--family``), its summary and parameters."""
    from manyjudges import family_registry
    from manyjudges.families import families as all_families

    families = [args.family] if args.family else list(all_families())
    rows = []
    for family in families:
        for entry in family_registry(family).describe():
            params = ", ".join(f"{k}={v!r}" for k, v in entry["parameters"].items())
            rows.append({"family": family, "method": entry["method"], "summary": entry["summary"],
                         "parameters": params})
    return pd.DataFrame(rows, columns=["family", "method", "summary", "parameters"])


def examples() -> dict[str, str]:
    """Return every subcommand's ``--help`` example by its words (``"methods"``, ``"truth next"``, ...).

    They are this module's and each family's commands module's ``EXAMPLES``.
    """
    from manyjudges.families import families

    out = dict(EXAMPLES)
    for family in families().values():
        if family.commands is not None:
            out.update(getattr(importlib.import_module(family.commands.split(":")[0]), "EXAMPLES", {}))
    return out


def _build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``manyjudges`` command."""
    from manyjudges import __version__
    from manyjudges.families import families

    # a CommandParser, and so its subparsers: a family's verbs, and the default verb of its shorthand
    parser = _CommandParser(prog="manyjudges", description="Aggregate the judgments of many human judges "
                           "(definitions: docs/methods.md in the repository).")
    parser.add_argument("--version", action="version", version=f"manyjudges {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("methods", **parser_kwargs("list the built-in methods, their parameters and defaults",
                                                  EXAMPLES["methods"]))
    p.add_argument("family", nargs="?", choices=list(families()))
    p.add_argument("-o", "--output", metavar="FILE")
    p.set_defaults(run=_cmd_methods)
    for family in families().values():
        family.add_commands(sub)
    return parser
