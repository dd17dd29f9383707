# Simulated panels shaped like the papers' unavailable data (seeded from the config).


rule simulate_orderings:
    output:
        "data/processed/{sim_dataset}/orderings.tsv",
    log:
        "logs/simulate/{sim_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    params:
        spec=lambda wc: ORD["datasets"][wc.sim_dataset],
        seed=config["seed"],
    script:
        "../../scripts/simulate_orderings.py"
