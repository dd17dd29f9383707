"""Spammer robustness, one dataset, one spammer kind, this job's ratios: every replicate and method."""

from manyjudges.crowd.data import load_crowd_files
from manyjudges.crowd.experiment import robustness_parts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
wc, p = snakemake.wildcards, snakemake.params
dataset = load_crowd_files(dict(snakemake.input.items()))
table = robustness_parts(dataset, p.methods, wc.spammer, p.ratios, p.replicates, p.seed, wc.crowd_dataset,
                         p.ks, p.rbp_p, p.dataset["relevant_grade"])
write_tsv(table, snakemake.output[0])
