"""Accuracy: against peers, the authors' code or a reference (a known truth, a paper's table)."""
