"""results/REPRODUCTION.md: every paper table beside ours. Wires the rule's params (each family's
report_section arguments, in the order of manyjudges.families.families()) to the report's assembly."""
from manyjudges.pipeline.reproduction import family_sections, write_reproduction
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
write_reproduction(family_sections(snakemake.params.sections), snakemake.output[0])
