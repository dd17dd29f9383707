"""kappa as one list of a unanimous set is progressively perturbed."""
from manyjudges.consensus.experiment import perturbation_sensitivity
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
spec = snakemake.params.spec
table = perturbation_sensitivity(
    spec["n_items"], spec["n_lists"], spec["steps"], [tuple(g) for g in spec["grid"]], spec["replicates"],
    snakemake.params.seed,
)
write_tsv(table, snakemake.output[0])
