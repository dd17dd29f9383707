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
