# Real data: pinned files fetched (or copied from a mirror), sha256-checked, parsed.


rule download_file:
    output:
        "data/raw/{raw_dataset}/{filename}",
    params:
        pinned=lambda wc: raw_files(config, wc.raw_dataset)[wc.filename],
        mirror=MIRROR,
    log:
        "logs/download/{raw_dataset}/{filename}.log",
    retries: 1
    script:
        "../../scripts/download.py"


rule parse_preflib:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.preflib_dataset, f=sorted(raw_files(ORD, wc.preflib_dataset))),
    output:
        "data/processed/{preflib_dataset}/orderings.tsv",
    log:
        "logs/parse/{preflib_dataset}.log",
    script:
        "../../scripts/parse_preflib.py"


rule copy_user_table:
    input:
        lambda wc: ORD["datasets"][wc.table_dataset]["path"],
    output:
        "data/processed/{table_dataset}/orderings.tsv",
    log:
        "logs/parse/{table_dataset}.log",
    script:
        "../../scripts/validate_orderings.py"
