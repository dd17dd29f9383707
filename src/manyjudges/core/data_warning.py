"""The warning of input that is read with something left out or doubtful.

It lives in the core so that the coding of labels (:mod:`manyjudges.core.coded_labels`), below the readers,
can warn with it too; :mod:`manyjudges.io.engine.errors` re-exports it.
"""
from __future__ import annotations

__all__ = ["DataWarning"]


class DataWarning(UserWarning):
    """Input that is read, with something left out: ignored columns, truth rows without labels."""
