# Real data: pinned files fetched (or copied from a mirror), sha256-checked (each family parses its own).


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
