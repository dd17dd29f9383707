"""Simulated panel of orderings (Mallows, calibrated mean pairwise tau)."""
from manyjudges.orderings.simulate import simulate_ordering_panel
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
spec = snakemake.params.spec
table = simulate_ordering_panel(
    seed=snakemake.params.seed,
    items_per_set=spec["items_per_set"],
    judges_per_set=spec["judges_per_set"],
    target_mean_tau=spec["target_mean_tau"],
    name=snakemake.wildcards.sim_dataset,
)
write_tsv(table, snakemake.output[0])
