"""results/REPRODUCTION.md: every paper table beside ours."""
from pathlib import Path

from manyjudges.workflow_support import setup_logging
from manyjudges.crowd.report import crowd_result_files
from manyjudges.reporting.reproduction import write_reproduction

setup_logging(snakemake.log[0])
write_reproduction(
    ed_tables={Path(p).parent.name: p for p in snakemake.input.ed},
    sweep_tables={Path(p).parent.name: p for p in snakemake.input.sweep},
    datasets=snakemake.params.datasets,
    methods=snakemake.params.methods,
    orderings_tables={Path(p).parent.name: p for p in snakemake.input.orderings},
    out_path=snakemake.output[0],
    consensus_tables=list(snakemake.input.consensus),
    consensus_datasets=snakemake.params.consensus_datasets,
    graded_results={
        Path(loglik).parent.name: {"loglik": loglik, "pairwise": pairwise, "parameters": params, "grades": grades}
        for loglik, pairwise, params, grades in zip(
            snakemake.input.graded_loglik, snakemake.input.graded_pairwise, snakemake.input.graded_parameters,
            snakemake.input.graded_grades,
        )
    },
    graded_datasets=snakemake.params.graded_datasets,
    graded_methods=snakemake.params.graded_methods,
    crowd_results=crowd_result_files(snakemake.input.crowd, snakemake.input.crowd_cv),
    crowd_datasets=snakemake.params.crowd_datasets,
    crowd_methods=snakemake.params.crowd_methods,
    crowd_ks=snakemake.params.crowd_ks,
    crowd_ablation=snakemake.params.crowd_ablation,
)
