"""Simulated crowd with known truth and a known mix of good, random and malicious judges (sim_crowd)."""
from pathlib import Path

from manyjudges.core.random_streams import rng_for
from manyjudges.crowd.data import write_crowd_dataset
from manyjudges.crowd.simulate import simulate_crowd
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec = dict(snakemake.params.spec)
options = {k: spec[k] for k in ("n_topics", "n_items", "n_judges", "pairs_per_judge", "judge_mix",
                                "good_accuracy", "n_grades") if k in spec}
preferences, truth, judges = simulate_crowd(rng_for(snakemake.params.seed, "crowd", snakemake.wildcards.crowd_sim),
                                             **options)
write_crowd_dataset(preferences, truth, Path(snakemake.output.truth).parent, judges=judges)
