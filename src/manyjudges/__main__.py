"""``python -m manyjudges``: the same as the ``manyjudges`` command."""
from manyjudges.cli import entry_point

entry_point()
