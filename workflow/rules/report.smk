# The reproduction report (each family's figures are among its own rules).


# The script is given each family's report_section arguments (its <family>_report(), in <family>_common.smk
# for a built-in family); input lists the files they name.
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
