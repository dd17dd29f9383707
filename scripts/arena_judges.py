"""The judge measures of one arena dataset's panel, against its reference when it has one, and each judge's
length preference when the verdicts have answer lengths (manyjudges.arena.experiment.arena_judges)."""
from manyjudges.arena.data import read_reference
from manyjudges.arena.experiment import arena_judges
from manyjudges.io.tables.verdicts import read_verdicts
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
verdicts = read_verdicts(snakemake.input.verdicts, extras=True)
measures = arena_judges(verdicts, read_reference(snakemake.input.reference), level=snakemake.params.ci,
                        length="auto")
write_tsv(measures.judges, snakemake.output.judges)
write_tsv(measures.pairs, snakemake.output.judge_pairs)
write_tsv(measures.summary, snakemake.output.judge_summary)
