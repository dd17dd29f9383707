"""Aggregate each set of rankings with every aggregator; measure consensus with the inputs."""
from manyjudges.consensus.experiment import aggregator_consensus, load_list_sets
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
list_sets = load_list_sets(snakemake.input[0])
table = aggregator_consensus(list_sets, snakemake.params.aggregators, snakemake.params.lam, snakemake.params.gamma)
write_tsv(table, snakemake.output[0])
