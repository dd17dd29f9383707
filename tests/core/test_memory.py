"""keep_freed_memory: glibc's mallopt accepts the settings (the machines here run glibc)."""
import platform

import pytest

from manyjudges.core.memory import keep_freed_memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_accepts_every_setting():
    assert keep_freed_memory() is True


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_memory_kept_by_glibc_is_given_back():
    import numpy as np

    from manyjudges.core.memory import give_back_freed_memory

    keep_freed_memory()
    blocks = [np.ones(1 << 18) for _ in range(64)]  # 2 MB each: from the heap, under the mmap threshold
    del blocks  # 128 MB freed, kept (under the trim threshold) until given back
    assert give_back_freed_memory() is True
