# Rank aggregation from crowd ratings and preferences (Niu et al.): CrowdAgg and baselines.


rule crowd_simulate:
    output:
        preferences="data/processed/crowd/{crowd_sim}/preferences.tsv",
        truth="data/processed/crowd/{crowd_sim}/truth.tsv",
        judges="data/processed/crowd/{crowd_sim}/judges.tsv",
    log:
        "logs/simulate/crowd_{crowd_sim}.log",
    # the spammer sweep's parts (10) wait on it
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    params:
        spec=lambda wc: CROWD["datasets"][wc.crowd_sim],
        seed=config["seed"],
    script:
        "../../scripts/crowd_simulate.py"


rule crowd_parse_preferences:
    input:
        lambda wc: crowd_raw_input(wc.crowd_pref_raw),
    output:
        preferences="data/processed/crowd/{crowd_pref_raw}/preferences.tsv",
        truth="data/processed/crowd/{crowd_pref_raw}/truth.tsv",
    log:
        "logs/parse/crowd_{crowd_pref_raw}.log",
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        spec=lambda wc: CROWD["datasets"][wc.crowd_pref_raw],
    script:
        "../../scripts/crowd_parse.py"


rule crowd_parse_ratings:
    input:
        lambda wc: crowd_raw_input(wc.crowd_rating_raw),
    output:
        grades="data/processed/crowd/{crowd_rating_raw}/grades.tsv",
        meta="data/processed/crowd/{crowd_rating_raw}/grades.yaml",
        truth="data/processed/crowd/{crowd_rating_raw}/truth.tsv",
    log:
        "logs/parse/crowd_{crowd_rating_raw}.log",
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        spec=lambda wc: CROWD["datasets"][wc.crowd_rating_raw],
    script:
        "../../scripts/crowd_parse.py"


rule crowd_aggregate:
    input:
        unpack(crowd_processed),
    output:
        rankings="results/crowd/{crowd_dataset}/parts/{method}.rankings.tsv",
        quality="results/crowd/{crowd_dataset}/parts/{method}.quality.tsv",
        runtime="results/crowd/{crowd_dataset}/parts/{method}.runtime.tsv",
    log:
        "logs/crowd/{crowd_dataset}/{method}.log",
    benchmark:
        "logs/benchmarks/crowd_aggregate/{crowd_dataset}/{method}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        specs=lambda wc: {m: method_spec(CROWD, m) for m in CROWD_JOBS[wc.method]},
    script:
        "../../scripts/crowd_aggregate.py"


rule crowd_tables:
    input:
        unpack(crowd_processed),
        rankings=lambda wc: expand("results/crowd/{d}/parts/{m}.rankings.tsv", d=wc.crowd_dataset, m=list(CROWD_JOBS)),
        quality=lambda wc: expand("results/crowd/{d}/parts/{m}.quality.tsv", d=wc.crowd_dataset, m=list(CROWD_JOBS)),
        runtime=lambda wc: expand("results/crowd/{d}/parts/{m}.runtime.tsv", d=wc.crowd_dataset, m=list(CROWD_JOBS)),
    output:
        **{t: f"results/crowd/{{crowd_dataset}}/{t}.tsv" for t in CROWD_TABLES},
    log:
        "logs/crowd/{crowd_dataset}/tables.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        dataset=lambda wc: CROWD["datasets"][wc.crowd_dataset],
        methods=list(CROWD["methods"]),
        proposed=CROWD["proposed"],
        baselines=crowd_baselines(),
        ks=CROWD["ks"],
        rbp_p=CROWD["rbp_p"],
        skill_bins=CROWD["skill_bins"],
    script:
        "../../scripts/crowd_tables.py"


rule crowd_robustness_part:
    input:
        unpack(crowd_processed),
    output:
        "results/crowd/{crowd_dataset}/robustness/{spammer}/part_{chunk}.tsv",
    log:
        "logs/crowd/{crowd_dataset}/robustness/{spammer}_{chunk}.log",
    benchmark:
        "logs/benchmarks/crowd_robustness_part/{crowd_dataset}/{spammer}_{chunk}.tsv"
    # the longest jobs of the paper config (about 50 s each): start them first, so the run's
    # tail is not one of them on one core
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        dataset=lambda wc: CROWD["datasets"][wc.crowd_dataset],
        ratios=lambda wc: job_share(CROWD["robustness"]["ratios"], CROWD["robustness"]["jobs"], int(wc.chunk)),
        methods=crowd_robustness_methods(),
        replicates=lambda wc: CROWD["robustness"]["replicates"],
        seed=config["seed"],
        ks=CROWD["ks"],
        rbp_p=CROWD["rbp_p"],
    script:
        "../../scripts/crowd_robustness_part.py"


rule crowd_robustness:
    input:
        crowd_robustness_parts,
    output:
        summary="results/crowd/{crowd_dataset}/robustness.tsv",
        cv="results/crowd/{crowd_dataset}/robustness_cv.tsv",
    log:
        "logs/crowd/{crowd_dataset}/robustness.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/crowd_robustness.py"


# A dataset's figures (CROWD_FIGURES) in one job, and a robustness dataset's, one per spammer kind, in another.
rule crowd_figures:
    input:
        **(
            {"metrics_by_topic": "results/crowd/{crowd_dataset}/metrics_by_topic.tsv"}
            if "quality_ablation" in CROWD_FIGURES
            else {}
        ),
        ranking_metrics="results/crowd/{crowd_dataset}/ranking_metrics.tsv",
        quality="results/crowd/{crowd_dataset}/quality.tsv",
        kl="results/crowd/{crowd_dataset}/quality_kl.tsv",
    output:
        **{
            f: report(
                f"results/figures/crowd/{{crowd_dataset}}/{f}.png",
                caption=f"../report/crowd_{f}.rst",
                category="Crowd rank aggregation",
                subcategory="{crowd_dataset}",
            )
            for f in CROWD_FIGURES
        },
        **{f"{f}_pdf": f"results/figures/crowd/{{crowd_dataset}}/{f}.pdf" for f in CROWD_FIGURES},
    log:
        "logs/figures/crowd/{crowd_dataset}.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=lambda wc: CROWD["datasets"][wc.crowd_dataset],
        ablation=CROWD["ablation"],
        bins=CROWD["skill_bins"],
    script:
        "../../scripts/plot_crowd.py"


# (a rule only when crowd.robustness is configured: its outputs are the configured spammer kinds)
if CROWD_SPAMMERS:

    rule crowd_robustness_figures:
        input:
            summary="results/crowd/{crowd_dataset}/robustness.tsv",
            cv="results/crowd/{crowd_dataset}/robustness_cv.tsv",
        output:
            **{
                f"robustness_{s}": report(
                    f"results/figures/crowd/{{crowd_dataset}}/robustness_{s}.png",
                    caption="../report/crowd_robustness.rst",
                    category="Crowd rank aggregation",
                    subcategory="{crowd_dataset}",
                )
                for s in CROWD_SPAMMERS
            },
            **{
                f"robustness_{s}_pdf": f"results/figures/crowd/{{crowd_dataset}}/robustness_{s}.pdf"
                for s in CROWD_SPAMMERS
            },
        log:
            "logs/figures/crowd/{crowd_dataset}_robustness.log",
        localrule: True
        conda:
            "../envs/manyjudges.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            spammers=CROWD_SPAMMERS,
        script:
            "../../scripts/plot_crowd.py"
