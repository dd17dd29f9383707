# Consensus measure of a set of rankings (Lin, Li, Guo): Google vs Bing, aggregators, sensitivity.


rule parse_search_results:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.search_dataset, f=sorted(raw_files(config, wc.search_dataset))),
    output:
        "data/processed/{search_dataset}/rankings.tsv",
    log:
        "logs/parse/{search_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../../scripts/parse_search_results.py"


rule parse_clef_runs:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.clef_dataset, f=sorted(raw_files(config, wc.clef_dataset))),
    output:
        "data/processed/{clef_dataset}/rankings.tsv",
    log:
        "logs/parse/{clef_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../../scripts/parse_clef_runs.py"


rule consensus_grid:
    input:
        "data/processed/{dataset}/rankings.tsv",
    output:
        "results/consensus/{dataset}/consensus.tsv",
    log:
        "logs/consensus/{dataset}/consensus.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        lambdas=lambda wc: CONS["search"]["lambdas"],
        gammas=lambda wc: CONS["search"]["gammas"],
    script:
        "../../scripts/consensus_grid.py"


rule aggregator_consensus:
    input:
        consensus_input,
    output:
        "results/consensus/{dataset}/aggregators.tsv",
    log:
        "logs/consensus/{dataset}/aggregators.log",
    benchmark:
        "logs/benchmarks/aggregator_consensus/{dataset}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        aggregators=lambda wc: CONS["aggregation"]["aggregators"],
        lam=lambda wc: CONS["aggregation"]["lambda"],
        gamma=lambda wc: CONS["aggregation"]["gamma"],
    script:
        "../../scripts/aggregator_consensus.py"


rule consensus_sensitivity:
    output:
        "results/consensus/sensitivity/sensitivity.tsv",
    log:
        "logs/consensus/sensitivity.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        spec=lambda wc: CONS["sensitivity"],
        seed=config["seed"],
    script:
        "../../scripts/consensus_sensitivity.py"


rule figure_consensus_grid:
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
    log:
        "logs/figures/consensus/{dataset}/consensus_grid.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_consensus_grid.py"


rule figure_aggregators:
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
    log:
        "logs/figures/consensus/{dataset}/aggregators.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_aggregators.py"


rule figure_sensitivity:
    input:
        "results/consensus/sensitivity/sensitivity.tsv",
    output:
        png=report(
            "results/figures/consensus/sensitivity/sensitivity.png",
            caption="../report/sensitivity.rst",
            category="Consensus",
        ),
        pdf="results/figures/consensus/sensitivity/sensitivity.pdf",
    log:
        "logs/figures/consensus/sensitivity.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_sensitivity.py"
