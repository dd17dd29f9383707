"""The ``manyjudges`` command: ``manyjudges FAMILY VERB ...``, thin over the library.

Every family takes verbs (``manyjudges truth infer``, ``manyjudges truth next``, ...; a family's default verb
may be left out: ``manyjudges truth LABELS`` is ``manyjudges truth infer LABELS``, :mod:`manyjudges.cli.grammar`).
Every subcommand reads a canonical table (TSV, or CSV by the ``.csv`` extension; ``-`` reads
a TSV from stdin), returns what it made and :func:`main` writes it, one way for all
(:func:`~manyjudges.cli.terminal._write_outputs`): a TSV (a CSV for ``-o FILE.csv``) to ``-o FILE`` (atomically) or to
stdout (a closed pipe, as under ``| head``, ends the command quietly). Each takes ``--method``
as a built-in name (``manyjudges methods``) or ``package.module:callable``, and on bad input
exits with status 1 and one line naming the file, line and value (``--debug``: the traceback).
The numbers are those of the pipeline for the same data and settings: both call the same
library functions.
"""
from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Sequence

from manyjudges.cli.parser import _build_parser
from manyjudges.cli.terminal import CommandError, _write_outputs
from manyjudges.core.memory import keep_freed_memory
from manyjudges.io.engine.errors import DataWarning

__all__ = ["main", "entry_point"]

PROG = "manyjudges"


def _one_line(err: BaseException) -> str:
    """Return the error's message on one line; a temporary stdin copy is shown as ``<stdin>``."""
    text = " ".join(str(err).split()) or type(err).__name__
    return re.sub(r"\S*manyjudges-[^/\s]*/stdin\.tsv", "<stdin>", text)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Print a warning on one line of stderr (``manyjudges: warning: ...``), without Python's source location."""
    print(f"{PROG}: warning: {_one_line(message)}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not raise again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 bad input, 2 bad command line)."""
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    keep_freed_memory()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", DataWarning)
            warnings.showwarning = _show_warning
            _write_outputs(args.run(args), getattr(args, "output", None))  # every subcommand's one writer
    except BrokenPipeError:  # the reader went away (e.g. `| head`): end quietly, as other tools do
        _silence_stdout()
        return 0
    except (CommandError, ValueError, OSError) as err:  # DataError (bad input) is a ValueError
        if args.debug:
            raise
        print(f"{PROG}: error: {_one_line(err)}", file=sys.stderr)
        return 2 if isinstance(err, CommandError) else 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0


def entry_point() -> None:  # pragma: no cover - the console script
    """Run the command and exit with its status (the ``manyjudges`` console script)."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry_point()
