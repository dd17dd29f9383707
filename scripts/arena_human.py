"""The human-calibrated bradley_terry leaderboard of one arena dataset: its reference's verdicts on a share
of the units calibrate the panel's (manyjudges.arena.experiment.arena_human)."""
from manyjudges.arena.experiment import arena_human
from manyjudges.io.tables.verdicts import read_verdicts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
p = snakemake.params
board, summary = arena_human(read_verdicts(snakemake.input.verdicts), read_verdicts(snakemake.input.reference),
                             p.share, snakemake.wildcards.arena_dataset, p.seed, n_bootstrap=p.bootstrap, ci=p.ci,
                             bothbad=p.bothbad)
write_tsv(board, snakemake.output.leaderboard)
write_tsv(summary, snakemake.output.summary)
