"""results/REPRODUCTION.md: every paper table beside ours. Wires the rule's params (every result file keyed by
dataset, the config's pieces) to each family's report section, in the report's order."""
from manyjudges.consensus.report import report_section as consensus_section
from manyjudges.crowd.report import report_section as crowd_section
from manyjudges.graded.report import report_section as graded_section
from manyjudges.orderings.report import report_section as orderings_section
from manyjudges.reproduction import write_reproduction
from manyjudges.truth.report import report_section as truth_section
from manyjudges.workflow_support import setup_logging

setup_logging(snakemake.log[0])
params = snakemake.params
sections = [
    orderings_section(
        ed_tables=params.ed_tables,
        sweep_tables=params.sweep_tables,
        datasets=params.datasets,
        orderings_tables=params.orderings_tables,
        methods=params.methods,
        noise_reading=params.noise_reading,
        reading_tables=params.reading_tables,
        reading_variants=params.reading_variants,
        sweep_noise_ratios=params.sweep_noise_ratios,
        sweep_reading_tables=params.sweep_reading_tables,
        sweep_reading_variants=params.sweep_reading_variants,
        sweep_method=params.sweep_method,
    ),
    consensus_section(list(snakemake.input.consensus), params.consensus_datasets),
    graded_section(params.graded_results, params.graded_datasets, params.graded_methods),
    crowd_section(params.crowd_results, params.crowd_datasets, params.crowd_methods, params.crowd_ks,
                  params.crowd_ablation),
    truth_section(params.truth_results, params.truth_datasets, params.truth_methods),
]
write_reproduction(sections, snakemake.output[0])
