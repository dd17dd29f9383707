"""Wires the toy_scores rule to the toy family's library: one method's scores of one dataset."""
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges_toy import registry
from manyjudges_toy.methods import read_scores

setup_logging(snakemake.log[0])
method = registry.build(snakemake.params.spec["method"], snakemake.params.spec["params"])
write_tsv(method.fit_predict(read_scores(snakemake.input[0])).reset_index(), snakemake.output[0])
