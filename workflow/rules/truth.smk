# Truth inference: one class per item and a skill per judge from crowd labels.


rule truth_data:
    input:
        lambda wc: truth_raw_input(wc.truth_dataset),
    output:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    log:
        "logs/parse/truth_{truth_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        seed=config["seed"],
    script:
        "../../scripts/truth_data.py"


rule truth_infer:
    input:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    output:
        **{t: f"results/truth/{{truth_dataset}}/{t}.tsv" for t in TRUTH_TABLES},
    log:
        "logs/truth/{truth_dataset}/infer.log",
    benchmark:
        "logs/benchmarks/truth_infer/{truth_dataset}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        specs={m: method_spec(TRUTH, m) for m in TRUTH["methods"]},
    script:
        "../../scripts/truth_infer.py"


# A dataset's figures: accuracy, and on the datasets the replay runs on (truth_active_datasets()) the
# replay's too, in one job (truth_figures); the accuracy alone on the others (truth_figure).
rule truth_figures:
    input:
        accuracy="results/truth/{truth_dataset}/accuracy.tsv",
        summary="results/truth/{truth_dataset}/active.tsv",
        curves="results/truth/{truth_dataset}/active_curves.tsv",
    output:
        accuracy=report(
            "results/figures/truth/{truth_dataset}/accuracy.png",
            caption="../report/truth_accuracy.rst",
            category="Truth inference",
            subcategory="{truth_dataset}",
        ),
        accuracy_pdf="results/figures/truth/{truth_dataset}/accuracy.pdf",
        active=report(
            "results/figures/truth/{truth_dataset}/active.png",
            caption="../report/truth_active.rst",
            category="Truth inference",
            subcategory="{truth_dataset}",
        ),
        active_pdf="results/figures/truth/{truth_dataset}/active.pdf",
    log:
        "logs/figures/truth/{truth_dataset}.log",
    wildcard_constraints:
        truth_dataset=_alternatives(truth_active_datasets()),
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=TRUTH["methods"],
    script:
        "../../scripts/plot_truth.py"


rule truth_figure:
    input:
        accuracy="results/truth/{truth_dataset}/accuracy.tsv",
    output:
        accuracy=report(
            "results/figures/truth/{truth_dataset}/accuracy.png",
            caption="../report/truth_accuracy.rst",
            category="Truth inference",
            subcategory="{truth_dataset}",
        ),
        accuracy_pdf="results/figures/truth/{truth_dataset}/accuracy.pdf",
    log:
        "logs/figures/truth/{truth_dataset}.log",
    wildcard_constraints:
        truth_dataset=_alternatives([d for d in TRUTH["datasets"] if d not in truth_active_datasets()]),
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=TRUTH["methods"],
    script:
        "../../scripts/plot_truth.py"


rule truth_active:
    input:
        labels="data/processed/truth/{truth_dataset}/labels.tsv",
        truth="data/processed/truth/{truth_dataset}/truth.tsv",
    output:
        summary="results/truth/{truth_dataset}/active.tsv",
        curves="results/truth/{truth_dataset}/active_curves.tsv",
    log:
        "logs/truth/{truth_dataset}/active.log",
    benchmark:
        "logs/benchmarks/truth_active/{truth_dataset}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        spec=lambda wc: TRUTH["datasets"][wc.truth_dataset],
        active=TRUTH.get("active", {}),
    script:
        "../../scripts/truth_active.py"
