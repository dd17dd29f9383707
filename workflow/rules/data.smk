# Real data: pinned files fetched (or copied from a mirror), sha256-checked, parsed.


# One download job per dataset (its pinned files listed explicitly), not one per file:
# a job costs a Python start-up, and a dataset's files are small.
for _dataset in pinned_dataset_names(config):
    _files = raw_files(config, _dataset)

    rule:
        name:
            f"download_{_dataset}"
        # downloads run where the workflow runs: cluster nodes often have no internet
        localrule: True
        output:
            [f"data/raw/{_dataset}/{f}" for f in sorted(_files)],
        params:
            pinned=[_files[f] for f in sorted(_files)],
            mirror=MIRROR,
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        log:
            f"logs/download/{_dataset}.log",
        retries: 1
        conda:
            "../envs/manyjudges.yaml"
        script:
            "../../scripts/download.py"


rule parse_preflib:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.preflib_dataset, f=sorted(raw_files(config, wc.preflib_dataset))),
    output:
        "data/processed/{preflib_dataset}/orderings.tsv",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    log:
        "logs/parse/{preflib_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/parse_preflib.py"


rule copy_user_table:
    localrule: True
    input:
        lambda wc: ORD["datasets"][wc.table_dataset]["path"],
    output:
        "data/processed/{table_dataset}/orderings.tsv",
    params:
        duplicates=lambda wc: ORD["datasets"][wc.table_dataset].get("duplicates", "error"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/parse/{table_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    script:
        "../../scripts/validate_orderings.py"
