"""Terminal helpers of the command: errors, progress bars, reading a table (or stdin), writing what a subcommand made.

The writer is :class:`Output` and :func:`_write_outputs`: the one writer of every subcommand.
"""
from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["CommandError", "Output", "build", "input_path", "parse_params"]


class CommandError(Exception):
    """A mistake on the command line (not in a data file): printed as one line, exit status 2."""


#: a stage that takes at least this many seconds is reported on a stderr that is not a terminal
STAGE_REPORT_SECONDS = 2.0
#: off a terminal, :class:`_Progress` writes a line at most this often
PROGRESS_LINE_SECONDS = 10.0


class _Progress:
    """Progress over the steps of a long loop (folds, topics, bootstrap replicates) on stderr, with the time left.

    A one-line bar on a terminal, ``label [###...] done/total, elapsed s, left s left``; elsewhere (a log
    file, a pipe) a line ``label: done/total done, elapsed s, left s left`` whenever
    :data:`PROGRESS_LINE_SECONDS` have passed since the last one, so a long run in a batch job shows it is
    alive and a short one prints nothing. The time left is (total - done) times the mean time of a step
    so far (:func:`_seconds_left`).
    """

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label, self.stream = label, stream or sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = self.last_line = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        """Show that ``done`` of ``total`` steps are done (a bar, or a line when one is due)."""
        if total <= 0:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if not self.enabled:
            if now - self.last_line >= PROGRESS_LINE_SECONDS:
                self.last_line = now
                left = "" if done >= total else f", {_seconds_left(done, total, elapsed)} left"
                self._line(f"{done}/{total} done, {elapsed:.1f} s{left}")
            return
        width = 30
        filled = int(width * done / total)
        left = "" if done >= total else f", {_seconds_left(done, total, elapsed)} left"
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}, {elapsed:.1f} s"
                          f"{left}\033[K")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()

    def _line(self, text: str) -> None:
        self.stream.write(f"manyjudges: {self.label}: {text}\n")
        self.stream.flush()


def _seconds_left(done: int, total: int, elapsed: float) -> str:
    """Return the estimated time left, ``elapsed / done * (total - done)``, as ``"12 s"`` (``"? s"`` before a step).

    Above 99 s, as ``"3 min 20 s"``.
    """
    if done <= 0:
        return "? s"
    left = round(elapsed / done * (total - done))
    return f"{left} s" if left < 100 else f"{left // 60} min {left % 60} s"


class _Stages:
    """The stages of a long command, reported on stderr.

    On a terminal, a bar over the ``total`` stages with the running stage and its seconds, redrawn
    twice a second (so a long read or fit shows it is alive); elsewhere (a log file, a pipe) one line
    per stage that took :data:`STAGE_REPORT_SECONDS` or more, when it ends. Use as
    ``with stages("reading x.tsv"): ...``.
    """

    width = 20

    def __init__(self, total: int, stream: Any = None) -> None:
        self.total, self.done = max(int(total), 1), 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def _draw(self, label: str, start: float, end: str = "") -> None:
        filled = self.width * self.done // self.total
        self.stream.write(f"\rmanyjudges [{'#' * filled}{'.' * (self.width - filled)}] {label} "
                          f"{time.perf_counter() - start:.1f} s\033[K{end}")
        self.stream.flush()

    @contextmanager
    def __call__(self, label: str) -> Iterator[None]:
        """Run the block as the next stage ``label``, shown while it runs (a terminal) or after, when long."""
        start = time.perf_counter()
        stop = threading.Event()
        ticker = None
        if self.tty:
            def tick() -> None:
                while not stop.wait(0.5):
                    self._draw(label, start)

            self._draw(label, start)
            ticker = threading.Thread(target=tick, daemon=True)
            ticker.start()
        try:
            yield
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
        self.done += 1
        elapsed = time.perf_counter() - start
        if self.tty:
            self._draw(label, start, "\n" if self.done >= self.total else "")
        elif elapsed >= STAGE_REPORT_SECONDS:
            self.stream.write(f"manyjudges: {label}: {elapsed:.1f} s\n")
            self.stream.flush()


@contextmanager
def input_path(name: str) -> Iterator[Path]:
    """Yield the path of an input table; ``-`` copies stdin to a temporary ``stdin.tsv``."""
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


