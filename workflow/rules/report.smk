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


# The script is given every result file keyed by dataset (params, from common.smk); input lists the same files.
rule reproduction_report:
    input:
        ed=paths_of(ed_tables()),
        readings=paths_of(reading_tables()),
        sweep_readings=paths_of(sweep_reading_tables()),
        orderings=paths_of(ordering_tables()),
        consensus=consensus_tables(),
        sweep=paths_of(sweep_tables()),
        graded=paths_of(graded_report_files()),
        crowd=paths_of(crowd_report_files()),
        truth=paths_of(truth_report_files()),
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
        ed_tables=ed_tables(),
        sweep_tables=sweep_tables(),
        orderings_tables=ordering_tables(),
        reading_tables=reading_tables(),
        sweep_reading_tables=sweep_reading_tables(),
        graded_results=graded_report_files(),
        crowd_results=crowd_report_files(),
        truth_results=truth_report_files(),
        graded_datasets=GRADED["datasets"],
        graded_methods=GRADED["methods"],
        crowd_datasets=CROWD["datasets"],
        crowd_methods=CROWD["methods"],
        crowd_ks=CROWD["ks"],
        crowd_ablation=CROWD["ablation"],
        datasets=ORD["datasets"],
        consensus_datasets={**ORD["datasets"], **(CONS.get("datasets") or {})},
        methods=ORD["methods"],
        noise_ratios=ORD["noise_ratios"],
        replicates=ORD["replicates"],
        noise_reading=noise_reading(ORD),
        reading_variants=(ORD.get("readings") or {}).get("variants") or {},
        sweep_noise_ratios=(ORD.get("sweep") or {}).get("noise_ratios") or [],
        sweep_method=(ORD.get("sweep") or {}).get("method", "frespa"),
        sweep_reading_variants=(ORD.get("sweep") or {}).get("readings") or {},
        truth_datasets=TRUTH["datasets"],
        truth_methods=TRUTH["methods"],
    script:
        "../../scripts/reproduction_report.py"
