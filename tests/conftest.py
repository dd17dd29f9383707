"""Fixtures and order of the whole suite.

The suite runs on every core (``-n auto``, pytest-xdist, pyproject.toml's addopts; ``-n 0`` runs it in one
process), each module's tests on one worker (``--dist loadfile``), so that a fixture a module shares (a
pipeline run, a panel simulated once) is built once. The modules that run the pipeline end to end start first
(below), so that no worker is left with one of them at the end.
"""
import os
import sys
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # one BLAS thread per worker, as each of the pipeline's jobs has (Snakefile): the workers already use
    # every core, and BLAS threads spinning against each other slow small fits down by orders of magnitude.
    # Set before numpy is first imported; a test may still raise it (threadpoolctl)
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).parent))

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("MANYJUDGES_MIRROR") or REPO.parent / "shared" / "data" / "mirror")

#: the longest modules, longest first (tests/ relative; as a quiet 2-core run measured them);
#: then the rest of tests/workflow, then every other module, each in its usual order
LONGEST_FIRST = (
    "workflow/test_default_config.py",
    "workflow/test_offline_run.py",
    "workflow/test_pipeline.py",
    "workflow/test_config_checks.py",
    "workflow/test_arena_pipeline.py",
)


@pytest.fixture
def mirror() -> Path:
    if not MIRROR.is_dir():
        pytest.skip("shared/data/mirror not found beside the repository")
    return MIRROR


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent

    def rank(item: pytest.Item) -> int:
        path = item.path.relative_to(tests).as_posix() if item.path.is_relative_to(tests) else ""
        if path in LONGEST_FIRST:
            return LONGEST_FIRST.index(path)
        return len(LONGEST_FIRST) + (not path.startswith("workflow/"))

    items.sort(key=rank)  # stable: the usual order within each rank


# the suite fits many models in this one process: keep freed arrays in it, as the command does
from manyjudges.core.memory import keep_freed_memory  # noqa: E402

keep_freed_memory()
