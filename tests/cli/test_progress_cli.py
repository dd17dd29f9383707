"""Progress with the time left: the bar on a terminal, the lines in a log, the estimate by hand (a fake clock)."""
import io

import pytest

from manyjudges.cli import terminal
from manyjudges.cli.terminal import _Progress, _seconds_left


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(terminal.time, "perf_counter", lambda: now[0])
    return now


@pytest.mark.parametrize("done, total, elapsed, expected", [
    (340, 1000, 6.8, "13 s"),  # 6.8 / 340 * 660 = 13.2
    (1, 4, 3.0, "9 s"), (10, 1000, 2.0, "3 min 18 s"), (0, 10, 1.0, "? s"), (5, 5, 9.0, "0 s")])
def test_seconds_left_by_hand(done, total, elapsed, expected):
    assert _seconds_left(done, total, elapsed) == expected


def test_the_bar_shows_the_time_left_and_ends_with_the_time_taken(clock):
    screen = Terminal()
    progress = _Progress("leaderboard bootstrap", screen)
    clock[0] += 6.8
    progress(340, 1000)
    assert screen.getvalue().endswith("] 340/1000, 6.8 s, 13 s left\033[K")
    clock[0] += 13.2
    progress(1000, 1000)
    last = screen.getvalue().split("\r")[-1]
    assert last == f"leaderboard bootstrap [{'#' * 30}] 1000/1000, 20.0 s\033[K\n"


def test_a_log_gets_a_line_with_the_time_left_every_ten_seconds_and_a_short_run_none(clock):
    log = io.StringIO()
    progress = _Progress("leaderboard bootstrap", log)
    for done in range(1, 101):
        clock[0] += 0.25  # 25 s in all
        progress(done, 100)
    assert log.getvalue().splitlines() == [
        "manyjudges: leaderboard bootstrap: 40/100 done, 10.0 s, 15 s left",
        "manyjudges: leaderboard bootstrap: 80/100 done, 20.0 s, 5 s left"]
    quiet = io.StringIO()
    short = _Progress("leaderboard bootstrap", quiet)
    for done in range(1, 101):
        clock[0] += 0.05
        short(done, 100)
    assert quiet.getvalue() == ""
