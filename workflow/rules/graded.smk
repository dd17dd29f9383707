# Predicting an unseen judge's graded labels (Wilbur and Kim 2011): methods M1-M5 and extensions.


rule simulate_grades:
    output:
        grades="data/processed/{graded_sim}/grades.tsv",
        meta="data/processed/{graded_sim}/grades.yaml",
    log:
        "logs/simulate/{graded_sim}.log",
    # the graded fits, the run's longest jobs, wait on it (graded_part)
    priority: 20
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        spec=lambda wc: GRADED["datasets"][wc.graded_sim],
        seed=config["seed"],
    script:
        "../../scripts/simulate_grades.py"


rule parse_grades:
    input:
        lambda wc: graded_raw_input(wc.graded_raw),
    output:
        grades="data/processed/{graded_raw}/grades.tsv",
        meta="data/processed/{graded_raw}/grades.yaml",
    log:
        "logs/parse/{graded_raw}.log",
    priority: 20
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        spec=lambda wc: GRADED["datasets"][wc.graded_raw],
    script:
        "../../scripts/parse_grades.py"


# One job per (dataset, method) runs both protocols; a method's `jobs: N` splits its cross
# induction over N jobs (held-out judges dealt round-robin) plus one single-parameter job; the
# methods listed under `batch` run together in one job per dataset (the {method} "batch").
rule graded_part:
    input:
        grades="data/processed/{dataset}/grades.tsv",
        meta="data/processed/{dataset}/grades.yaml",
    output:
        predictions="results/graded/{dataset}/parts/{method}/{job}.tsv",
        params="results/graded/{dataset}/parts/{method}/{job}.params.tsv",
    log:
        "logs/graded/{dataset}/{method}/{job}.log",
    benchmark:
        "logs/benchmarks/graded_part/{dataset}/{method}/{job}.tsv"
    # the run's longest jobs (M5 on sim_medline, the batch on trec_rf10) start first, before the
    # spammer sweep (10) and the short jobs: no core waits on one of them at the end of the run
    priority: 20
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        dataset=lambda wc: GRADED["datasets"][wc.dataset],
        parts=lambda wc: graded_job_parts(wc.dataset, wc.method, wc.job),
        specs=lambda wc: {m: method_spec(GRADED, m) for m in graded_job_methods(wc.dataset, wc.method, wc.job)},
        n_chunks=lambda wc: {
            m: graded_chunks(m, "cross_induction") for m in graded_job_methods(wc.dataset, wc.method, wc.job)
        },
    script:
        "../../scripts/graded_part.py"


rule graded_tables:
    input:
        grades="data/processed/{dataset}/grades.tsv",
        meta="data/processed/{dataset}/grades.yaml",
        predictions=lambda wc: graded_parts(wc.dataset),
        params=lambda wc: [p.replace(".tsv", ".params.tsv") for p in graded_parts(wc.dataset)],
    output:
        loglik="results/graded/{dataset}/loglik_by_judge.tsv",
        pairwise="results/graded/{dataset}/pairwise_tests.tsv",
        parameters="results/graded/{dataset}/parameters.tsv",
    log:
        "logs/graded/{dataset}/tables.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        comparisons=GRADED["comparisons"],
        methods=list(GRADED["methods"]),
    script:
        "../../scripts/graded_tables.py"


rule figure_loglik_by_judge:
    input:
        "results/graded/{dataset}/loglik_by_judge.tsv",
    output:
        png=report(
            "results/figures/graded/{dataset}/loglik_by_judge.png",
            caption="../report/loglik_by_judge.rst",
            category="Graded judgments",
            subcategory="{dataset}",
        ),
        pdf="results/figures/graded/{dataset}/loglik_by_judge.pdf",
    log:
        "logs/figures/{dataset}/loglik_by_judge.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=lambda wc: GRADED["datasets"][wc.dataset],
    script:
        "../../scripts/plot_graded.py"
