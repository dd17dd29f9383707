import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("MANYJUDGES_MIRROR") or REPO.parent / "shared" / "data" / "mirror")


@pytest.fixture
def mirror() -> Path:
    if not MIRROR.is_dir():
        pytest.skip("shared/data/mirror not found beside the repository")
    return MIRROR


# the suite fits many models in this one process: keep freed arrays in it, as the command does
from manyjudges.core.memory import keep_freed_memory  # noqa: E402

keep_freed_memory()
