"""The style-controlled bradley_terry leaderboard of one arena dataset and its coefficients
(manyjudges.arena.experiment.arena_controlled)."""
from manyjudges.arena.experiment import arena_controlled
from manyjudges.io.tables.verdicts import read_verdicts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
p = snakemake.params
board, coefficients = arena_controlled(read_verdicts(snakemake.input[0], extras=True), p.control,
                                       snakemake.wildcards.arena_dataset, p.seed, n_bootstrap=p.bootstrap,
                                       resample=p.resample, ci=p.ci, bothbad=p.bothbad)
write_tsv(board, snakemake.output.leaderboard)
write_tsv(coefficients, snakemake.output.coefficients)
