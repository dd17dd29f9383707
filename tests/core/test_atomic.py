"""Atomic writes: a regular file is replaced in one move; a device or a named pipe is written to, never
replaced (``-o /dev/null`` must leave /dev/null a device)."""
import os
import signal
import stat
import subprocess
import sys
import threading

import pytest

from manyjudges.core.atomic import _temp_path, atomic_file


def test_a_regular_file_is_replaced_and_an_error_leaves_the_old_one(tmp_path):
    path = tmp_path / "out" / "table.tsv"
    with atomic_file(path) as handle:
        handle.write("a\n")
    assert path.read_text() == "a\n"
    with pytest.raises(RuntimeError), atomic_file(path) as handle:
        handle.write("b\n")
        raise RuntimeError("killed")
    assert path.read_text() == "a\n" and sorted(p.name for p in path.parent.iterdir()) == ["table.tsv"]


def test_dev_null_stays_a_device():
    with atomic_file("/dev/null") as handle:
        handle.write("x\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_named_pipe_is_written_to(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    with atomic_file(fifo) as handle:
        handle.write("through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_killed_writers_temporary_file_goes_at_the_next_write(tmp_path):
    """SIGKILL leaves the temporary file (nothing can remove it then); the next write to the same path
    removes it, and leaves the temporary files of a running writer and of other paths alone."""
    path = tmp_path / "table.tsv"
    child = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from manyjudges.core.atomic import atomic_file\n"
        f"with atomic_file({str(path)!r}) as h:\n"
        "    h.write('half'); h.flush(); print('writing', flush=True); time.sleep(60)\n")],
        stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "writing\n"
    child.send_signal(signal.SIGKILL)
    child.wait()
    (stale,) = tmp_path.glob(".table.tsv.*.tmp")
    running = _temp_path(path)  # a writer of this very process: running
    running.write_text("busy")
    other = _temp_path(tmp_path / "other.tsv")
    other.write_text("x")
    with atomic_file(path) as handle:
        handle.write("a\n")
    assert not stale.exists() and running.exists() and other.exists() and path.read_text() == "a\n"
