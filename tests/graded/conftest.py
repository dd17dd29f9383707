"""Fixtures of the graded tests."""
import pytest

from .helpers import CROWD, panel_of


@pytest.fixture(scope="module")
def crowd_panel():
    return panel_of(CROWD)
