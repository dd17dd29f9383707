"""One arena dataset as canonical verdicts tables: the panel's and the reference's
(manyjudges.arena.data.arena_tables)."""
from manyjudges.arena.data import arena_tables
from manyjudges.io.tables.verdicts import write_verdicts
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
panel, reference = arena_tables(snakemake.wildcards.arena_dataset, dict(snakemake.params.spec), list(snakemake.input),
                                snakemake.params.seed)
write_verdicts(panel, snakemake.output.verdicts)
write_verdicts(reference, snakemake.output.reference)
