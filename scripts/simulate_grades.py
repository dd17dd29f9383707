"""Simulated graded panel shaped like Wilbur and Kim's MEDLINE judgments (sim_medline)."""
from manyjudges.graded.simulate import simulate_medline_panel
from manyjudges.io.grades import GradedData, write_grades
from manyjudges.workflow_support import setup_logging

setup_logging(snakemake.log[0])
spec = dict(snakemake.params.spec)
options = {k: spec[k] for k in ("n_queries", "docs_per_query", "n_judges", "n_trained", "n_labels", "hard_judges",
                                "hard_noise", "hard_bias", "target_m1_ave", "noise_scale") if k in spec}
grades, scale = simulate_medline_panel(seed=snakemake.params.seed, **options)
k = int(spec["n_labels"])
write_grades(GradedData(grades, k, [str(c) for c in range(k)]), snakemake.output.grades, snakemake.output.meta)
