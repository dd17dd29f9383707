"""keep_freed_memory: glibc's mallopt accepts the settings (the machines here run glibc)."""
import platform

import pytest

from manyjudges.core.memory import keep_freed_memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_accepts_every_setting():
    assert keep_freed_memory() is True
