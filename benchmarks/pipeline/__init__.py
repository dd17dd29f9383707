"""Tools about pipeline runs: where a run's time went, whether two runs give the same tables."""
