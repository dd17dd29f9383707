"""The command's grammar: ``manyjudges FAMILY VERB ...`` in every family, and a family's default verb as a shorthand.

``manyjudges truth LABELS ...`` is ``manyjudges truth infer LABELS ...``.

The shorthand is the parser's, not a rewrite of the command line: the family's :class:`_CommandParser`
reads the words after the family, and when the first is not one of its verbs it hands them all to the
default verb. A first word that is not a verb, not an option, not ``-`` (standard input), not a readable
file and not shaped like a path (no ``/`` and no ``.``) is a mistake named as both: neither a verb nor a
file. A file named like a verb is read by spelling the verb out (``manyjudges truth infer next``) or as
``./next``.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

#: the words that ask a family for its help rather than run a verb
HELP = ("-h", "--help")


def _shorthand_note(prog: str, verb: str, data: str) -> str:
    """Return the one line of a family's help that says its shorthand.

    E.g. ``manyjudges truth LABELS ... is short for manyjudges truth infer LABELS ...``.
    """
    return f"{prog} {data} ... is short for {prog} {verb} {data} ..."


class _CommandParser(argparse.ArgumentParser):
    """An argument parser whose verbs (its subparsers) may have a default.

    Parameters
    ----------
    default_verb : str, optional
        The verb that reads the words after the family when the first of them is not a verb (a data file or
        an option); None: a verb is required.
    data : str, optional
        The default verb's first argument as its help names it (``LABELS``), for the help and the errors.
    """

    def __init__(self, *args: Any, default_verb: str | None = None, data: str = "FILE", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.default_verb, self.data = default_verb, data
        self.verbs: dict[str, argparse.ArgumentParser] = {}

    def add_subparsers(self, **kwargs: Any) -> Any:
        """``argparse``'s, remembering the verbs (the action's ``choices``, filled as verbs are added)."""
        action = super().add_subparsers(**kwargs)
        self.verbs = action.choices
        return action

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """``argparse``'s, with the default verb put first when the first word is not a verb."""
        words = list(args) if args is not None else None
        if words and self.default_verb is not None and self._is_shorthand(words[0]):
            words = [self.default_verb, *words]
        return super().parse_known_args(words, namespace)

    def _is_shorthand(self, first: str) -> bool:
        """Tell whether ``first`` starts the default verb's words.

        An error naming both readings when it is neither a verb nor data.
        """
        if first in self.verbs or first in HELP:
            return False
        if first.startswith("-") or looks_like_a_path(first) or readable_file(first):
            return True
        self.error(f"{first!r} is neither a verb of {self.prog} ({', '.join(self.verbs)}) nor a readable {self.data} "
                   f"file ({_shorthand_note(self.prog, str(self.default_verb), self.data)})")


def looks_like_a_path(word: str) -> bool:
    """Tell whether ``word`` is one no verb can be: it has a folder separator or a dot (``labels.tsv``, ``data/x``)."""
    return "." in word or "/" in word or os.sep in word


def readable_file(word: str) -> bool:
    """Whether ``word`` names something that exists, is not a folder and can be read."""
    return os.path.exists(word) and not os.path.isdir(word) and os.access(word, os.R_OK)
