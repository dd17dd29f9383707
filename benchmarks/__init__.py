"""The benchmarks, by kind: run each from the repository root as ``python -m benchmarks.<kind>.<name>``."""
