"""The options and checks every family's subcommands share.

``--method``/``--params``/``-o``, ``--duplicates``, ``--labels`` names, ``--n-classes``, and the help layout
with a worked example.
"""
from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from typing import Any

from manyjudges.cli.terminal import CommandError

__all__ = ["add_duplicates", "add_method", "family_verbs", "label_names", "parser_kwargs", "refused"]


def parser_kwargs(summary: str, example: str) -> dict[str, Any]:
    """Return the ``add_parser`` keywords of a subcommand.

    Its one-line summary as help and description, and ``example`` (indented text with an ``example``
    paragraph whose shell lines run as written) as epilog.
    """
    return {"help": summary, "description": summary, "formatter_class": argparse.RawDescriptionHelpFormatter,
            "epilog": textwrap.dedent(example)}


def family_verbs(subparsers: Any, family: str, default: str | None = None, data: str = "FILE") -> Any:
    """Add the subparsers of ``manyjudges <family> VERB`` and return them.

    A command group whose help is the family's declared summary (:attr:`manyjudges.families.Family.summary`)
    and lists its verbs.

    Parameters
    ----------
    subparsers
        The command's subparsers: a :class:`~manyjudges.cli.grammar._CommandParser`'s, as
        :func:`~manyjudges.cli.parser._build_parser` makes them (their parsers take the default verb).
    family : str
        The family's name, its word on the command line.
    default : str, optional
        The verb that ``manyjudges <family> DATA ...`` means (the shorthand, said in the group's help);
        None: the verb is always spelled out.
    data : str
        The default verb's first argument as its help names it (``LABELS``).
    """
    from manyjudges.cli.grammar import _shorthand_note
    from manyjudges.families import get_family

    summary = get_family(family).summary
    prog = f"manyjudges {family}"
    note = {} if default is None else {"epilog": "shorthand: " + _shorthand_note(prog, default, data),
                                       "default_verb": default, "data": data}
    group = subparsers.add_parser(family, help=summary, description=summary,
                                  formatter_class=argparse.RawDescriptionHelpFormatter, **note)
    return group.add_subparsers(dest="verb", required=True, metavar="VERB")


def _printf_table(path: str, rows: list[tuple[Any, ...]]) -> str:
    """Return the shell line of a help example that writes a tiny TSV.

    The line is ``printf '<rows, tab-separated>' > path`` (the first row is the header).
    """
    lines = "".join("\\t".join(str(v) for v in row) + "\\n" for row in rows)
    return f"printf '{lines}' > {path}"


def add_method(parser: argparse.ArgumentParser, family: str, default: str | None = None, why: str = "") -> None:
    """Add ``--method``, ``--params JSON`` and ``-o FILE``.

    ``--method`` is required unless ``default`` names the method run without it; ``why`` (a clause) says what
    that method does, in the help.
    """
    text = f"a built-in {family} method (manyjudges methods {family}) or package.module:callable"
    if default is not None:
        text += f" (default: {default}{': ' + why if why else ''})"
    parser.add_argument("--method", required=default is None, default=default, help=text)
    parser.add_argument("--params", metavar="JSON", help="the method's parameters as a JSON object")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the table here (default: stdout)")


def add_duplicates(parser: argparse.ArgumentParser, key: str) -> None:
    """Add ``--duplicates error|keep|first|last``: what a repeated row means, the same flag in every family.

    ``key`` names what a repeat repeats, e.g. ``"(item, judge)"``.
    """
    parser.add_argument("--duplicates", choices=["error", "keep", "first", "last"], default="error",
                        help=f"a repeated {key} row: an error naming both lines (default), or keep every row, "
                             "the first or the last")


def _set_help(parser: argparse.ArgumentParser, dest: str, text: str) -> None:
    """Replace the help of the option stored in ``dest`` (a family's own reading of a shared option)."""
    for action in parser._actions:
        if action.dest == dest:
            action.help = text


def refused(check: Callable[..., None], *args: Any) -> None:
    """Run a library check of ``--duplicates``; its ValueError is raised as a command-line mistake naming the flag."""
    try:
        check(*args)
    except ValueError as err:
        raise CommandError(str(err).replace("duplicates='keep'", "--duplicates keep")) from None


def _add_n_classes(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--n-classes K`` (``args.n_classes``); its former spelling ``--n-labels`` is still read."""
    p.add_argument("--n-classes", "--n-labels", dest="n_classes", type=int, metavar="K",
                   help=help_text + "; --n-labels is the former spelling")


def _add_judges_file(p: argparse.ArgumentParser, help_text: str) -> None:
    """Add ``--judges FILE`` (``args.judges``), where a judge's estimates go.

    Its former spelling ``--workers`` is still read.
    """
    p.add_argument("--judges", "--workers", dest="judges", metavar="FILE",
                   help=help_text + "; --workers is the former spelling")


def _check_n_classes(n_classes: int | None) -> None:
    """Raise a CommandError unless ``--n-classes`` is unset or at least 2."""
    if n_classes is not None and n_classes < 2:
        raise CommandError(f"--n-classes must be at least 2, got {n_classes}")


def label_names(text: str | None) -> list[str] | None:
    """``--labels G,P,R,X``: the label names in order 0..K-1 (None without the option)."""
    return [n.strip() for n in text.split(",")] if text else None
