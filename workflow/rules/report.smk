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


rule reproduction_report:
    input:
        ed=expand("results/orderings/{dataset}/ed_by_noise.tsv", dataset=list(ORD["datasets"])),
        readings=reading_tables(),
        sweep_readings=sweep_reading_tables(),
        orderings=expand("data/processed/{dataset}/orderings.tsv", dataset=list(ORD["datasets"])),
        consensus=consensus_tables(),
        sweep=expand(
            "results/orderings/{dataset}/frespa_sweep.tsv",
            dataset=list(ORD["datasets"]) if sweep_parameters(ORD) else [],
        ),
        graded_loglik=expand("results/graded/{d}/loglik_by_judge.tsv", d=list(GRADED["datasets"])),
        graded_pairwise=expand("results/graded/{d}/pairwise_tests.tsv", d=list(GRADED["datasets"])),
        graded_parameters=expand("results/graded/{d}/parameters.tsv", d=list(GRADED["datasets"])),
        graded_grades=expand("data/processed/{d}/grades.tsv", d=list(GRADED["datasets"])),
        crowd=[f"results/crowd/{d}/{t}.tsv" for d in CROWD["datasets"] for t in CROWD_TABLES],
        crowd_cv=expand("results/crowd/{d}/robustness_cv.tsv", d=crowd_robustness_datasets()),
        truth_accuracy=expand("results/truth/{d}/accuracy.tsv", d=list(TRUTH["datasets"])),
        truth_summary=expand("results/truth/{d}/summary.tsv", d=list(TRUTH["datasets"])),
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
