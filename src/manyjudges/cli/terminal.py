"""Terminal helpers of the command: errors, progress bars, reading a table (or stdin), writing a TSV."""
from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["CommandError", "Progress", "build", "input_path", "parse_params", "stage", "write_output"]


class CommandError(Exception):
    """A mistake on the command line (not in a data file): printed as one line, exit status 2."""


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label, self.stream = label, stream or sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {elapsed:.1f} s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


#: a stage that takes at least this many seconds is reported on a stderr that is not a terminal
STAGE_REPORT_SECONDS = 2.0


@contextmanager
def stage(label: str, stream: Any = None) -> Iterator[None]:
    """Report a stage of a long command on stderr: on a terminal a line that says what is running and
    then how long it took; elsewhere (a log file, a pipe) one line when the stage ends, if it took
    :data:`STAGE_REPORT_SECONDS` or more."""
    stream = stream or sys.stderr
    tty = hasattr(stream, "isatty") and stream.isatty()
    if tty:
        stream.write(f"manyjudges: {label} ...")
        stream.flush()
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    if tty:
        stream.write(f" {elapsed:.1f} s\n")
    elif elapsed >= STAGE_REPORT_SECONDS:
        stream.write(f"manyjudges: {label}: {elapsed:.1f} s\n")
    stream.flush()


@contextmanager
def input_path(name: str) -> Iterator[Path]:
    """The path of an input table; ``-`` copies stdin to a temporary ``stdin.tsv``."""
    if name != "-":
        path = Path(name)
        if not path.exists():
            raise CommandError(f"{name}: no such file")
        if path.is_dir():
            raise CommandError(f"{name}: is a directory, not a table")
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="manyjudges-") as tmp:
        path = Path(tmp) / "stdin.tsv"
        path.write_bytes(sys.stdin.buffer.read())
        yield path


def write_output(table: pd.DataFrame, out: str | None) -> None:
    """The table to ``out`` (a CSV when the name ends in ``.csv``, else a TSV; atomically: no half-written
    file is left) or as TSV to stdout, at full precision either way (the same writer as the pipeline's
    tables)."""
    from manyjudges.io.tables import write_table, write_tsv_to

    if out is None or out == "-":
        write_tsv_to(table, sys.stdout)
        return
    try:
        write_table(table, out)
    except OSError as err:
        raise CommandError(f"{out}: cannot write the output ({err.strerror or err})") from None


def parse_params(text: str | None) -> dict[str, Any]:
    """``--params`` as a JSON object."""
    if not text:
        return {}
    try:
        params = json.loads(text)
    except json.JSONDecodeError as err:
        raise CommandError(f"--params must be a JSON object, e.g. '{{\"min_sup\": 0.5}}': {err.msg} at "
                           f"character {err.pos}: {text!r}") from None
    if not isinstance(params, dict):
        raise CommandError(f"--params must be a JSON object, got {text!r}")
    return params


def build(make: Callable[[str, dict[str, Any]], Any], method: str, params: dict[str, Any]) -> Any:
    """``make(method, params)`` (a family's ``make_*`` function); a bad name, parameter or value is
    a command-line mistake."""
    try:
        return make(method, params)
    except ValueError as err:
        raise CommandError(str(err)) from None
