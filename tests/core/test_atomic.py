"""Atomic writes: a regular file is replaced in one move; a device or a named pipe is written to, never
replaced (``-o /dev/null`` must leave /dev/null a device)."""
import os
import stat
import threading

import pytest

from manyjudges.core.atomic import atomic_file


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
