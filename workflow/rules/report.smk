# Figures and the reproduction report.


rule figure_ed_by_noise:
    input:
        "results/orderings/{dataset}/ed_by_noise.tsv",
    output:
        png=report(
            "results/figures/orderings/{dataset}/ed_by_noise.png",
            caption="../report/ed_by_noise.rst",
            category="Ordered lists",
            subcategory="{dataset}",
        ),
        pdf="results/figures/orderings/{dataset}/ed_by_noise.pdf",
    log:
        "logs/figures/{dataset}/ed_by_noise.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_ed_by_noise.py"


rule figure_frespa_sweep:
    input:
        "results/orderings/{dataset}/frespa_sweep.tsv",
    output:
        png=report(
            "results/figures/orderings/{dataset}/frespa_sweep.png",
            caption="../report/frespa_sweep.rst",
            category="Ordered lists",
            subcategory="{dataset}",
        ),
        pdf="results/figures/orderings/{dataset}/frespa_sweep.pdf",
    log:
        "logs/figures/{dataset}/frespa_sweep.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_frespa_sweep.py"


# The script is given each family's report_section arguments (common.smk: <family>_report()); input lists
# the files they name.
rule reproduction_report:
    input:
        report_inputs(),
    output:
        report("results/REPRODUCTION.md", caption="../report/reproduction.rst", category="Reproduction"),
    log:
        "logs/reproduction.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        sections=report_sections(),
    script:
        "../../scripts/reproduction_report.py"
