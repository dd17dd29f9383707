# Arena leaderboards and LLM judges: one score per model from pairwise verdicts, and the judges' measures.


rule arena_data:
    input:
        lambda wc: arena_raw_input(wc.arena_dataset),
    output:
        verdicts="data/processed/arena/{arena_dataset}/verdicts.tsv",
        reference="data/processed/arena/{arena_dataset}/reference.tsv",
    log:
        "logs/parse/arena_{arena_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        spec=lambda wc: ARENA["datasets"][wc.arena_dataset],
        seed=config["seed"],
    script:
        "../../scripts/arena_data.py"


rule arena_leaderboard:
    input:
        "data/processed/arena/{arena_dataset}/verdicts.tsv",
    output:
        "results/arena/{arena_dataset}/leaderboard.tsv",
    log:
        "logs/arena/{arena_dataset}/leaderboard.log",
    benchmark:
        "logs/benchmarks/arena_leaderboard/{arena_dataset}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        specs=lambda wc: {m: method_spec(ARENA, m) for m in ARENA["methods"]},
        bootstrap=ARENA["bootstrap"],
        resample=ARENA["resample"],
        ci=ARENA["ci"],
        bothbad=ARENA["bothbad"],
        seed=config["seed"],
    script:
        "../../scripts/arena_leaderboard.py"


rule arena_judges:
    input:
        verdicts="data/processed/arena/{arena_dataset}/verdicts.tsv",
        reference="data/processed/arena/{arena_dataset}/reference.tsv",
    output:
        **{t: f"results/arena/{{arena_dataset}}/{t}.tsv" for t in ARENA_TABLES},
    log:
        "logs/arena/{arena_dataset}/judges.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        ci=ARENA["ci"],
    script:
        "../../scripts/arena_judges.py"


rule arena_figures:
    input:
        leaderboard="results/arena/{arena_dataset}/leaderboard.tsv",
        judges="results/arena/{arena_dataset}/judges.tsv",
        pairs="results/arena/{arena_dataset}/judge_pairs.tsv",
    output:
        leaderboard=report(
            "results/figures/arena/{arena_dataset}/leaderboard.png",
            caption="../report/arena_leaderboard.rst",
            category="Arena",
            subcategory="{arena_dataset}",
        ),
        leaderboard_pdf="results/figures/arena/{arena_dataset}/leaderboard.pdf",
        position_bias=report(
            "results/figures/arena/{arena_dataset}/position_bias.png",
            caption="../report/arena_position_bias.rst",
            category="Arena",
            subcategory="{arena_dataset}",
        ),
        position_bias_pdf="results/figures/arena/{arena_dataset}/position_bias.pdf",
        agreement=report(
            "results/figures/arena/{arena_dataset}/judge_agreement.png",
            caption="../report/arena_judge_agreement.rst",
            category="Arena",
            subcategory="{arena_dataset}",
        ),
        agreement_pdf="results/figures/arena/{arena_dataset}/judge_agreement.pdf",
    log:
        "logs/figures/arena/{arena_dataset}.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=arena_method_names(),
    script:
        "../../scripts/plot_arena.py"


rule arena_controlled:
    input:
        "data/processed/arena/{arena_dataset}/verdicts.tsv",
    output:
        leaderboard="results/arena/{arena_dataset}/leaderboard_controlled.tsv",
        coefficients="results/arena/{arena_dataset}/style_coefficients.tsv",
    log:
        "logs/arena/{arena_dataset}/controlled.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        control=lambda wc: ARENA["datasets"][wc.arena_dataset]["control"],
        bootstrap=ARENA["bootstrap"],
        resample=ARENA["resample"],
        ci=ARENA["ci"],
        bothbad=ARENA["bothbad"],
        seed=config["seed"],
    script:
        "../../scripts/arena_controlled.py"


rule arena_winrate:
    input:
        "data/processed/arena/{arena_dataset}/verdicts.tsv",
    output:
        "results/arena/{arena_dataset}/winrate.tsv",
    log:
        "logs/arena/{arena_dataset}/winrate.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        baseline=lambda wc: ARENA["datasets"][wc.arena_dataset]["baseline"],
        control=lambda wc: ARENA["datasets"][wc.arena_dataset].get("control") or [],
        bootstrap=ARENA["bootstrap"],
        ci=ARENA["ci"],
        seed=config["seed"],
    script:
        "../../scripts/arena_winrate.py"


rule arena_human:
    input:
        verdicts="data/processed/arena/{arena_dataset}/verdicts.tsv",
        reference="data/processed/arena/{arena_dataset}/reference.tsv",
    output:
        leaderboard="results/arena/{arena_dataset}/leaderboard_human.tsv",
        summary="results/arena/{arena_dataset}/human_summary.tsv",
    log:
        "logs/arena/{arena_dataset}/human.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        share=lambda wc: ARENA["datasets"][wc.arena_dataset]["human"],
        bootstrap=ARENA["bootstrap"],
        ci=ARENA["ci"],
        bothbad=ARENA["bothbad"],
        seed=config["seed"],
    script:
        "../../scripts/arena_human.py"
