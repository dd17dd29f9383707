# Real data: pinned files fetched (or copied from a mirror), sha256-checked, parsed.


# One download job per dataset (its pinned files listed explicitly), not one per file:
# a job costs a Python start-up, and a dataset's files are small.
for _dataset in pinned_dataset_names(config):
    _files = raw_files(config, _dataset)

    rule:
        name:
            f"download_{_dataset}"
        output:
            [f"data/raw/{_dataset}/{f}" for f in sorted(_files)],
        log:
            f"logs/download/{_dataset}.log",
        retries: 1
        # downloads run where the workflow runs: cluster nodes often have no internet
        localrule: True
        conda:
            "../envs/manyjudges.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            pinned=[_files[f] for f in sorted(_files)],
            mirror=MIRROR,
        script:
            "../../scripts/download.py"


rule parse_preflib:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.preflib_dataset, f=sorted(raw_files(config, wc.preflib_dataset))),
    output:
        "data/processed/{preflib_dataset}/orderings.tsv",
    log:
        "logs/parse/{preflib_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../../scripts/parse_preflib.py"


rule copy_user_table:
    input:
        lambda wc: ORD["datasets"][wc.table_dataset]["path"],
    output:
        "data/processed/{table_dataset}/orderings.tsv",
    log:
        "logs/parse/{table_dataset}.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        duplicates=lambda wc: ORD["datasets"][wc.table_dataset].get("duplicates", "error"),
    script:
        "../../scripts/validate_orderings.py"
