"""Run a block with BLAS (OpenBLAS, MKL, ...) limited to one thread.

Small fits (L-BFGS-B on a few hundred variables, Cholesky factors of 60 x 60 matrices) call BLAS on
vectors and matrices far too small to gain from its threads; on a busy machine waking them costs more
than the work itself (on the llmfao crowd, 59 models and 124 judges, one Crowd-BT fit took 7.4 s with
OpenBLAS's 2 threads and 0.5 s with 1, the machine's load about 7). :func:`one_blas_thread` limits every
BLAS library loaded in the process to one thread for the duration of a block (threadpoolctl), and
restores the previous limits after it; without threadpoolctl it does nothing.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["one_blas_thread"]


def _controller() -> Any:
    """Return a threadpoolctl controller of the BLAS libraries loaded now (numpy's and scipy's), or None."""
    import scipy.linalg  # noqa: F401  (loads scipy's BLAS, which its L-BFGS-B calls too)

    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with every loaded BLAS library limited to one thread, then restore the previous limits.

    The limit is process-wide: enter it before starting threads that call BLAS, not in each of them.
    """
    controller = _controller()
    if controller is None:  # pragma: no cover
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield
