"""Crowd rank aggregation (seed 004): CrowdAgg, pairwise baselines, spammers, IR metrics."""
