"""Simulated graded panel shaped like Wilbur and Kim's MEDLINE judgments (sim_medline)."""
from manyjudges.graded.simulate import panel_options, simulate_medline_panel
from manyjudges.io.tables.grades import GradedData, write_grades
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec = dict(snakemake.params.spec)
grades, scale = simulate_medline_panel(seed=snakemake.params.seed, **panel_options(spec))
k = int(spec["n_classes"])
write_grades(GradedData(grades, k, [str(c) for c in range(k)]), snakemake.output.grades, snakemake.output.meta)