def _terminal_table(table: pd.DataFrame) -> str:
    """Return the table as aligned text for a terminal, each number rounded to what it can tell.

    The cells are :func:`~manyjudges.reporting.rounded.rounded_cells`: a value with an interval
    (``score, ci_low, ci_high``; ``win_rate, win_low, win_high``; ``first_win_rate, first_win_low,
    first_win_high``) rounded, with its interval, to the decimal place of the leading digit of the
    interval's width, plus one (width 0.234 -> 2 decimals, 23.4 -> 0); without an interval (or a width
    of 0), and in every other float column, to three significant digits of the column's largest |value|;
    integers (ranks, counts) with thousands separators; a missing value blank. Numbers are
    right-aligned, text left-aligned, columns two spaces apart.
    """
    from manyjudges.reporting.rounded import rounded_cells

    cells = rounded_cells(table)
    lines = []
    columns = [str(c) for c in table.columns]
    right = [pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])
             for c in table.columns]
    widths = [max([len(name), *map(len, cells[c])]) for name, c in zip(columns, table.columns)]
    for row in [columns, *zip(*(cells[c] for c in table.columns))]:
        parts = [text.rjust(w) if r else text.ljust(w) for text, w, r in zip(row, widths, right)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def _write_output(table: pd.DataFrame, out: str | None, tty: bool | None = None) -> None:
    """Write the table to ``out``, or to stdout: aligned and rounded on a terminal, else a full-precision TSV.

    To ``out``: a CSV when the name ends in ``.csv``, else a TSV, at full precision; atomically: no
    half-written file is left. The same writer as the pipeline's tables. To stdout: when it is a terminal
    (``tty``: None asks ``sys.stdout.isatty()``), :func:`_terminal_table`; to a pipe or a file, the TSV at
    full precision.
    """
    from manyjudges.io.engine.table_text import write_table, write_tsv_to

    if out is None or out == "-":
        if sys.stdout.isatty() if tty is None else tty:
            sys.stdout.write(_terminal_table(table))
            sys.stdout.flush()
        else:
            write_tsv_to(table, sys.stdout)
        return
    try:
        write_table(table, out)
    except OSError as err:
        raise CommandError(f"{out}: cannot write the output ({err.strerror or err})") from None


@dataclass(frozen=True)
class Output:
    """What a subcommand made, for :func:`_write_outputs` to write.

    A subcommand that makes one table may return the table alone.

    Attributes
    ----------
    table : pandas.DataFrame
        The subcommand's table, for ``-o FILE`` or stdout.
    files : tuple of (str, pandas.DataFrame)
        The tables other options name (``--judges FILE``, ...), by their file, in the order they are written.
    notes : tuple of str
        Lines for stderr (what a method chose).
    result : str or None
        A line of results (an accuracy): on stdout when ``table`` goes to a file, else beside it on stderr.
    """

    table: pd.DataFrame
    files: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    result: str | None = None


def _write_outputs(output: Output | pd.DataFrame, out: str | None) -> None:
    """Write what a subcommand made.

    The tables of :attr:`Output.files`, then :attr:`Output.table` when ``out`` names a file, each a stage of
    a :class:`_Stages` (a long write shows); then the notes and the result line; then the table on stdout
    when ``out`` is None or ``-`` (last, so that a reader that stops early, as ``| head``, misses no file and
    no line).
    """
    if isinstance(output, pd.DataFrame):
        output = Output(output)
    to_file = out not in (None, "-")
    stages = _Stages(len(output.files) + to_file)
    for path, table in output.files:
        with stages(f"writing {path}"):
            _write_output(table, path)
    if to_file:
        with stages(f"writing {out}"):
            _write_output(output.table, out)
    for note in output.notes:
        print(note, file=sys.stderr)
    if output.result is not None:
        print(output.result, file=sys.stdout if to_file else sys.stderr)
    if not to_file:
        _write_output(output.table, out)


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
    """Return ``make(method, params)`` (a family's ``make_*`` function).

    A bad name, parameter or value is a command-line mistake.
    """
    try:
        return make(method, params)
    except ValueError as err:
        raise CommandError(str(err)) from None
