"""Every configured leaderboard method on one arena dataset's verdicts, with bootstrap intervals
(manyjudges.arena.experiment.arena_leaderboards)."""
from manyjudges.arena.experiment import arena_leaderboards
from manyjudges.io.tables.verdicts import read_verdicts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
p = snakemake.params
verdicts = read_verdicts(snakemake.input[0], extras=True)
table = arena_leaderboards(verdicts, p.specs, snakemake.wildcards.arena_dataset, p.seed, n_bootstrap=p.bootstrap,
                           resample=p.resample, ci=p.ci, bothbad=p.bothbad, n_jobs=snakemake.threads)
write_tsv(table, snakemake.output[0])
