# Consensus measure of a set of rankings (Lin, Li, Guo): Google vs Bing, aggregators, sensitivity.


rule parse_search_results:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.search_dataset, f=sorted(raw_files(config, wc.search_dataset))),
    output:
        "data/processed/{search_dataset}/rankings.tsv",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    log:
        "logs/parse/{search_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/parse_search_results.py"


rule parse_clef_runs:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.clef_dataset, f=sorted(raw_files(config, wc.clef_dataset))),
    output:
        "data/processed/{clef_dataset}/rankings.tsv",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    log:
        "logs/parse/{clef_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/parse_clef_runs.py"


rule consensus_grid:
    input:
        "data/processed/{dataset}/rankings.tsv",
    output:
        "results/consensus/{dataset}/consensus.tsv",
    params:
        lambdas=lambda wc: CONS["search"]["lambdas"],
        gammas=lambda wc: CONS["search"]["gammas"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        "logs/consensus/{dataset}/consensus.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/consensus_grid.py"


rule aggregator_consensus:
    input:
        consensus_input,
    output:
        "results/consensus/{dataset}/aggregators.tsv",
    params:
        aggregators=lambda wc: CONS["aggregation"]["aggregators"],
        lam=lambda wc: CONS["aggregation"]["lambda"],
        gamma=lambda wc: CONS["aggregation"]["gamma"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/consensus/{dataset}/aggregators.log",
    benchmark:
        "benchmarks/runs/consensus/{dataset}/aggregators.tsv"
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/aggregator_consensus.py"


rule consensus_sensitivity:
    output:
        "results/consensus/sensitivity/sensitivity.tsv",
    params:
        spec=lambda wc: CONS["sensitivity"],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        "logs/consensus/sensitivity.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/consensus_sensitivity.py"


rule figure_consensus_grid:
    localrule: True
    input:
        "results/consensus/{dataset}/consensus.tsv",
    output:
        png=report(
            "results/figures/consensus/{dataset}/consensus_grid.png",
            caption="../report/consensus_grid.rst",
            category="Consensus",
            subcategory="{dataset}",
        ),
        pdf="results/figures/consensus/{dataset}/consensus_grid.pdf",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/figures/consensus/{dataset}/consensus_grid.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/plot_consensus_grid.py"


rule figure_aggregators:
    localrule: True
    input:
        "results/consensus/{dataset}/aggregators.tsv",
    output:
        png=report(
            "results/figures/consensus/{dataset}/aggregators.png",
            caption="../report/aggregators.rst",
            category="Consensus",
            subcategory="{dataset}",
        ),
        pdf="results/figures/consensus/{dataset}/aggregators.pdf",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/figures/consensus/{dataset}/aggregators.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/plot_aggregators.py"


rule figure_sensitivity:
    localrule: True
    input:
        "results/consensus/sensitivity/sensitivity.tsv",
    output:
        png=report(
            "results/figures/consensus/sensitivity/sensitivity.png",
            caption="../report/sensitivity.rst",
            category="Consensus",
        ),
        pdf="results/figures/consensus/sensitivity/sensitivity.pdf",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/figures/consensus/sensitivity.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/plot_sensitivity.py"
