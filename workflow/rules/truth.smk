# Truth inference: one class per item and a skill per worker from crowd labels.


rule truth_data:
    input:
        lambda wc: truth_raw_input(wc.truth_dataset),
    output:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    log:
        "logs/parse/truth_{truth_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/truth_data.py"


rule truth_infer:
    input:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    output:
        **{t: f"results/truth/{{truth_dataset}}/{t}.tsv" for t in TRUTH_TABLES},
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        specs={m: method_spec(TRUTH, m) for m in TRUTH["methods"]},
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        "logs/truth/{truth_dataset}/infer.log",
    benchmark:
        "benchmarks/runs/truth/{truth_dataset}/infer.tsv"
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/truth_infer.py"


rule truth_figure:
    localrule: True
    input:
        "results/truth/{truth_dataset}/accuracy.tsv",
    output:
        png=report(
            "results/figures/truth/{truth_dataset}/accuracy.png",
            caption="../report/truth_accuracy.rst",
            category="Truth inference",
            subcategory="{truth_dataset}",
        ),
        pdf="results/figures/truth/{truth_dataset}/accuracy.pdf",
    params:
        methods=TRUTH["methods"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/figures/truth/{truth_dataset}/accuracy.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/plot_truth.py"


rule truth_active:
    input:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    output:
        summary="results/truth/{truth_dataset}/active.tsv",
        curves="results/truth/{truth_dataset}/active_curves.tsv",
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        active=TRUTH.get("active", {}),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        "logs/truth/{truth_dataset}/active.log",
    benchmark:
        "benchmarks/runs/truth/{truth_dataset}/active.tsv"
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/truth_active.py"


rule truth_active_figure:
    localrule: True
    input:
        summary="results/truth/{truth_dataset}/active.tsv",
        curves="results/truth/{truth_dataset}/active_curves.tsv",
    output:
        png=report(
            "results/figures/truth/{truth_dataset}/active.png",
            caption="../report/truth_active.rst",
            category="Truth inference",
            subcategory="{truth_dataset}",
        ),
        pdf="results/figures/truth/{truth_dataset}/active.pdf",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/figures/truth/{truth_dataset}/active.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/plot_truth_active.py"
