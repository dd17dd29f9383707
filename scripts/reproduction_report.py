"""results/REPRODUCTION.md: every paper table beside ours."""
from pathlib import Path

from manyjudges.crowd.report import crowd_result_files
from manyjudges.reproduction import (
    crowd_paper_readings,
    graded_paper_readings,
    ordering_readings,
    write_reproduction,
)
from manyjudges.workflow_support import setup_logging

setup_logging(snakemake.log[0])
ed_tables = {Path(p).parent.name: p for p in snakemake.input.ed}
reading_tables = {}
for path in snakemake.input.readings:  # results/orderings/{dataset}/readings/{variant}/ed_by_noise.tsv
    variant = Path(path).parent
    reading_tables.setdefault(variant.parent.parent.name, {})[variant.name] = path
sweep_tables = {Path(p).parent.name: p for p in snakemake.input.sweep}
sweep_reading_tables = {}
for path in snakemake.input.sweep_readings:  # results/orderings/{dataset}/readings/{variant}/frespa_sweep.tsv
    variant = Path(path).parent
    sweep_reading_tables.setdefault(variant.parent.parent.name, {})[variant.name] = path
graded_results = {
    Path(loglik).parent.name: {"loglik": loglik, "pairwise": pairwise, "parameters": params, "grades": grades}
    for loglik, pairwise, params, grades in zip(
        snakemake.input.graded_loglik, snakemake.input.graded_pairwise, snakemake.input.graded_parameters,
        snakemake.input.graded_grades,
    )
}
readings = ordering_readings(ed_tables, reading_tables, snakemake.params.datasets, snakemake.params.methods,
                             snakemake.params.noise_reading, snakemake.params.reading_variants,
                             snakemake.params.sweep_noise_ratios, sweep_tables, sweep_reading_tables,
                             snakemake.params.sweep_reading_variants, snakemake.params.sweep_method)
readings += graded_paper_readings(graded_results, snakemake.params.graded_datasets, snakemake.params.graded_methods)
crowd_results = crowd_result_files(snakemake.input.crowd, snakemake.input.crowd_cv)
readings += crowd_paper_readings(crowd_results, snakemake.params.crowd_datasets, snakemake.params.crowd_methods)
write_reproduction(
    ed_tables=ed_tables,
    sweep_tables=sweep_tables,
    datasets=snakemake.params.datasets,
    methods=snakemake.params.methods,
    orderings_tables={Path(p).parent.name: p for p in snakemake.input.orderings},
    out_path=snakemake.output[0],
    consensus_tables=list(snakemake.input.consensus),
    consensus_datasets=snakemake.params.consensus_datasets,
    graded_results=graded_results,
    graded_datasets=snakemake.params.graded_datasets,
    graded_methods=snakemake.params.graded_methods,
    crowd_results=crowd_results,
    crowd_datasets=snakemake.params.crowd_datasets,
    crowd_methods=snakemake.params.crowd_methods,
    crowd_ks=snakemake.params.crowd_ks,
    crowd_ablation=snakemake.params.crowd_ablation,
    readings=readings,
    noise_reading=snakemake.params.noise_reading,
    truth_results={Path(a).parent.name: {"accuracy": a, "summary": s}
                   for a, s in zip(snakemake.input.truth_accuracy, snakemake.input.truth_summary)},
    truth_datasets=snakemake.params.truth_datasets,
    truth_methods=snakemake.params.truth_methods,
)
