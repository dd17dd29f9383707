"""Speed: timed against peers, or against an earlier version of this code, in the same run."""
