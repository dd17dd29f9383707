"""FreSPA's ED as one parameter varies (paper Tables 2-4), at each noise ratio of the sweep, for each
swept parameter of the job."""
from manyjudges.io.tables.orderings import read_orderings
from manyjudges.orderings.experiment import frespa_sweeps, panels_from_table
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
params = snakemake.params
panels = panels_from_table(read_orderings(snakemake.input[0]))
table = frespa_sweeps(panels, params.sweeps, params.ratios, params.seed, snakemake.wildcards.dataset,
                      base_params=params.spec["params"], **params.reading)
write_tsv(table, snakemake.output[0])
