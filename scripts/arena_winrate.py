"""Each model's win rate against one arena dataset's baseline (manyjudges.arena.experiment.arena_winrate)."""
from manyjudges.arena.experiment import arena_winrate
from manyjudges.io.tables.verdicts import read_verdicts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
p = snakemake.params
table = arena_winrate(read_verdicts(snakemake.input[0], extras=True), p.baseline, p.control,
                      snakemake.wildcards.arena_dataset, p.seed, n_bootstrap=p.bootstrap, ci=p.ci)
write_tsv(table, snakemake.output[0])
