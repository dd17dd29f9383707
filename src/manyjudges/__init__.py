"""manyjudges: aggregate the judgments of many human judges."""
__version__ = "0.1.0"
